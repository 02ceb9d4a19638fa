package admission

import (
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// RuleRequest is what an admission rule is matched against: a request's operation,
// its namespace as admission reports it (a Namespace's own name for a Namespace), the
// resource at the version being matched and the subresource.
type RuleRequest struct {
	Operation   string
	Namespace   string
	Resource    scheme.GroupVersionResource
	Subresource string
}

// RuleMatches is kube's rules.Matcher, shared by the admission webhooks and the
// admission policies (package cel/policy, whose rules are k8s.io/api's types, hence
// the type parameters): the operations ("*" is all), apiGroups and apiVersions ("*"
// is all), resources ("name/sub", with "*" on either side) and scope ("Namespaced"
// excludes cluster-scoped requests and Namespaces, "Cluster" namespaced requests; nil
// and "*" are all) of a RuleWithOperations.
func RuleMatches[Op, Scope ~string](operations []Op, scope *Scope, apiGroups, apiVersions, resources []string, r RuleRequest) bool {
	if scope != nil {
		isNamespace := r.Resource.Group == "" && r.Resource.Version == "v1" && r.Resource.Resource == "namespaces"
		switch string(*scope) {
		case "*":
		case "Namespaced":
			if isNamespace || r.Namespace == "" {
				return false
			}
		case "Cluster":
			if !isNamespace && r.Namespace != "" {
				return false
			}
		default:
			return false
		}
	}
	opMatch := false
	for _, op := range operations {
		if op == "*" || string(op) == r.Operation {
			opMatch = true
			break
		}
	}
	if !opMatch || !exactOrWildcard(apiGroups, r.Resource.Group) || !exactOrWildcard(apiVersions, r.Resource.Version) {
		return false
	}
	for _, res := range resources {
		name, sub, _ := strings.Cut(res, "/")
		if (name == "*" || name == r.Resource.Resource) && (sub == "*" || sub == r.Subresource) {
			return true
		}
	}
	return false
}

func exactOrWildcard(items []string, requested string) bool {
	for _, item := range items {
		if item == "*" || item == requested {
			return true
		}
	}
	return false
}
