package admission

import (
	"context"
	"errors"

	"github.com/apikit-dev/apikit/apierrors"
	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// request is one write as the webhooks see it: the attributes, the object (internal
// version) and the versions it is sent at.
type request struct {
	a   registry.AdmissionAttributes
	obj scheme.Object // nil for DELETE
	gvr scheme.GroupVersionResource
	// nsLabels caches the labels of the request's namespace, read once.
	nsLabels    map[string]string
	nsLabelsErr error
	nsRead      bool
}

// invocation is a webhook to call and the resource and kind it is called for (the
// request's, or with matchPolicy Equivalent the equivalent one a rule named).
type invocation struct {
	h        *hook
	resource scheme.GroupVersionResource
	kind     scheme.GroupVersionKind
}

// exempt is kube's IsExemptAdmissionConfigurationResource: no webhook is called on the
// webhook configurations and admission policies themselves.
func exempt(a registry.AdmissionAttributes) bool {
	if a.Kind.Group != admissionregistrationv1.SchemeGroupVersion.Group {
		return false
	}
	switch a.Kind.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}

func newRequest(a registry.AdmissionAttributes, obj scheme.Object) *request {
	r := &request{a: a, obj: obj, gvr: scheme.GroupVersionResource{Group: a.APIGroup, Version: a.APIVersion, Resource: a.Resource}}
	if r.isNamespaceResource() && r.a.Namespace == "" {
		// kube's handlers give a request on a Namespace the namespace of its name,
		// which webhooks are sent.
		r.a.Namespace = r.a.Name
	}
	return r
}

// isNamespace says the request is on a Namespace (the resource, not a subresource).
func (r *request) isNamespaceResource() bool {
	return r.gvr.Group == "" && r.gvr.Version == "v1" && r.gvr.Resource == "namespaces"
}

// shouldCall is kube's ShouldCallHook: the namespace and object selectors, the rules
// (and with matchPolicy Equivalent those of the equivalent resources), then the
// matchConditions. A nil invocation and nil error means the webhook is not called.
func (r *request) shouldCall(ctx context.Context, h *hook) (*invocation, error) {
	nsMatch, nsErr := r.matchNamespace(ctx, h)
	if !nsMatch && nsErr == nil {
		return nil, nil
	}
	objMatch, objErr := r.matchObject(h)
	if !objMatch && objErr == nil {
		return nil, nil
	}
	var inv *invocation
	for _, rule := range h.rules {
		if r.matchRule(rule, r.gvr) {
			inv = &invocation{h: h, resource: r.gvr, kind: r.a.Kind}
			break
		}
	}
	if inv == nil && h.equivalent {
	rules:
		for _, rule := range h.rules {
			for _, eq := range r.equivalents() {
				if eq.gvr == r.gvr {
					continue
				}
				if r.matchRule(rule, eq.gvr) {
					inv = &invocation{h: h, resource: eq.gvr, kind: eq.gvk}
					break rules
				}
			}
		}
	}
	if inv == nil {
		return nil, nil
	}
	if nsErr != nil {
		return nil, nsErr
	}
	if objErr != nil {
		return nil, objErr
	}
	if h.hasConditions {
		ok, err := r.matchConditions(ctx, inv)
		if err != nil || !ok {
			return nil, err
		}
	}
	return inv, nil
}

// matchConditions evaluates the webhook's matchConditions on the object at the
// invocation's version: a false condition skips the webhook; an error fails the request
// (403) unless the failurePolicy is Ignore, as kube's matcher does.
func (r *request) matchConditions(ctx context.Context, inv *invocation) (bool, error) {
	h := inv.h
	err := h.conditionsErr
	if err == nil {
		in, berr := r.conditionInput(inv)
		if berr != nil {
			return false, apierrors.NewInternalError(berr)
		}
		res := h.conditions.Match(ctx, in)
		if res.Err == nil {
			return res.Matches, nil
		}
		err = res.Err
	}
	if h.ignore {
		return false, nil
	}
	return false, apierrors.NewForbidden(scheme.GroupResource{Group: r.gvr.Group, Resource: r.gvr.Resource}, r.a.Name, err)
}

// matchNamespace is kube's MatchNamespaceSelector: a cluster-scoped object other than a
// Namespace always matches; a Namespace created or updated is matched by its own
// labels; otherwise the labels of the request's namespace (404 when it does not exist).
func (r *request) matchNamespace(ctx context.Context, h *hook) (bool, error) {
	if r.a.Namespace == "" && !(r.gvr.Group == "" && r.gvr.Resource == "namespaces") {
		return true, nil
	}
	if h.nsSelectorErr != nil {
		return false, apierrors.NewInternalError(h.nsSelectorErr)
	}
	if h.nsSelector.Empty() {
		return true, nil
	}
	labels, err := r.namespaceLabels(ctx)
	if err != nil {
		return false, err
	}
	return h.nsSelector.Matches(labels), nil
}

func (r *request) namespaceLabels(ctx context.Context) (map[string]string, error) {
	if r.gvr.Group == "" && r.gvr.Resource == "namespaces" && r.a.Subresource == "" &&
		(r.a.Operation == registry.OperationCreate || r.a.Operation == registry.OperationUpdate) && r.obj != nil {
		return r.obj.GetLabels(), nil
	}
	if !r.nsRead {
		r.nsRead = true
		ns := r.a.Namespace
		if ns == "" && r.isNamespaceResource() {
			ns = r.a.Name
		}
		obj, err := registry.Get(ctx, corev1.Namespaces, "", ns)
		if err != nil {
			var st *scheme.Status
			if !asStatus(err, &st) || st.Code != 404 {
				err = apierrors.NewInternalError(err)
			}
			r.nsLabelsErr = err
		} else {
			r.nsLabels = obj.GetLabels()
		}
	}
	return r.nsLabels, r.nsLabelsErr
}

// matchObject is kube's MatchObjectSelector: the new or the old object's labels.
func (r *request) matchObject(h *hook) (bool, error) {
	if h.objSelectErr != nil {
		return false, apierrors.NewInternalError(h.objSelectErr)
	}
	if h.objSelector.Empty() {
		return true, nil
	}
	if r.obj != nil && h.objSelector.Matches(r.obj.GetLabels()) {
		return true, nil
	}
	return r.a.OldObject != nil && h.objSelector.Matches(r.a.OldObject.GetLabels()), nil
}

// matchRule is kube's rules.Matcher on the resource gvr of the request.
func (r *request) matchRule(rule admissionregistrationv1.RuleWithOperations, gvr scheme.GroupVersionResource) bool {
	return RuleMatches(rule.Operations, rule.Scope, rule.APIGroups, rule.APIVersions, rule.Resources,
		RuleRequest{Operation: string(r.a.Operation), Namespace: r.a.Namespace, Resource: gvr, Subresource: r.a.Subresource})
}

// equivalentResource is a resource and kind equivalent to the request's.
type equivalentResource struct {
	gvr scheme.GroupVersionResource
	gvk scheme.GroupVersionKind
}

// equivalents are kube's EquivalentResourcesFor: the request's resource at every version
// the scheme serves, and the resources that share its storage (the same objects in
// another group) at theirs.
func (r *request) equivalents() []equivalentResource {
	s := r.a.Scheme
	if s == nil {
		return nil
	}
	res, ok := s.Resource(scheme.GroupResource{Group: r.gvr.Group, Resource: r.gvr.Resource})
	if !ok {
		return nil
	}
	stored := s.StorageResource(res)
	var out []equivalentResource
	add := func(x *scheme.Resource) {
		for _, v := range s.ServedVersions(x) {
			out = append(out, equivalentResource{
				gvr: scheme.GroupVersionResource{Group: x.Group, Version: v, Resource: x.Plural},
				gvk: scheme.GroupVersionKind{Group: x.Group, Version: v, Kind: x.Kind},
			})
		}
	}
	add(res)
	for _, x := range s.Resources() {
		if x != res && s.StorageResource(x) == stored {
			add(x)
		}
	}
	return out
}

func asStatus(err error, st **scheme.Status) bool { return errors.As(err, st) }
