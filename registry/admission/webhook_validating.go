package admission

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/apikit-dev/apikit/apierrors"
	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// ValidatingWebhook is kube-apiserver v1.37.2's ValidatingAdmissionWebhook plugin
// (k8s.io/apiserver/pkg/admission/plugin/webhook/validating): on every create, update
// and delete of a resource other than the admission configurations themselves, it
// calls the matching webhooks of the stored ValidatingWebhookConfigurations in
// parallel, and refuses the request with the first refusal or failure (under
// failurePolicy Fail) to come back, in kube's words. Like MutatingWebhook, its zero
// value is ready and it keeps the configurations compiled; use one per Store.
type ValidatingWebhook struct {
	// Options resolve Services and compile matchConditions.
	Options WebhookOptions

	source hookSource
}

var _ registry.ValidatingAdmission = (*ValidatingWebhook)(nil)

// NewValidatingWebhook returns the plugin with opts.
func NewValidatingWebhook(opts WebhookOptions) *ValidatingWebhook {
	return &ValidatingWebhook{Options: opts}
}

// Validate calls the matching validating webhooks.
func (v *ValidatingWebhook) Validate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if exempt(a) {
		return nil
	}
	v.source.init(admissionregistrationv1.ValidatingWebhookConfigurations, validatingWebhooksOf)
	hooks, err := v.source.hooks(ctx, v.Options)
	if err != nil || len(hooks) == 0 {
		return err
	}
	if a.Operation == registry.OperationDelete {
		obj = nil // kube sends a delete's stored object as oldObject only
	}
	r := newRequest(a, obj)
	type sent struct{ object, oldObject json.RawMessage }
	var invs []*invocation
	versions := map[scheme.GroupVersionKind]sent{}
	for _, h := range hooks {
		inv, err := r.shouldCall(ctx, h)
		if err != nil {
			return err
		}
		if inv == nil {
			continue
		}
		invs = append(invs, inv)
		if _, ok := versions[inv.kind]; !ok {
			object, oldObject, _, err := r.objects(inv, r.obj)
			if err != nil {
				return apierrors.NewInternalError(err)
			}
			versions[inv.kind] = sent{object, oldObject}
		}
	}
	if len(invs) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return apierrors.New(504, scheme.StatusReasonTimeout, "Timeout: request did not complete within requested timeout", &scheme.StatusDetails{})
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		first    error
		warnings []string
	)
	for _, inv := range invs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := versions[inv.kind]
			resp, err := r.call(ctx, inv, o.object, o.oldObject, false)
			if err == nil {
				mu.Lock()
				warnings = append(warnings, resp.warnings...)
				mu.Unlock()
				if !resp.allowed {
					err = denied(inv.h.name, resp.result)
				}
			}
			if err = failureOf(inv.h, err); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	registry.AddWarning(ctx, warnings...)
	return first
}
