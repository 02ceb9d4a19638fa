package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// The escalation checks of kube-apiserver's RBAC storage (k8s.io/kubernetes
// pkg/registry/rbac/*/policybased and pkg/registry/rbac/validation), run by the
// AuthorizeCreate and AuthorizeUpdate hooks of RBAC:
//
//   - a member of system:masters may write anything;
//   - a Role or ClusterRole may be written by a user allowed the verb "escalate" on it,
//     else only with rules the user holds, each of them; a ClusterRole with an
//     aggregationRule only by a user holding every permission;
//   - a RoleBinding or ClusterRoleBinding may be written by a user allowed the verb
//     "bind" on the role it refers to, else only when the user holds every rule of
//     that role, read from storage (an aggregated ClusterRole with the rules its
//     selectors gather, AggregatedRules);
//   - an update that changes nothing but ownerReferences, finalizers and managedFields
//     (the garbage collector's fields) is not checked.
//
// kube compares the rules with those its RBAC rule resolver finds for the user. apikit's
// server may have another Authorizer (a SubjectAccessReview to a kube-apiserver, a
// union), whose rules cannot be listed, so a user holds a permission here when the
// Handler's Authorizer allows it: each rule is broken down as kube's BreakdownRule does
// (verb x apiGroup x resource x resourceName, verb x nonResourceURL) and each distinct
// piece is asked once. For the RBAC authorizer this is kube's Covers: "*" asked as a
// verb, group or resource is allowed only by a "*" rule, "*/scale" only by "*" or
// "*/scale", "pods/scale" also by "pods/scale", a piece without resourceName only by a
// rule without resourceNames. The full wildcard is asked first, so that a user with
// every permission passes with one question; past that, a write whose rules break down
// into more than maxEscalationChecks pieces is refused without asking.

// maxEscalationChecks bounds the pieces one write's rules may break down into when they
// are checked one by one: each is an Authorizer question, a SubjectAccessReview round
// trip when delegated. The aggregated admin ClusterRole of kube's bootstrap policy
// (v1.37) breaks down into 426 pieces, edit into 409, view into 180; a write of 1,024
// pieces none of which is held costs 4-8 ms through the RBAC authorizer and 190-260 ms
// through an uncached SubjectAccessReview on a loopback (BenchmarkRBACEscalation).
const maxEscalationChecks = 1024

// systemMasters is the group whose members write RBAC objects unchecked, as kube's
// user.SystemPrivilegedGroup.
const systemMasters = "system:masters"

// fullAuthority are the rules of a user who holds every permission (cluster-admin's).
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// errAggregationRule is kube's refusal of an aggregationRule from a user without every
// permission.
var errAggregationRule = errors.New("must have cluster-admin privileges to use the aggregationRule")

// authorizeRoleWrite is the check of a Role (namespace set) or ClusterRole write with
// rules; aggregated is whether the new or old ClusterRole has an aggregationRule.
func authorizeRoleWrite(ctx context.Context, namespace string, rules []rbacv1.PolicyRule, aggregated bool) error {
	user, _ := authn.UserFrom(ctx)
	if escalationAllowed(user) || roleEscalationAuthorized(ctx, user) {
		return nil
	}
	if err := confirmNoEscalation(ctx, user, namespace, rules, "escalate"); err != nil {
		return err
	}
	if aggregated {
		if err := confirmNoEscalation(ctx, user, namespace, fullAuthority, "escalate"); err != nil {
			var st *scheme.Status
			if errors.As(err, &st) {
				return st
			}
			return errAggregationRule
		}
	}
	return nil
}

// authorizeBindingWrite is the check of a RoleBinding (namespace set) or
// ClusterRoleBinding write referring to ref.
func authorizeBindingWrite(ctx context.Context, namespace string, ref rbacv1.RoleRef) error {
	user, _ := authn.UserFrom(ctx)
	if escalationAllowed(user) || bindingAuthorized(ctx, user, ref, namespace) {
		return nil
	}
	rules, err := roleRefRules(ctx, ref, namespace)
	if err != nil {
		return err
	}
	return confirmNoEscalation(ctx, user, namespace, rules, "bind")
}

// escalationAllowed is kube's EscalationAllowed: a member of system:masters.
func escalationAllowed(user *authn.User) bool {
	return user != nil && slices.Contains(user.Groups, systemMasters)
}

// roleEscalationAuthorized is kube's RoleEscalationAuthorized: the Authorizer allows
// the verb escalate on the role the request writes (named by the request's URL, so
// none on a create by POST).
func roleEscalationAuthorized(ctx context.Context, user *authn.User) bool {
	info, ok := registry.AttributesFrom(ctx)
	if user == nil || !ok || !info.ResourceRequest || info.APIGroup != rbacv1.SchemeGroupVersion.Group ||
		info.Resource != rbacv1.Roles.Resource && info.Resource != rbacv1.ClusterRoles.Resource {
		return false
	}
	// As kube, an Authorizer that fails does not allow; the write is then checked rule by rule.
	allowed, _, _ := authz.Authorize(ctx, authz.Attributes{User: user, Verb: "escalate", APIGroup: info.APIGroup, APIVersion: "*",
		Resource: info.Resource, Name: info.Name, Namespace: info.Namespace, ResourceRequest: true})
	return allowed
}

// bindingAuthorized is kube's BindingAuthorized: the Authorizer allows the verb bind on
// the role ref names, in the binding's namespace ("" for a ClusterRoleBinding).
func bindingAuthorized(ctx context.Context, user *authn.User, ref rbacv1.RoleRef, namespace string) bool {
	a := authz.Attributes{User: user, Verb: "bind", Namespace: namespace, APIGroup: ref.APIGroup, APIVersion: "*", Name: ref.Name, ResourceRequest: true}
	switch ref.Kind {
	case rbacv1.ClusterRoleKind:
		a.Resource = rbacv1.ClusterRoles.Resource
	case rbacv1.RoleKind:
		a.Resource = rbacv1.Roles.Resource
	default:
		return false
	}
	if user == nil {
		return false
	}
	allowed, _, _ := authz.Authorize(ctx, a)
	return allowed
}

// roleRefRules is kube's GetRoleReferenceRules over the stored roles: the rules of the
// Role in namespace or of the ClusterRole ref names, an aggregated ClusterRole's
// gathered from the stored ClusterRoles. A missing role is kube's 404 NotFound, a name
// that cannot be one kube's 400 (registry.Get).
func roleRefRules(ctx context.Context, ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	rules, err := storedRoleRules(ctx, ref, namespace)
	var st *scheme.Status
	if errors.As(err, &st) && st.Reason == scheme.StatusReasonNotFound {
		// kube's registry names the resource of the request in a NotFound, not the
		// one it read: `clusterrolebindings.rbac.authorization.k8s.io "ROLE" not found`.
		if info, ok := registry.AttributesFrom(ctx); ok {
			return nil, apierrors.NewNotFound(scheme.GroupResource{Group: info.APIGroup, Resource: info.Resource}, ref.Name)
		}
	}
	return rules, err
}

// storedRoleRules reads the rules of the role ref names for roleRefRules.
func storedRoleRules(ctx context.Context, ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case rbacv1.RoleKind:
		// A ClusterRoleBinding of a Role (which validation refuses afterwards) reads it
		// without a namespace: kube's 400, as registry.Get answers.
		obj, err := registry.Get(ctx, rbacv1.Roles, namespace, ref.Name)
		if err != nil {
			return nil, err
		}
		role, ok := obj.(*rbacv1.Role)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("role %q is stored as a %T", ref.Name, obj))
		}
		return role.Rules, nil
	case rbacv1.ClusterRoleKind:
		obj, err := registry.Get(ctx, rbacv1.ClusterRoles, "", ref.Name)
		if err != nil {
			return nil, err
		}
		role, ok := obj.(*rbacv1.ClusterRole)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("clusterrole %q is stored as a %T", ref.Name, obj))
		}
		if role.AggregationRule == nil {
			return role.Rules, nil
		}
		all, err := registry.List(ctx, rbacv1.ClusterRoles, "")
		if err != nil {
			return nil, err
		}
		roles := make(map[string]*rbacv1.ClusterRole, len(all))
		for _, obj := range all {
			if r, ok := obj.(*rbacv1.ClusterRole); ok {
				roles[r.Name] = r
			}
		}
		roles[role.Name] = role // the one just read, should the list have missed it
		return authz.AggregatedRules(roles, role.Name), nil
	}
	// As kube's, a plain error, which kube-apiserver answers as a 500 of reason Unknown
	// with the error's text (validation, which refuses the kind, comes after this check).
	return nil, &scheme.Status{TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: scheme.StatusFailure,
		Code: http.StatusInternalServerError, Reason: scheme.StatusReasonUnknown, Message: fmt.Sprintf("unsupported role reference kind: %q", ref.Kind)}
}

// permission is one piece of a broken-down rule: a verb on one resource (of one group,
// with one resourceName or none) or on one non-resource URL.
type permission struct {
	verb, group, resource, name, url string
	named, nonResource               bool
}

// attributes is the question that asks whether user holds p in namespace.
func (p permission) attributes(user *authn.User, namespace string) authz.Attributes {
	if p.nonResource {
		// The namespace too, as kube's rule resolver counts a RoleBinding's rules for
		// any piece of a write in its namespace; kube's RBAC authorizer reads them so.
		return authz.Attributes{User: user, Verb: p.verb, Namespace: namespace, Path: p.url}
	}
	resource, sub, _ := strings.Cut(p.resource, "/")
	return authz.Attributes{User: user, Verb: p.verb, Namespace: namespace, APIGroup: p.group, APIVersion: "*",
		Resource: resource, Subresource: sub, Name: p.name, ResourceRequest: true}
}

// confirmNoEscalation is kube's ConfirmNoEscalation asked of the Handler's Authorizer:
// nil when user holds every permission of rules in namespace, else kube's error listing
// those it does not hold; override is the verb that would have allowed the write.
// Failures to decide are Statuses (500).
func confirmNoEscalation(ctx context.Context, user *authn.User, namespace string, rules []rbacv1.PolicyRule, override string) error {
	if user == nil {
		return errors.New("no user on context")
	}
	resourcePieces, urlPieces := countPieces(rules)
	if resourcePieces+urlPieces == 0 {
		return nil
	}
	ask := func(p permission) (bool, error) {
		allowed, _, err := authz.Authorize(ctx, p.attributes(user, namespace))
		if !allowed && err != nil {
			return false, apierrors.NewInternalError(errors.New("authorization failed"))
		}
		return allowed, nil
	}
	// Every permission at once first: cluster-admin passes with one question whatever
	// the rules, before they are counted. An Authorizer that cannot decide it may still
	// decide the pieces: only a piece it neither allows nor decides fails the write.
	answers := map[permission]bool{}
	all := true
	for _, p := range []struct {
		n int
		p permission
	}{
		{resourcePieces, permission{verb: "*", group: "*", resource: "*"}},
		{urlPieces, permission{verb: "*", url: "*", nonResource: true}},
	} {
		if p.n == 0 || !all {
			continue
		}
		ok, err := ask(p.p)
		if err == nil {
			answers[p.p] = ok // "*" is a piece of its own too
		}
		all = ok
	}
	if all {
		return nil
	}
	if n := resourcePieces + urlPieces; n > maxEscalationChecks {
		return fmt.Errorf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held: the rules break down into %d permissions (verb x apiGroup x resource x resourceName, verb x nonResourceURL), more than the %d checked one by one; only a user who holds every permission, or may %s this role, may grant them",
			user.Name, user.Groups, n, maxEscalationChecks, override)
	}
	var missing []permission
	for _, p := range breakdown(rules) {
		allowed, asked := answers[p]
		if !asked {
			var err error
			if allowed, err = ask(p); err != nil {
				return err
			}
			answers[p] = allowed
		}
		if !allowed {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", user.Name, user.Groups, strings.Join(compactStrings(missing), "\n"))
}

// countPieces returns how many pieces kube's BreakdownRule makes of rules, resource and
// non-resource ones apart, each at most math.MaxInt (saturating: a rule's lists may be
// long enough to overflow their product).
func countPieces(rules []rbacv1.PolicyRule) (resources, urls int) {
	for _, r := range rules {
		names := max(1, len(r.ResourceNames))
		resources = saturatingAdd(resources, saturatingMul(saturatingMul(len(r.APIGroups), len(r.Resources)), saturatingMul(len(r.Verbs), names)))
		urls = saturatingAdd(urls, saturatingMul(len(r.NonResourceURLs), len(r.Verbs)))
	}
	return resources, urls
}

func saturatingMul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}

func saturatingAdd(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

// breakdown is kube's BreakdownRule over rules, in its order: apiGroup, resource, verb,
// resourceName; then nonResourceURL, verb.
func breakdown(rules []rbacv1.PolicyRule) []permission {
	var out []permission
	for _, r := range rules {
		for _, group := range r.APIGroups {
			for _, resource := range r.Resources {
				for _, verb := range r.Verbs {
					if len(r.ResourceNames) == 0 {
						out = append(out, permission{verb: verb, group: group, resource: resource})
					}
					for _, name := range r.ResourceNames {
						out = append(out, permission{verb: verb, group: group, resource: resource, name: name, named: true})
					}
				}
			}
		}
		for _, url := range r.NonResourceURLs {
			for _, verb := range r.Verbs {
				out = append(out, permission{verb: verb, url: url, nonResource: true})
			}
		}
	}
	return out
}

// compactStrings words missing permissions as kube's ConfirmNoEscalation does: the
// resource pieces of one apiGroup, resource and resourceName merged into one rule with
// their verbs in order (CompactRules), each rule as CompactString writes it, sorted,
// each line once.
func compactStrings(missing []permission) []string {
	type simple struct {
		group, resource, name string
		named                 bool
	}
	verbs := map[simple][]string{}
	var lines []string
	for _, p := range missing {
		if p.nonResource {
			lines = append(lines, fmt.Sprintf("{NonResourceURLs:%q, Verbs:%q}", []string{p.url}, []string{p.verb}))
			continue
		}
		k := simple{p.group, p.resource, p.name, p.named}
		verbs[k] = append(verbs[k], p.verb)
	}
	for k, vs := range verbs {
		if k.named {
			lines = append(lines, fmt.Sprintf("{APIGroups:%q, Resources:%q, ResourceNames:%q, Verbs:%q}", []string{k.group}, []string{k.resource}, []string{k.name}, vs))
		} else {
			lines = append(lines, fmt.Sprintf("{APIGroups:%q, Resources:%q, Verbs:%q}", []string{k.group}, []string{k.resource}, vs))
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

// onlyGCFieldsChanged is kube's IsOnlyMutatingGCFields: obj is old but for
// ownerReferences, finalizers, selfLink and managedFields. Objects that differ in a way
// JSON does not show (nil and empty lists) count as changed, which only means checked.
func onlyGCFieldsChanged(obj, old scheme.Object) bool {
	c := scheme.DeepCopy(obj)
	c.SetOwnerReferences(old.GetOwnerReferences())
	c.SetFinalizers(old.GetFinalizers())
	c.SetSelfLink(old.GetSelfLink())
	c.SetManagedFields(old.GetManagedFields())
	a, err := json.Marshal(c)
	if err != nil {
		return false
	}
	b, err := json.Marshal(old)
	return err == nil && string(a) == string(b)
}

// hasAggregationRule is kube's: an aggregationRule with a selector.
func hasAggregationRule(r *rbacv1.ClusterRole) bool {
	return r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}
