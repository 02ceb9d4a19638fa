package kubecode

import "math/rand/v2"

// The PodDisruptionBudget's base manifest and mutations: one of minAvailable and
// maxUnavailable as a number or a percentage, a selector of labels or expressions,
// sometimes an unhealthyPodEvictionPolicy and a status (which kube drops).
// withStoredResourceVersion is the update body of a kind whose kube strategy allows no
// unconditional update: a client's update carries the resourceVersion it read.
func withStoredResourceVersion(stored, body Object) Object {
	if m, ok := stored["metadata"].(Object); ok {
		if bm, ok := body["metadata"].(Object); ok {
			bm["resourceVersion"] = m["resourceVersion"]
		}
	}
	return body
}

func init() {
	// kube's PDB strategy allows no unconditional update: a client's update carries the
	// resourceVersion it read.
	pathSegmentNamed = append(pathSegmentNamed, "PodDisruptionBudget")
	updateBodies["PodDisruptionBudget"] = withStoredResourceVersion
	kindBases["PodDisruptionBudget"] = func(r *rand.Rand, o Object, name string, labels Object) {
		o["apiVersion"] = "policy/v1"
		spec := Object{"selector": Object{"matchLabels": clone(labels)}}
		switch r.IntN(4) {
		case 0:
			spec["minAvailable"] = 1 + r.IntN(3)
		case 1:
			spec["minAvailable"] = pick(r, []string{"50%", "100%", "0%"})
		case 2:
			spec["maxUnavailable"] = r.IntN(3)
		default:
			spec["maxUnavailable"] = "25%"
		}
		if r.IntN(3) == 0 {
			spec["unhealthyPodEvictionPolicy"] = pick(r, []string{"IfHealthyBudget", "AlwaysAllow"})
		}
		o["spec"] = spec
	}
	allKinds = append(allKinds, "PodDisruptionBudget")
	kindMutations = append(kindMutations, pdbMutations)
}

func pdbMutations() []Mutation {
	pdb := []string{"PodDisruptionBudget"}
	spec := func(o Object) Object { return at(o, "spec") }
	return []Mutation{
		// Valid.
		{Name: "pdb: no selector", Kinds: pdb, Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "selector") }},
		{Name: "pdb: empty selector", Kinds: pdb, Apply: func(_ *rand.Rand, o Object) { spec(o)["selector"] = Object{} }},
		{Name: "pdb: expression selector", Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchExpressions": []any{Object{"key": "app", "operator": "Exists"}, Object{"key": "tier", "operator": "NotIn", "values": []any{"db"}}}}
		}},
		{Name: "pdb: v1beta1 label in a selector", Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchLabels": Object{"app": "x"}, "matchExpressions": []any{
				Object{"key": "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match", "operator": "Exists"}}}
		}},
		{Name: "pdb: the v1beta1 match-none selector", Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchExpressions": []any{Object{"key": "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match", "operator": "Exists"}}}
		}},
		{Name: "pdb: a status on the request", Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			o["status"] = Object{"disruptionsAllowed": 3, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2}
		}},
		{Name: "pdb: other minAvailable", Kinds: pdb, Apply: func(r *rand.Rand, o Object) {
			delete(spec(o), "maxUnavailable")
			spec(o)["minAvailable"] = pick(r, []any{0, 5, "10%", "100%"})
		}},
		// Invalid.
		{Name: "pdb: both bounds", Invalid: true, Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["minAvailable"], spec(o)["maxUnavailable"] = 1, "10%"
		}},
		{Name: "pdb: negative minAvailable", Invalid: true, Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "maxUnavailable")
			spec(o)["minAvailable"] = -2
		}},
		{Name: "pdb: percentage over 100", Invalid: true, Kinds: pdb, Apply: func(r *rand.Rand, o Object) {
			delete(spec(o), "minAvailable")
			spec(o)["maxUnavailable"] = pick(r, []string{"101%", "250%"})
		}},
		{Name: "pdb: not a percentage", Invalid: true, Kinds: pdb, Apply: func(r *rand.Rand, o Object) {
			delete(spec(o), "maxUnavailable")
			spec(o)["minAvailable"] = pick(r, []string{"half", "10", "%"})
		}},
		{Name: "pdb: bad selector operator", Invalid: true, Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchExpressions": []any{Object{"key": "app", "operator": "Near", "values": []any{"x"}}}}
		}},
		{Name: "pdb: bad selector label", Invalid: true, Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchLabels": Object{"bad key!": "v", "app": "-bad-"}}
		}},
		{Name: "pdb: In without values", Invalid: true, Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchExpressions": []any{Object{"key": "app", "operator": "In"}}}
		}},
		{Name: "pdb: unknown eviction policy", Invalid: true, Kinds: pdb, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["unhealthyPodEvictionPolicy"] = "Sometimes"
		}},
	}
}
