package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/builtin"
	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/webhook"
)

// WebhookOptions adjust the MutatingAdmissionWebhook and ValidatingAdmissionWebhook
// plugins; the zero value is kube's behaviour without cluster DNS and without CEL.
type WebhookOptions struct {
	// Resolver finds the address of a webhook behind a Service (clientConfig.service);
	// nil, such a webhook is unreachable and its calls fail under its failurePolicy
	// (see webhook.Options.Resolver).
	Resolver webhook.ServiceResolver
	// Conditions compiles the webhooks' matchConditions; nil, a webhook that has
	// matchConditions cannot be matched and fails under its failurePolicy.
	Conditions ConditionCompiler
}

// hook is one webhook of a stored configuration, compiled: its selectors parsed, its
// client built (or the error of building it), its matchConditions compiled.
type hook struct {
	// uid is kube's webhook accessor uid: configuration/webhook/index.
	uid           string
	name          string
	configuration string
	rules         []admissionregistrationv1.RuleWithOperations
	equivalent    bool // matchPolicy Equivalent
	ignore        bool // failurePolicy Ignore
	nsSelector    storage.LabelSelector
	nsSelectorErr error
	objSelector   storage.LabelSelector
	objSelectErr  error
	sideEffects   *admissionregistrationv1.SideEffectClass
	timeout       time.Duration // 0: none of its own
	reviewVersion string        // "v1", "v1beta1" or "" (none apikit speaks)
	reinvoke      bool          // reinvocationPolicy IfNeeded (mutating only)
	client        *webhook.Client
	clientErr     error
	conditions    ConditionMatcher
	conditionsErr error
	hasConditions bool
}

// compileHook builds the hook of webhook index i of configuration config.
func compileHook(config string, i int, w *admissionregistrationv1.MutatingWebhook, opts WebhookOptions) *hook {
	h := &hook{
		uid: fmt.Sprintf("%s/%s/%d", config, w.Name, i), name: w.Name, configuration: config,
		rules:       w.Rules,
		equivalent:  w.MatchPolicy != nil && *w.MatchPolicy == admissionregistrationv1.Equivalent,
		ignore:      w.FailurePolicy != nil && *w.FailurePolicy == admissionregistrationv1.Ignore,
		sideEffects: w.SideEffects,
		reinvoke:    w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy,
	}
	h.nsSelector, h.nsSelectorErr = selectorOf(w.NamespaceSelector)
	h.objSelector, h.objSelectErr = selectorOf(w.ObjectSelector)
	if w.TimeoutSeconds != nil {
		h.timeout = time.Duration(*w.TimeoutSeconds) * time.Second
	}
	for _, v := range w.AdmissionReviewVersions {
		if v == "v1" || v == "v1beta1" {
			h.reviewVersion = v
			break
		}
	}
	cc := webhook.ClientConfig{CABundle: w.ClientConfig.CABundle}
	if w.ClientConfig.URL != nil {
		cc.URL = *w.ClientConfig.URL
	}
	if svc := w.ClientConfig.Service; svc != nil {
		cc.Service = &webhook.ServiceReference{Namespace: svc.Namespace, Name: svc.Name}
		if svc.Path != nil {
			cc.Service.Path = *svc.Path
		}
		if svc.Port != nil {
			cc.Service.Port = *svc.Port
		}
	}
	h.client, h.clientErr = webhook.New(w.Name, cc, webhook.Options{Resolver: opts.Resolver, Timeout: h.timeout})
	if len(w.MatchConditions) > 0 {
		h.hasConditions = true
		if opts.Conditions == nil {
			h.conditionsErr = fmt.Errorf("webhook %q has matchConditions and the server compiles no CEL", w.Name)
		} else {
			conds := make([]MatchCondition, len(w.MatchConditions))
			for i, c := range w.MatchConditions {
				conds[i] = MatchCondition{Name: c.Name, Expression: c.Expression}
			}
			h.conditions, h.conditionsErr = opts.Conditions.CompileConditions(conds)
		}
	}
	return h
}

// selectorOf parses a webhook's selector; nil (not defaulted) selects everything, as
// kube's accessor parses a nil selector.
func selectorOf(ls *metav1.LabelSelector) (storage.LabelSelector, error) {
	if ls == nil {
		return storage.LabelSelector{}, nil
	}
	return builtin.LabelSelectorAsSelector(ls)
}

func (h *hook) close() {
	if h.client != nil {
		h.client.Close()
	}
}

// configEntry is a compiled configuration: its webhooks at one resourceVersion.
type configEntry struct {
	resourceVersion string
	hooks           []*hook
}

// hookSource reads the webhook configurations of one kind from the Store of the
// request and keeps them compiled, keyed by configuration uid and resourceVersion, so
// that a request rebuilds nothing that did not change.
type hookSource struct {
	resource scheme.GroupResource
	webhooks func(obj scheme.Object) ([]admissionregistrationv1.MutatingWebhook, error)

	once    sync.Once
	mu      sync.Mutex
	configs map[scheme.UID]*configEntry
	// last is the flattened hook list of the configurations last read, in kube's order
	// (configurations by name, then webhook order); lastKeys their uid/resourceVersions.
	last     []*hook
	lastKeys []string
}

// hooks returns the webhooks of the stored configurations in kube's order: configurations
// sorted by name (the storage keys' order), then each one's webhooks in order.
func (s *hookSource) hooks(ctx context.Context, opts WebhookOptions) ([]*hook, error) {
	objs, err := registry.List(ctx, s.resource, "")
	if err != nil || len(objs) == 0 {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(objs) == len(s.lastKeys) {
		same := true
		for i, o := range objs {
			if s.lastKeys[i] != string(o.GetUID())+"/"+o.GetResourceVersion() {
				same = false
				break
			}
		}
		if same {
			return s.last, nil
		}
	}
	if s.configs == nil {
		s.configs = map[scheme.UID]*configEntry{}
	}
	seen := make(map[scheme.UID]bool, len(objs))
	var all []*hook
	keys := make([]string, 0, len(objs))
	for _, o := range objs {
		uid := o.GetUID()
		seen[uid] = true
		keys = append(keys, string(uid)+"/"+o.GetResourceVersion())
		e := s.configs[uid]
		if e == nil || e.resourceVersion != o.GetResourceVersion() {
			if e != nil {
				for _, h := range e.hooks {
					h.close()
				}
			}
			webhooks, err := s.webhooks(o)
			if err != nil {
				return nil, apierrors.NewInternalError(err)
			}
			e = &configEntry{resourceVersion: o.GetResourceVersion()}
			for i := range webhooks {
				e.hooks = append(e.hooks, compileHook(o.GetName(), i, &webhooks[i], opts))
			}
			s.configs[uid] = e
		}
		all = append(all, e.hooks...)
	}
	for uid, e := range s.configs {
		if !seen[uid] {
			for _, h := range e.hooks {
				h.close()
			}
			delete(s.configs, uid)
		}
	}
	s.last, s.lastKeys = all, keys
	return all, nil
}

// mutatingWebhooksOf returns the webhooks of a MutatingWebhookConfiguration.
func mutatingWebhooksOf(obj scheme.Object) ([]admissionregistrationv1.MutatingWebhook, error) {
	c, ok := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
	if !ok {
		return nil, fmt.Errorf("expected a MutatingWebhookConfiguration, got %T", obj)
	}
	return c.Webhooks, nil
}

// validatingWebhooksOf returns the webhooks of a ValidatingWebhookConfiguration as
// mutating webhooks that never reinvoke: a ValidatingWebhook has the same fields but
// reinvocationPolicy, so its JSON reads as one.
func validatingWebhooksOf(obj scheme.Object) ([]admissionregistrationv1.MutatingWebhook, error) {
	c, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
	if !ok {
		return nil, fmt.Errorf("expected a ValidatingWebhookConfiguration, got %T", obj)
	}
	data, err := json.Marshal(c.Webhooks)
	if err != nil {
		return nil, err
	}
	var out []admissionregistrationv1.MutatingWebhook
	return out, json.Unmarshal(data, &out)
}

// init sets the resource and reader of the source once.
func (s *hookSource) init(gr scheme.GroupResource, webhooks func(scheme.Object) ([]admissionregistrationv1.MutatingWebhook, error)) {
	s.once.Do(func() { s.resource, s.webhooks = gr, webhooks })
}
