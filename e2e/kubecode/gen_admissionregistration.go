package kubecode

import (
	"math/rand/v2"
	"strconv"
)

// webhookConfigurationKinds are the admissionregistration.k8s.io/v1 kinds the generator
// covers.
var webhookConfigurationKinds = []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}

func init() {
	allKinds = append(allKinds, webhookConfigurationKinds...)
	for _, k := range webhookConfigurationKinds {
		kindBases[k] = webhookConfigurationBase
		// kube's strategies allow no unconditional update.
		updateBodies[k] = withStoredResourceVersion
	}
	kindMutations = append(kindMutations, webhookConfigurationMutations)
}

// webhookConfigurationBase is the fully featured manifest of a webhook configuration: a
// webhook behind a service with every field set, and one behind a URL with the fields the
// defaults fill left out.
func webhookConfigurationBase(r *rand.Rand, o Object, name string, _ Object) {
	o["apiVersion"] = "admissionregistration.k8s.io/v1"
	service := Object{
		"name": name + ".policy.example.com",
		"clientConfig": Object{
			"service":  Object{"namespace": "policy-system", "name": "policy-webhook", "path": "/validate/pods", "port": 8443},
			"caBundle": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==",
		},
		"rules": []any{
			Object{"operations": []any{"CREATE", "UPDATE"}, "apiGroups": []any{""}, "apiVersions": []any{"v1"}, "resources": []any{"pods", "pods/ephemeralcontainers"}, "scope": "Namespaced"},
			Object{"operations": []any{"DELETE"}, "apiGroups": []any{"apps"}, "apiVersions": []any{"v1"}, "resources": []any{"deployments"}},
		},
		"failurePolicy":           pick(r, []string{"Fail", "Ignore"}),
		"matchPolicy":             pick(r, []string{"Exact", "Equivalent"}),
		"namespaceSelector":       Object{"matchExpressions": []any{Object{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kube-system"}}}},
		"objectSelector":          Object{"matchLabels": Object{"policy.example.com/enforce": "true"}},
		"sideEffects":             pick(r, []string{"None", "NoneOnDryRun"}),
		"timeoutSeconds":          5,
		"admissionReviewVersions": []any{"v1", "v1beta1"},
		"matchConditions": []any{
			Object{"name": "exclude-leases", "expression": "!(request.resource.group == 'coordination.k8s.io' && request.resource.resource == 'leases')"},
			Object{"name": "not-node-users", "expression": "!('system:nodes' in request.userInfo.groups)"},
		},
	}
	url := Object{
		"name":                    name + ".audit.example.com",
		"clientConfig":            Object{"url": "https://audit.example.com:9443/admit"},
		"rules":                   []any{Object{"operations": []any{"*"}, "apiGroups": []any{"*"}, "apiVersions": []any{"*"}, "resources": []any{"*/*"}}},
		"sideEffects":             "None",
		"admissionReviewVersions": []any{"v1"},
	}
	if o["kind"] == "MutatingWebhookConfiguration" {
		service["reinvocationPolicy"] = pick(r, []string{"Never", "IfNeeded"})
	}
	o["webhooks"] = []any{service, url}
}

// webhookConfigurationMutations are the webhook configurations' mutations, valid and
// invalid. The match conditions' expressions are valid CEL throughout: apikit checks
// their structure and does not compile them (an intended difference the generator
// does not reach).
func webhookConfigurationMutations() []Mutation {
	kinds := webhookConfigurationKinds
	mutating := []string{"MutatingWebhookConfiguration"}
	hook := func(o Object, i int) Object { return at(o, "webhooks", i) }
	first := func(o Object) Object { return hook(o, 0) }
	second := func(o Object) Object { return hook(o, 1) }
	rule := func(o Object) Object { return at(o, "webhooks", 0, "rules", 0) }
	service := func(o Object) Object { return at(o, "webhooks", 0, "clientConfig", "service") }
	valid := func(name string, only []string, apply func(o Object)) Mutation {
		return Mutation{Name: name, Kinds: only, Apply: func(_ *rand.Rand, o Object) { apply(o) }}
	}
	invalid := func(name string, only []string, apply func(o Object)) Mutation {
		return Mutation{Name: name, Invalid: true, Kinds: only, Apply: func(_ *rand.Rand, o Object) { apply(o) }}
	}
	set := func(get func(Object) Object, field string, v any) func(o Object) {
		return func(o Object) { get(o)[field] = v }
	}
	del := func(get func(Object) Object, fields ...string) func(o Object) {
		return func(o Object) {
			for _, f := range fields {
				delete(get(o), f)
			}
		}
	}
	return []Mutation{
		// Valid: the defaults fill what is left out.
		valid("omit webhook defaults", kinds, del(first, "failurePolicy", "matchPolicy", "namespaceSelector", "objectSelector", "timeoutSeconds", "reinvocationPolicy")),
		valid("omit rule scope", kinds, del(rule, "scope")),
		valid("omit service port and path", kinds, del(service, "port", "path")),
		valid("no webhooks", kinds, func(o Object) { delete(o, "webhooks") }),
		valid("empty webhooks", kinds, func(o Object) { o["webhooks"] = []any{} }),
		valid("no rules", kinds, del(first, "rules")),
		valid("no match conditions", kinds, del(first, "matchConditions")),
		// Valid: other values.
		valid("failurePolicy Ignore", kinds, set(first, "failurePolicy", "Ignore")),
		valid("sideEffects NoneOnDryRun", kinds, set(second, "sideEffects", "NoneOnDryRun")),
		valid("timeout 30", kinds, set(first, "timeoutSeconds", 30)),
		valid("timeout 1", kinds, set(second, "timeoutSeconds", 1)),
		valid("reinvocation IfNeeded", mutating, set(first, "reinvocationPolicy", "IfNeeded")),
		valid("v1beta1 review first", kinds, set(first, "admissionReviewVersions", []any{"v1beta1", "v2", "v1"})),
		valid("unknown review version beside v1", kinds, set(second, "admissionReviewVersions", []any{"v2alpha1", "v1"})),
		valid("service path root", kinds, set(service, "path", "/")),
		valid("service path with trailing slash", kinds, set(service, "path", "/validate/pods/")),
		valid("url with path and no port", kinds, set(func(o Object) Object { return at(o, "webhooks", 1, "clientConfig") }, "url", "https://10.0.0.1/hooks/v1")),
		valid("subresource wildcards", kinds, set(rule, "resources", []any{"pods/*", "deployments/status", "*/scale"})),
		valid("wildcard resource with subresources", kinds, set(rule, "resources", []any{"*", "*/status"})),
		valid("cluster scope", kinds, set(rule, "scope", "Cluster")),
		valid("all operations", kinds, set(rule, "operations", []any{"*"})),
		valid("connect operation", kinds, set(rule, "operations", []any{"CONNECT"})),
		valid("core and apps groups", kinds, set(rule, "apiGroups", []any{"", "apps"})),
		valid("many match conditions", kinds, func(o Object) {
			var cs []any
			for i := range 64 {
				cs = append(cs, Object{"name": "c" + strconv.Itoa(i), "expression": "true"})
			}
			first(o)["matchConditions"] = cs
		}),
		valid("qualified match condition name", kinds, set(func(o Object) Object { return at(o, "webhooks", 0, "matchConditions", 0) }, "name", "example.com/exclude-leases")),
		valid("selector Exists", kinds, set(first, "objectSelector", Object{"matchExpressions": []any{Object{"key": "skip", "operator": "DoesNotExist"}}})),
		// Invalid: names.
		invalid("two-segment webhook name", kinds, set(first, "name", "pods.example")),
		invalid("uppercase webhook name", kinds, set(second, "name", "Audit.Example.com")),
		invalid("empty webhook name", kinds, set(first, "name", "")),
		invalid("duplicate webhook names", kinds, func(o Object) { second(o)["name"] = first(o)["name"] }),
		// Invalid: enumerations and ranges.
		invalid("no sideEffects", kinds, del(first, "sideEffects")),
		invalid("sideEffects Some", kinds, set(first, "sideEffects", "Some")),
		invalid("sideEffects Unknown", kinds, set(second, "sideEffects", "Unknown")),
		invalid("sideEffects bogus", kinds, set(first, "sideEffects", "Maybe")),
		invalid("failurePolicy bogus", kinds, set(first, "failurePolicy", "Never")),
		invalid("matchPolicy bogus", kinds, set(second, "matchPolicy", "Loose")),
		invalid("reinvocation bogus", mutating, set(first, "reinvocationPolicy", "Always")),
		invalid("timeout 0", kinds, set(first, "timeoutSeconds", 0)),
		invalid("timeout 31", kinds, set(second, "timeoutSeconds", 31)),
		// Invalid: admissionReviewVersions.
		invalid("no review versions", kinds, del(second, "admissionReviewVersions")),
		invalid("only unknown review version", kinds, set(first, "admissionReviewVersions", []any{"v2"})),
		invalid("duplicate review version", kinds, set(first, "admissionReviewVersions", []any{"v1", "v1"})),
		invalid("review version not a label", kinds, set(second, "admissionReviewVersions", []any{"V1", "v1.beta"})),
		// Invalid: clientConfig.
		invalid("url and service", kinds, set(func(o Object) Object { return at(o, "webhooks", 0, "clientConfig") }, "url", "https://a.example.com")),
		invalid("neither url nor service", kinds, func(o Object) { second(o)["clientConfig"] = Object{} }),
		invalid("http url", kinds, set(func(o Object) Object { return at(o, "webhooks", 1, "clientConfig") }, "url", "http://audit.example.com/admit")),
		invalid("url without host", kinds, set(func(o Object) Object { return at(o, "webhooks", 1, "clientConfig") }, "url", "https:///admit")),
		invalid("url with user, fragment and query", kinds, set(func(o Object) Object { return at(o, "webhooks", 1, "clientConfig") }, "url", "https://u:p@audit.example.com/admit?x=1#frag")),
		invalid("unparseable url", kinds, set(func(o Object) Object { return at(o, "webhooks", 1, "clientConfig") }, "url", "https://audit example.com/")),
		invalid("service without name and namespace", kinds, del(service, "name", "namespace")),
		invalid("service port 0", kinds, set(service, "port", 0)),
		invalid("service port 70000", kinds, set(service, "port", 70000)),
		invalid("service path without slash", kinds, set(service, "path", "validate")),
		invalid("service path double slash", kinds, set(service, "path", "//")),
		invalid("service path empty segment", kinds, set(service, "path", "/a//b")),
		invalid("service path uppercase segment", kinds, set(service, "path", "/Validate/pods")),
		// Invalid: rules.
		invalid("rule without operations", kinds, del(rule, "operations")),
		invalid("rule wildcard with operations", kinds, set(rule, "operations", []any{"*", "CREATE"})),
		invalid("rule PATCH operation", kinds, set(rule, "operations", []any{"CREATE", "PATCH"})),
		invalid("rule without apiGroups", kinds, del(rule, "apiGroups")),
		invalid("rule wildcard with groups", kinds, set(rule, "apiGroups", []any{"*", "apps"})),
		invalid("rule without apiVersions", kinds, del(rule, "apiVersions")),
		invalid("rule wildcard with versions and an empty one", kinds, set(rule, "apiVersions", []any{"v1", "*", ""})),
		invalid("rule without resources", kinds, del(rule, "resources")),
		invalid("rule empty resource", kinds, set(rule, "resources", []any{"pods", ""})),
		invalid("rule double wildcard with others", kinds, set(rule, "resources", []any{"*/*", "pods"})),
		invalid("rule wildcard with plain resources", kinds, set(rule, "resources", []any{"*", "pods"})),
		invalid("rule subresource under wildcard", kinds, set(rule, "resources", []any{"pods/*", "pods/status", "*/scale", "deployments/scale"})),
		invalid("rule scope bogus", kinds, set(rule, "scope", "Global")),
		// Invalid: matchConditions and selectors.
		invalid("match condition without expression", kinds, set(func(o Object) Object { return at(o, "webhooks", 0, "matchConditions", 0) }, "expression", "  ")),
		invalid("match condition without name", kinds, del(func(o Object) Object { return at(o, "webhooks", 0, "matchConditions", 1) }, "name")),
		invalid("match condition bad name", kinds, set(func(o Object) Object { return at(o, "webhooks", 0, "matchConditions", 1) }, "name", "not a name!")),
		invalid("duplicate match condition names", kinds, func(o Object) {
			cs := at(o, "webhooks", 0)["matchConditions"].([]any)
			cs[1].(Object)["name"] = cs[0].(Object)["name"]
		}),
		invalid("65 match conditions", kinds, func(o Object) {
			var cs []any
			for i := range 65 {
				cs = append(cs, Object{"name": "c" + strconv.Itoa(i), "expression": "true"})
			}
			first(o)["matchConditions"] = cs
		}),
		invalid("namespace selector Exists with values", kinds, set(first, "namespaceSelector", Object{"matchExpressions": []any{Object{"key": "env", "operator": "Exists", "values": []any{"prod"}}}})),
		invalid("object selector bad label value", kinds, set(first, "objectSelector", Object{"matchLabels": Object{"policy.example.com/enforce": "not valid!"}})),
	}
}
