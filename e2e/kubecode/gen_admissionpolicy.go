package kubecode

import "math/rand/v2"

// admissionPolicyKinds are the admission policies and bindings the generator covers.
var admissionPolicyKinds = []string{"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}

func init() {
	allKinds = append(allKinds, admissionPolicyKinds...)
	for _, k := range admissionPolicyKinds {
		kindBases[k] = admissionPolicyBase
		// kube's strategies allow no unconditional update.
		updateBodies[k] = withStoredResourceVersion
	}
	kindMutations = append(kindMutations, admissionPolicyMutations)
}

// policyMatch is a policy's matchConstraints or a binding's matchResources: deployments
// and their scale, with selectors, an excluded name and a match policy.
func policyMatch(r *rand.Rand) Object {
	return Object{
		"resourceRules": []any{Object{"operations": []any{"CREATE", "UPDATE"}, "apiGroups": []any{"apps"}, "apiVersions": []any{"v1"},
			"resources": []any{"deployments", "deployments/scale"}, "resourceNames": []any{}}},
		"excludeResourceRules": []any{Object{"operations": []any{"*"}, "apiGroups": []any{"apps"}, "apiVersions": []any{"*"},
			"resources": []any{"deployments"}, "resourceNames": []any{"kube-dns"}}},
		"namespaceSelector": Object{"matchExpressions": []any{Object{"key": "environment", "operator": "In", "values": []any{"prod", "staging"}}}},
		"objectSelector":    Object{"matchLabels": Object{"policy.example.com/enforce": "true"}},
		"matchPolicy":       pick(r, []string{"Exact", "Equivalent"}),
	}
}

// admissionPolicyBase is the fully featured manifest of a policy or binding: a policy
// with params, match conditions, variables and (validating) validations and audit
// annotations or (mutating) an apply configuration and a JSON patch; a binding to it
// with a paramRef, matchResources and (validating) validation actions.
func admissionPolicyBase(r *rand.Rand, o Object, name string, _ Object) {
	o["apiVersion"] = "admissionregistration.k8s.io/v1"
	common := Object{
		"failurePolicy":    pick(r, []string{"Fail", "Ignore"}),
		"paramKind":        Object{"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit"},
		"matchConstraints": policyMatch(r),
		"matchConditions":  []any{Object{"name": "not-system", "expression": "!request.userInfo.username.startsWith('system:')"}},
		"variables":        []any{Object{"name": "replicas", "expression": "object.spec.replicas"}},
	}
	switch o["kind"] {
	case "ValidatingAdmissionPolicy":
		common["validations"] = []any{Object{"expression": "variables.replicas <= params.maxReplicas", "message": "too many replicas",
			"messageExpression": "'at most ' + string(params.maxReplicas) + ' replicas'", "reason": "Invalid"}}
		common["auditAnnotations"] = []any{Object{"key": "high-replica-count", "valueExpression": "'Deployment spec.replicas set to ' + string(variables.replicas)"}}
		o["spec"] = common
	case "MutatingAdmissionPolicy":
		common["mutations"] = []any{
			Object{"patchType": "ApplyConfiguration", "applyConfiguration": Object{"expression": "Object{metadata: Object.metadata{labels: {'policy.example.com/mutated': 'true'}}}"}},
			Object{"patchType": "JSONPatch", "jsonPatch": Object{"expression": "[JSONPatch{op: 'add', path: '/metadata/annotations/example.com~1seen', value: 'yes'}]"}},
		}
		common["reinvocationPolicy"] = pick(r, []string{"Never", "IfNeeded"})
		o["spec"] = common
	default: // the bindings
		spec := Object{
			"policyName":     name + "-policy",
			"paramRef":       Object{"name": "limit", "namespace": "policy-params", "parameterNotFoundAction": pick(r, []string{"Deny", "Allow"})},
			"matchResources": policyMatch(r),
		}
		if o["kind"] == "ValidatingAdmissionPolicyBinding" {
			spec["validationActions"] = pick(r, [][]any{{"Deny"}, {"Warn", "Audit"}, {"Deny", "Audit"}})
		}
		o["spec"] = spec
	}
}

// admissionPolicyMutations are the policies' and bindings' mutations, valid and invalid.
// Every CEL expression is valid: apikit checks their presence and does not compile them.
func admissionPolicyMutations() []Mutation {
	policies := []string{"ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"}
	bindings := []string{"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding"}
	all := admissionPolicyKinds
	vap, vapb := []string{"ValidatingAdmissionPolicy"}, []string{"ValidatingAdmissionPolicyBinding"}
	mapol := []string{"MutatingAdmissionPolicy"}
	spec := func(o Object) Object { return at(o, "spec") }
	match := func(o Object) Object {
		if m, ok := spec(o)["matchConstraints"].(Object); ok {
			return m
		}
		return at(o, "spec", "matchResources")
	}
	rule := func(o Object) Object { return match(o)["resourceRules"].([]any)[0].(Object) }
	ref := func(o Object) Object { return at(o, "spec", "paramRef") }
	validation0 := func(o Object) Object { return at(o, "spec", "validations", 0) }
	mutation := func(i int) func(o Object) Object {
		return func(o Object) Object { return at(o, "spec", "mutations", i) }
	}
	m := func(name string, invalid bool, kinds []string, apply func(o Object)) Mutation {
		return Mutation{Name: name, Invalid: invalid, Kinds: kinds, Apply: func(_ *rand.Rand, o Object) { apply(o) }}
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
		// Valid: defaults and other values.
		m("omit failurePolicy", false, policies, del(spec, "failurePolicy")),
		m("omit match defaults", false, all, del(match, "matchPolicy", "namespaceSelector", "objectSelector")),
		m("no paramKind", false, policies, func(o Object) {
			delete(spec(o), "paramKind")
			spec(o)["matchConditions"] = []any{Object{"name": "always", "expression": "true"}}
			if v, ok := spec(o)["validations"].([]any); ok {
				v[0].(Object)["expression"] = "variables.replicas <= 5"
				delete(v[0].(Object), "messageExpression")
				spec(o)["auditAnnotations"] = []any{Object{"key": "seen", "valueExpression": "'yes'"}}
			}
		}),
		m("no variables and match conditions", false, mapol, del(spec, "variables", "matchConditions")),
		{Name: "validations or audit annotations only", Kinds: vap, Apply: func(r *rand.Rand, o Object) {
			delete(spec(o), pick(r, []string{"validations", "auditAnnotations"}))
		}},
		m("no paramRef", false, bindings, del(spec, "paramRef")),
		m("paramRef selector", false, bindings, func(o Object) {
			delete(ref(o), "name")
			ref(o)["selector"] = Object{"matchLabels": Object{"tier": "gold"}}
		}),
		m("no matchResources", false, bindings, del(spec, "matchResources")),
		m("binding actions Warn", false, vapb, set(spec, "validationActions", []any{"Warn"})),
		m("reason Forbidden", false, vap, set(validation0, "reason", "Forbidden")),
		m("cluster-scoped paramKind group", false, policies, set(spec, "paramKind", Object{"apiVersion": "v1", "kind": "ConfigMap"})),
		m("all operations", false, all, set(rule, "operations", []any{"*"})),
		// Invalid: policies.
		m("failurePolicy bogus", true, policies, set(spec, "failurePolicy", "Never")),
		m("no matchConstraints", true, policies, del(spec, "matchConstraints")),
		m("no resource rules", true, policies, del(match, "resourceRules")),
		m("paramKind without kind", true, policies, del(func(o Object) Object { return at(o, "spec", "paramKind") }, "kind")),
		m("paramKind bad apiVersion", true, policies, set(func(o Object) Object { return at(o, "spec", "paramKind") }, "apiVersion", "Rules.example.com/v1/x")),
		m("paramKind empty version", true, policies, set(func(o Object) Object { return at(o, "spec", "paramKind") }, "apiVersion", "rules.example.com/")),
		m("paramKind bad kind", true, policies, set(func(o Object) Object { return at(o, "spec", "paramKind") }, "kind", "Replica_Limit")),
		// The variable an expression uses stays valid: kube's compiler would refuse its users too.
		m("variable reserved name", true, policies, func(o Object) {
			spec(o)["variables"] = append(spec(o)["variables"].([]any), Object{"name": "while", "expression": "1"})
		}),
		m("variable without expression", true, policies, func(o Object) {
			spec(o)["variables"] = append(spec(o)["variables"].([]any), Object{"name": "unused", "expression": " "})
		}),
		m("match condition without name", true, policies, del(func(o Object) Object { return at(o, "spec", "matchConditions", 0) }, "name")),
		m("no validations nor audit annotations", true, vap, del(spec, "validations", "auditAnnotations")),
		m("validation without expression", true, vap, set(validation0, "expression", "")),
		m("blank message", true, vap, set(validation0, "message", "  ")),
		m("message with line break", true, vap, set(validation0, "message", "too\nmany")),
		m("blank messageExpression", true, vap, set(validation0, "messageExpression", " ")),
		m("reason bogus", true, vap, set(validation0, "reason", "Conflict")),
		m("duplicate audit key", true, vap, func(o Object) {
			a := spec(o)["auditAnnotations"].([]any)
			spec(o)["auditAnnotations"] = append(a, cloneAny(a[0]))
		}),
		m("audit key not qualified", true, vap, set(func(o Object) Object { return at(o, "spec", "auditAnnotations", 0) }, "key", "bad key!")),
		m("audit value blank", true, vap, set(func(o Object) Object { return at(o, "spec", "auditAnnotations", 0) }, "valueExpression", "")),
		m("no mutations", true, mapol, del(spec, "mutations")),
		m("no reinvocationPolicy", true, mapol, del(spec, "reinvocationPolicy")),
		m("reinvocationPolicy bogus", true, mapol, set(spec, "reinvocationPolicy", "Always")),
		m("mutation without patchType", true, mapol, del(mutation(0), "patchType")),
		m("mutation patchType bogus", true, mapol, set(mutation(0), "patchType", "MergePatch")),
		m("apply configuration missing", true, mapol, del(mutation(0), "applyConfiguration")),
		m("json patch beside apply configuration", true, mapol, func(o Object) { mutation(0)(o)["jsonPatch"] = cloneAny(mutation(1)(o)["jsonPatch"]) }),
		m("json patch missing", true, mapol, del(mutation(1), "jsonPatch")),
		m("json patch blank", true, mapol, set(func(o Object) Object { return at(o, "spec", "mutations", 1, "jsonPatch") }, "expression", "")),
		m("mutating DELETE rule", true, []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}, set(rule, "operations", []any{"CREATE", "DELETE"})),
		// Invalid: match resources, both.
		m("matchPolicy bogus", true, all, set(match, "matchPolicy", "Loose")),
		m("namespace selector bad operator", true, all, set(match, "namespaceSelector", Object{"matchExpressions": []any{Object{"key": "a", "operator": "Exists", "values": []any{"x"}}}})),
		m("object selector bad label value", true, all, set(match, "objectSelector", Object{"matchLabels": Object{"a": "not valid!"}})),
		m("rule without operations", true, all, del(rule, "operations")),
		m("rule wildcard with groups", true, all, set(rule, "apiGroups", []any{"*", "apps"})),
		m("rule double wildcard with others", true, all, set(rule, "resources", []any{"*/*", "pods"})),
		m("rule scope bogus", true, all, set(rule, "scope", "Global")),
		m("resource name not a segment", true, all, set(rule, "resourceNames", []any{"a/b", ".."})),
		m("duplicate resource names", true, all, set(rule, "resourceNames", []any{"web", "web"})),
		// Invalid: bindings.
		m("no policyName", true, bindings, del(spec, "policyName")),
		m("policyName not a subdomain", true, bindings, set(spec, "policyName", "Replica_Policy")),
		m("paramRef name and selector", true, bindings, set(ref, "selector", Object{})),
		m("paramRef neither", true, bindings, del(ref, "name")),
		m("paramRef bad name", true, bindings, set(ref, "name", "a/b")),
		m("no parameterNotFoundAction", true, bindings, del(ref, "parameterNotFoundAction")),
		m("parameterNotFoundAction bogus", true, bindings, set(ref, "parameterNotFoundAction", "Ignore")),
		m("no validationActions", true, vapb, del(spec, "validationActions")),
		m("validationActions Deny and Warn", true, vapb, set(spec, "validationActions", []any{"Deny", "Warn"})),
		m("validationActions duplicate and bogus", true, vapb, set(spec, "validationActions", []any{"Audit", "Audit", "Block"})),
	}
}
