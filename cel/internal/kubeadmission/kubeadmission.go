// Package kubeadmission adapts apikit's admission inputs (users, authorizers, objects
// as JSON-shaped maps) to the types k8s.io/apiserver's admission CEL library
// (k8s.io/apiserver/pkg/admission/plugin/cel) evaluates expressions over, so that the
// matchConditions of webhooks and the expressions of admission policies compile, cost
// and evaluate exactly as on kube-apiserver.
package kubeadmission

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/validation"
)

// UserInfo is u as kube's user.Info (the anonymous user's empty info when u is nil).
func UserInfo(u *authn.User) user.Info {
	if u == nil {
		return &user.DefaultInfo{}
	}
	return &user.DefaultInfo{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
}

// Authorizer answers kube's authorizer questions (the CEL `authorizer` variable's
// checks) with an apikit Authorizer: A when set, else the one of the request's
// context Ctx (authz.WithAuthorizer), which fails closed without one. kube's CEL
// library asks with a context of its own (context.TODO), so the request's is kept
// here.
type Authorizer struct {
	A   authz.Authorizer
	Ctx context.Context
}

var _ authorizer.UnconditionalAuthorizer = Authorizer{}

// Authorize implements authorizer.UnconditionalAuthorizer: allowed is DecisionAllow,
// anything else DecisionNoOpinion (as kube's RBAC answers a request no rule allows).
func (a Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	in := authz.Attributes{
		Verb:            attrs.GetVerb(),
		Namespace:       attrs.GetNamespace(),
		APIGroup:        attrs.GetAPIGroup(),
		APIVersion:      attrs.GetAPIVersion(),
		Resource:        attrs.GetResource(),
		Subresource:     attrs.GetSubresource(),
		Name:            attrs.GetName(),
		Path:            attrs.GetPath(),
		ResourceRequest: attrs.IsResourceRequest(),
	}
	if u := attrs.GetUser(); u != nil {
		in.User = &authn.User{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}
	}
	if a.Ctx != nil {
		ctx = a.Ctx
	}
	var (
		allowed bool
		reason  string
		err     error
	)
	if a.A != nil {
		allowed, reason, err = a.A.Authorize(ctx, in)
	} else {
		allowed, reason, err = authz.Authorize(ctx, in)
	}
	if allowed {
		return authorizer.DecisionAllow, reason, err
	}
	return authorizer.DecisionNoOpinion, reason, err
}

// Object is m as the runtime.Object kube's admission attributes carry, nil for nil.
func Object(m map[string]any) runtime.Object {
	if m == nil {
		return nil
	}
	return &unstructured.Unstructured{Object: m}
}

// Request is the AdmissionRequest (admission.k8s.io/v1) m describes, without its object
// and oldObject (CEL sees them as variables of their own) and with its options as an
// object, as kube's CreateAdmissionRequest builds it.
func Request(m map[string]any) (*admissionv1.AdmissionRequest, error) {
	req := &admissionv1.AdmissionRequest{}
	if m == nil {
		return req, nil
	}
	trimmed := make(map[string]any, len(m))
	for k, v := range m {
		if k != "object" && k != "oldObject" && k != "options" {
			trimmed[k] = v
		}
	}
	b, err := json.Marshal(trimmed)
	if err != nil {
		return nil, fmt.Errorf("encoding the admission request: %w", err)
	}
	if err := json.Unmarshal(b, req); err != nil {
		return nil, fmt.Errorf("decoding the admission request: %w", err)
	}
	if opts, ok := m["options"].(map[string]any); ok {
		req.Options = runtime.RawExtension{Object: &unstructured.Unstructured{Object: opts}}
	}
	return req, nil
}

// Attributes are the versioned admission attributes of req (the request's resource
// and kind are those the attributes report; the matched kind is the versioned kind),
// object and oldObject their objects, u their user.
func Attributes(req *admissionv1.AdmissionRequest, object, oldObject map[string]any, u *authn.User) *admission.VersionedAttributes {
	resource := schema.GroupVersionResource(req.Resource)
	if req.RequestResource != nil {
		resource = schema.GroupVersionResource(*req.RequestResource)
	}
	kind := schema.GroupVersionKind(req.Kind)
	if req.RequestKind != nil {
		kind = schema.GroupVersionKind(*req.RequestKind)
	}
	subresource := req.SubResource
	if req.RequestSubResource != "" {
		subresource = req.RequestSubResource
	}
	dryRun := req.DryRun != nil && *req.DryRun
	attrs := admission.NewAttributesRecord(Object(object), Object(oldObject), kind, req.Namespace, req.Name, resource, subresource,
		admission.Operation(req.Operation), req.Options.Object, dryRun, UserInfo(u))
	va := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: schema.GroupVersionKind(req.Kind)}
	if object != nil {
		va.VersionedObject.Set(Object(object))
	}
	if oldObject != nil {
		va.VersionedOldObject.Set(Object(oldObject))
	}
	return va
}

var (
	envOnce  sync.Once
	env      *environment.EnvSet
	compiler plugincel.Compiler
)

// BaseEnv is the CEL environment kube-apiserver's webhook and policy plugins compile
// admission expressions in: the base environment of its compatibility version.
func BaseEnv() *environment.EnvSet {
	envOnce.Do(func() {
		env = environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
		compiler = plugincel.NewCompiler(env)
	})
	return env
}

// Compiler is kube's stateless compiler of admission expressions (no variables) in
// BaseEnv.
func Compiler() plugincel.Compiler {
	BaseEnv()
	return compiler
}

// ExpressionError is kube's validation error of the expression at p that err (the
// CEL library's compilation error) says does not compile.
func ExpressionError(p *validation.Path, expression string, err *apiservercel.Error) *validation.Error {
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return validation.Required(p, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return validation.Invalid(p, expression, err.Detail)
	default:
		return validation.InternalError(p, err)
	}
}
