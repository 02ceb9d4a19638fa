package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/apikit-dev/apikit/apierrors"
	admissionv1 "github.com/apikit-dev/apikit/builtin/admission/v1"
	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// MutatingWebhook is kube-apiserver v1.37.2's MutatingAdmissionWebhook plugin
// (k8s.io/apiserver/pkg/admission/plugin/webhook/mutating): on every create, update and
// delete of a resource other than the admission configurations themselves, it calls the
// webhooks of the stored MutatingWebhookConfigurations that match the request, one
// after the other (configurations by name, then webhook order), each with an
// AdmissionReview of the object at the version the webhook's rule named, and applies
// the JSONPatch each answers to the object. A webhook that changes the object makes the
// earlier ones with reinvocationPolicy IfNeeded run once more. Its errors are kube's:
// `admission webhook "x" denied the request: ...`, and under failurePolicy Fail
// `Internal error occurred: failed calling webhook "x": ...`.
//
// The configurations are read with registry.List on each request and compiled once
// per configuration uid and resourceVersion; use one MutatingWebhook per Store (its
// zero value is ready, with WebhookOptions{}).
type MutatingWebhook struct {
	// Options resolve Services and compile matchConditions.
	Options WebhookOptions

	source hookSource
}

var _ registry.MutatingAdmission = (*MutatingWebhook)(nil)

// NewMutatingWebhook returns the plugin with opts.
func NewMutatingWebhook(opts WebhookOptions) *MutatingWebhook { return &MutatingWebhook{Options: opts} }

// Admit calls the matching mutating webhooks and applies their patches to obj.
func (m *MutatingWebhook) Admit(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if exempt(a) {
		return nil
	}
	m.source.init(admissionregistrationv1.MutatingWebhookConfigurations, mutatingWebhooksOf)
	hooks, err := m.source.hooks(ctx, m.Options)
	if err != nil || len(hooks) == 0 {
		return err
	}
	if a.Operation == registry.OperationDelete {
		obj = nil
	}
	r := newRequest(a, obj)
	var invoked []string // IfNeeded webhooks called since the last change
	reinvoke := map[string]bool{}
	changedAny := false
	for round := 0; round < 2; round++ {
		if round == 1 && (!changedAny || len(reinvoke) == 0) {
			break
		}
		for _, h := range hooks {
			inv, err := r.shouldCall(ctx, h)
			if err != nil {
				return err
			}
			if inv == nil || round == 1 && !reinvoke[h.uid] {
				continue
			}
			changed, err := r.mutate(ctx, inv)
			if changed {
				for _, uid := range invoked {
					reinvoke[uid] = true
				}
				invoked, changedAny = invoked[:0], true
			}
			if h.reinvoke {
				invoked = append(invoked, h.uid)
			}
			if err != nil {
				if err := failureOf(h, err); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// mutate calls inv's webhook and applies its patch to the request's object, reporting
// whether it changed.
func (r *request) mutate(ctx context.Context, inv *invocation) (bool, error) {
	h := inv.h
	object, oldObject, _, err := r.objects(inv, r.obj)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	resp, err := r.call(ctx, inv, object, oldObject, true)
	if err != nil {
		return false, err
	}
	registry.AddWarning(ctx, resp.warnings...)
	if !resp.allowed {
		return false, denied(h.name, resp.result)
	}
	if len(resp.patch) == 0 {
		return false, nil
	}
	var ops []json.RawMessage
	p, err := patch.DecodeJSONPatch(resp.patch)
	if err == nil {
		err = json.Unmarshal(resp.patch, &ops)
	}
	if err != nil {
		return false, callFailed(h, "received undecodable patch in webhook response: %w", err)
	}
	if len(ops) == 0 {
		return false, nil
	}
	if r.obj == nil {
		return false, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	if resp.patchType != admissionv1.PatchTypeJSONPatch {
		return false, callFailed(h, "unsupported patch type %q", resp.patchType)
	}
	patched, err := p.Apply(object)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	s := r.a.Scheme
	var ext scheme.Object
	if _, ok := r.obj.(*scheme.Unstructured); ok {
		u := &scheme.Unstructured{}
		if err := json.Unmarshal(patched, &u.Object); err != nil {
			return false, apierrors.NewInternalError(err)
		}
		ext = u
	} else {
		k, err := s.New(inv.kind)
		if err != nil {
			return false, apierrors.NewInternalError(err)
		}
		if err := json.Unmarshal(patched, k); err != nil {
			return false, apierrors.NewInternalError(err)
		}
		if ext, err = conversion.AsObject(k); err != nil {
			return false, apierrors.NewInternalError(err)
		}
		ext.GetObjectKind().SetGroupVersionKind(inv.kind)
		conversion.Default(s, ext)
	}
	again, err := encodeObject(ext)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	internal, err := conversion.ObjectToInternal(s, ext, inv.kind)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	if err := replaceObject(r.obj, internal); err != nil {
		return false, apierrors.NewInternalError(err)
	}
	return string(again) != string(object), nil
}

// encodeObject is the JSON of obj as a webhook is sent it.
func encodeObject(obj scheme.Object) ([]byte, error) {
	if u, ok := obj.(*scheme.Unstructured); ok {
		return json.Marshal(u.Object)
	}
	return json.Marshal(obj)
}

// replaceObject makes dst (the request's object) what src is, in place.
func replaceObject(dst, src scheme.Object) error {
	if u, ok := dst.(*scheme.Unstructured); ok {
		su, ok := src.(*scheme.Unstructured)
		if !ok {
			return fmt.Errorf("cannot set %T from %T", dst, src)
		}
		u.Object = su.Object
		return nil
	}
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Type() != sv.Type() || dv.Kind() != reflect.Pointer {
		return fmt.Errorf("cannot set %T from %T", dst, src)
	}
	dv.Elem().Set(sv.Elem())
	return nil
}
