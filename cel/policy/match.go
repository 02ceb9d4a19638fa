package policy

import (
	"fmt"

	apikitadmission "github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/scheme"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// errNilSelector is kube's error of a policy or binding whose selector is unset.
const errNilSelector = "a nil %s selector was passed, please ensure selectors are initialized properly"

// request is what the matching of a policy sees of a write.
type request struct {
	operation   string
	namespace   string // the namespace admission reports (a Namespace's own name)
	name        string
	resource    schema.GroupVersionResource
	subresource string
	kind        schema.GroupVersionKind
	// labels of the object and the old object, nil where there is none.
	objectLabels, oldObjectLabels map[string]string
	// namespaceLabels returns the labels of the request's namespace.
	namespaceLabels func() (map[string]string, error)
	// equivalents are the request's resource at its other served versions, with
	// their kinds.
	equivalents []equivalent
}

type equivalent struct {
	resource schema.GroupVersionResource
	kind     schema.GroupVersionKind
}

// matches is kube's policy matching of r against m (a policy's matchConstraints or a
// binding's matchResources): namespaceSelector, objectSelector, excludeResourceRules,
// resourceRules with matchPolicy. It returns the resource and kind the request
// matched as.
func matches(m *admissionregistrationv1.MatchResources, r *request) (bool, schema.GroupVersionResource, schema.GroupVersionKind, error) {
	none := func(err error) (bool, schema.GroupVersionResource, schema.GroupVersionKind, error) {
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, err
	}
	nsMatch, nsErr := matchNamespace(m.NamespaceSelector, r)
	if !nsMatch && nsErr == nil {
		return none(nil)
	}
	objMatch, objErr := matchObject(m.ObjectSelector, r)
	if !objMatch && objErr == nil {
		return none(nil)
	}
	if excluded, _, _ := matchRules(m.ExcludeResourceRules, m.MatchPolicy, r); excluded {
		return none(nil)
	}
	resource, kind := r.resource, r.kind
	if len(m.ResourceRules) > 0 {
		var ok bool
		if ok, resource, kind = matchRules(m.ResourceRules, m.MatchPolicy, r); !ok {
			return none(nil)
		}
	}
	if nsErr != nil {
		return none(nsErr)
	}
	if objErr != nil {
		return none(objErr)
	}
	return true, resource, kind, nil
}

// matchNamespace is kube's namespace matcher.
func matchNamespace(sel *metav1.LabelSelector, r *request) (bool, error) {
	if r.namespace == "" && r.resource.Resource != "namespaces" {
		return true, nil
	}
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, internalError(err)
	}
	if selector.Empty() {
		return true, nil
	}
	var lbls map[string]string
	if r.resource.Resource == "namespaces" && r.subresource == "" && (r.operation == "CREATE" || r.operation == "UPDATE") {
		lbls = r.objectLabels
	} else if lbls, err = r.namespaceLabels(); err != nil {
		return false, err
	}
	return selector.Matches(labels.Set(lbls)), nil
}

// matchObject is kube's object matcher: the object or the old object has the labels.
func matchObject(sel *metav1.LabelSelector, r *request) (bool, error) {
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, internalError(err)
	}
	if selector.Empty() {
		return true, nil
	}
	return (r.objectLabels != nil && selector.Matches(labels.Set(r.objectLabels))) ||
		(r.oldObjectLabels != nil && selector.Matches(labels.Set(r.oldObjectLabels))), nil
}

// matchRules is kube's matchesResourceRules: a rule matching the request, else (with
// matchPolicy Equivalent) one matching the request's resource at another version.
func matchRules(rules []admissionregistrationv1.NamedRuleWithOperations, policy *admissionregistrationv1.MatchPolicyType, r *request) (bool, schema.GroupVersionResource, schema.GroupVersionKind) {
	for _, rule := range rules {
		if ruleMatches(rule.RuleWithOperations, r, r.resource) && nameMatches(rule.ResourceNames, r.name) {
			return true, r.resource, r.kind
		}
	}
	if policy == nil || *policy == admissionregistrationv1.Exact {
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}
	}
	for _, rule := range rules {
		for _, eq := range r.equivalents {
			if ruleMatches(rule.RuleWithOperations, r, eq.resource) && nameMatches(rule.ResourceNames, r.name) {
				return true, eq.resource, eq.kind
			}
		}
	}
	return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}
}

func nameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// ruleMatches is kube's rules matcher of the request r as a request on resource.
func ruleMatches(rule admissionregistrationv1.RuleWithOperations, r *request, resource schema.GroupVersionResource) bool {
	return apikitadmission.RuleMatches(rule.Operations, rule.Scope, rule.APIGroups, rule.APIVersions, rule.Resources, apikitadmission.RuleRequest{
		Operation: r.operation, Namespace: r.namespace, Subresource: r.subresource,
		Resource: scheme.GroupVersionResource{Group: resource.Group, Version: resource.Version, Resource: resource.Resource},
	})
}

// internalError is the text of kube's InternalError Status of err.
func internalError(err error) error {
	return fmt.Errorf("Internal error occurred: %v", err)
}
