package authz

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apikit-dev/apikit/authn"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// RBAC: kube's RBAC authorizer semantics over Roles, ClusterRoles, RoleBindings,
// ClusterRoleBindings (package builtin/rbac/v1): verbs, apiGroups,
// resources (incl. "pods/log", "*/scale", "*"), resourceNames, nonResourceURLs
// ("/foo/*" prefix), ServiceAccount subjects (system:serviceaccount:NS:NAME and the
// SA groups), User and Group subjects, RoleBinding to ClusterRole in its namespace,
// ClusterRole aggregationRule. Denial reason as kube's RBAC authorizer.
//
// Like kube's, it never denies outright: a request no rule allows is not allowed, with
// an empty reason, or "RBAC: " and the errors met on the way (a binding to a role that
// does not exist). An allowed request's reason names the binding that allowed it.
// The rules are replaced as a whole (Set, WatchStorage) and read without locks: it is
// safe for concurrent use.
type RBAC struct {
	policy atomic.Pointer[policy]
}

// policy is one immutable set of rules, indexed for Authorize.
type policy struct {
	roles               map[string]*rbacv1.Role        // by namespace/name
	clusterRoles        map[string]*rbacv1.ClusterRole // by name, aggregated rules resolved
	roleBindings        map[string][]*rbacv1.RoleBinding
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
	// allowedBy is the reason of a request a binding's subject is allowed, by subject:
	// worded once when the rules are set rather than on every allowed request.
	allowedBy map[*rbacv1.Subject]string
}

// NewRBAC returns an RBAC authorizer with the rules of objs, *rbacv1.Role,
// *rbacv1.ClusterRole, *rbacv1.RoleBinding and *rbacv1.ClusterRoleBinding values.
func NewRBAC(objs ...scheme.Object) (*RBAC, error) {
	r := &RBAC{}
	if err := r.Set(objs...); err != nil {
		return nil, err
	}
	return r, nil
}

// Set replaces the rules with those of objs (see NewRBAC). On error the rules are
// unchanged. objs are the caller's: Set keeps copies.
func (r *RBAC) Set(objs ...scheme.Object) error {
	p, err := newPolicy(objs)
	if err != nil {
		return err
	}
	r.policy.Store(p)
	return nil
}

func newPolicy(objs []scheme.Object) (*policy, error) {
	p := &policy{
		roles:        map[string]*rbacv1.Role{},
		clusterRoles: map[string]*rbacv1.ClusterRole{},
		roleBindings: map[string][]*rbacv1.RoleBinding{},
	}
	for _, obj := range objs {
		switch o := obj.(type) {
		case *rbacv1.Role:
			if o.Namespace == "" {
				return nil, fmt.Errorf("authz: Role %q has no namespace", o.Name)
			}
			p.roles[o.Namespace+"/"+o.Name] = scheme.DeepCopy(o)
		case *rbacv1.ClusterRole:
			p.clusterRoles[o.Name] = scheme.DeepCopy(o)
		case *rbacv1.RoleBinding:
			if o.Namespace == "" {
				return nil, fmt.Errorf("authz: RoleBinding %q has no namespace", o.Name)
			}
			p.roleBindings[o.Namespace] = append(p.roleBindings[o.Namespace], scheme.DeepCopy(o))
		case *rbacv1.ClusterRoleBinding:
			p.clusterRoleBindings = append(p.clusterRoleBindings, scheme.DeepCopy(o))
		case nil:
			return nil, errors.New("authz: a nil RBAC object")
		default:
			return nil, fmt.Errorf("authz: %T is not a Role, ClusterRole, RoleBinding or ClusterRoleBinding", obj)
		}
	}
	// Bindings are visited in name order, so that the reason of an allowed request
	// does not depend on the order objects came in.
	slices.SortFunc(p.clusterRoleBindings, func(a, b *rbacv1.ClusterRoleBinding) int { return cmp.Compare(a.Name, b.Name) })
	for _, bs := range p.roleBindings {
		slices.SortFunc(bs, func(a, b *rbacv1.RoleBinding) int { return cmp.Compare(a.Name, b.Name) })
	}
	p.aggregate()
	p.allowedBy = map[*rbacv1.Subject]string{}
	for _, b := range p.clusterRoleBindings {
		for i := range b.Subjects {
			s := &b.Subjects[i]
			p.allowedBy[s] = fmt.Sprintf("RBAC: allowed by ClusterRoleBinding %q of %s %q to %s", b.Name, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s, ""))
		}
	}
	for _, bs := range p.roleBindings {
		for _, b := range bs {
			for i := range b.Subjects {
				s := &b.Subjects[i]
				p.allowedBy[s] = fmt.Sprintf("RBAC: allowed by RoleBinding %q of %s %q to %s", b.Name+"/"+b.Namespace, b.RoleRef.Kind, b.RoleRef.Name, describeSubject(s, b.Namespace))
			}
		}
	}
	return p, nil
}

// aggregate gives every ClusterRole with an aggregationRule the rules of the
// ClusterRoles its selectors match (AggregateClusterRoles; the escalation check of
// strategies.RBAC resolves with AggregatedRules, which gives the same rules).
func (p *policy) aggregate() {
	for name, rules := range AggregateClusterRoles(p.clusterRoles) {
		p.clusterRoles[name].Rules = rules
	}
}

// Authorize implements Authorizer with kube's RBAC authorizer's decision and
// reasons: ClusterRoleBindings first, then the RoleBindings of the request's namespace
// (a RoleBinding to a ClusterRole grants its rules in that namespace only).
func (r *RBAC) Authorize(_ context.Context, a Attributes) (bool, string, error) {
	p := r.policy.Load()
	if p == nil || a.User == nil {
		return false, "", nil
	}
	var errs []string
	for _, b := range p.clusterRoleBindings {
		subject, ok := appliesTo(a.User, b.Subjects, "")
		if !ok {
			continue
		}
		rules, err := p.roleRefRules(b.RoleRef, "")
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if rulesAllow(a, rules) {
			return true, p.allowedBy[subject], nil
		}
	}
	if a.Namespace != "" {
		for _, b := range p.roleBindings[a.Namespace] {
			subject, ok := appliesTo(a.User, b.Subjects, a.Namespace)
			if !ok {
				continue
			}
			rules, err := p.roleRefRules(b.RoleRef, a.Namespace)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if rulesAllow(a, rules) {
				return true, p.allowedBy[subject], nil
			}
		}
	}
	if len(errs) == 0 {
		return false, "", nil
	}
	return false, "RBAC: " + aggregate(errs), nil
}

// aggregate words errors as k8s.io/apimachinery's utilerrors.NewAggregate: one error
// as it is, more without repeats in brackets.
func aggregate(errs []string) string {
	if len(errs) == 1 {
		return errs[0]
	}
	var unique []string
	for _, e := range errs {
		if !slices.Contains(unique, e) {
			unique = append(unique, e)
		}
	}
	if len(unique) == 1 {
		return unique[0]
	}
	return "[" + strings.Join(unique, ", ") + "]"
}

// roleRefRules returns the rules a binding in namespace (""for a ClusterRoleBinding)
// refers to, or kube's NotFound wording.
func (p *policy) roleRefRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case rbacv1.RoleKind:
		if role, ok := p.roles[namespace+"/"+ref.Name]; ok && namespace != "" {
			return role.Rules, nil
		}
		return nil, fmt.Errorf("role.rbac.authorization.k8s.io %q not found", ref.Name)
	case rbacv1.ClusterRoleKind:
		if role, ok := p.clusterRoles[ref.Name]; ok {
			return role.Rules, nil
		}
		return nil, fmt.Errorf("clusterrole.rbac.authorization.k8s.io %q not found", ref.Name)
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// appliesTo returns the first subject that is user. A ServiceAccount subject without a
// namespace is in the binding's namespace (none for a ClusterRoleBinding: it then
// matches nobody).
func appliesTo(user *authn.User, subjects []rbacv1.Subject, namespace string) (*rbacv1.Subject, bool) {
	for i := range subjects {
		s := &subjects[i]
		switch s.Kind {
		case rbacv1.UserKind:
			if user.Name == s.Name {
				return s, true
			}
		case rbacv1.GroupKind:
			if slices.Contains(user.Groups, s.Name) {
				return s, true
			}
		case rbacv1.ServiceAccountKind:
			ns := cmp.Or(s.Namespace, namespace)
			sa, ok := strings.CutPrefix(user.Name, "system:serviceaccount:")
			if ok && ns != "" && sa == ns+":"+s.Name {
				return s, true
			}
		}
	}
	return nil, false
}

// describeSubject names a subject in an allowed request's reason, as kube does.
func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+cmp.Or(s.Namespace, bindingNamespace))
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

func rulesAllow(a Attributes, rules []rbacv1.PolicyRule) bool {
	for i := range rules {
		if ruleAllows(a, &rules[i]) {
			return true
		}
	}
	return false
}

// ruleAllows is kube's RuleAllows.
func ruleAllows(a Attributes, rule *rbacv1.PolicyRule) bool {
	if !matchesOrStar(rule.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		for _, u := range rule.NonResourceURLs {
			if u == "*" || u == a.Path || strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimRight(u, "*")) {
				return true
			}
		}
		return false
	}
	return matchesOrStar(rule.APIGroups, a.APIGroup) && resourceMatches(rule.Resources, a.Resource, a.Subresource) &&
		(len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, a.Name))
}

func matchesOrStar(list []string, v string) bool {
	for _, x := range list {
		if x == "*" || x == v {
			return true
		}
	}
	return false
}

// resourceMatches is kube's ResourceMatches: "*", "resource", "resource/subresource"
// or "*/subresource".
func resourceMatches(rules []string, resource, subresource string) bool {
	combined := resource
	if subresource != "" {
		combined += "/" + subresource
	}
	for _, r := range rules {
		if r == "*" || r == combined || subresource != "" && r == "*/"+subresource {
			return true
		}
	}
	return false
}
