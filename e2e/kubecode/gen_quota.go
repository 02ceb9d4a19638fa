package kubecode

import "math/rand/v2"

// ReplicationControllers: a base with a selector map and a pod template, the generic
// pod-spec and metadata mutations, and those of an RC's own rules (its selector is a
// map, defaulted from the template's labels).
func init() {
	kindBases["ReplicationController"] = func(r *rand.Rand, o Object, name string, labels Object) {
		o["apiVersion"] = "v1"
		o["spec"] = Object{
			"replicas":        2,
			"minReadySeconds": 3,
			"selector":        clone(labels),
			"template":        PodTemplate(r, name, labels),
		}
	}
	withPodSpec = append(withPodSpec, "ReplicationController")
	withReplicas = append(withReplicas, "ReplicationController")
	allKinds = append(allKinds, "ReplicationController")
	rc := []string{"ReplicationController"}
	spec := func(o Object) Object { return at(o, "spec") }
	kindMutations = append(kindMutations, func() []Mutation {
		return []Mutation{
			{Name: "rc: omit selector (defaulted from the template labels)", Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				delete(spec(o), "selector")
			}},
			{Name: "rc: omit object labels (defaulted from the template labels)", Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				delete(at(o, "metadata"), "labels")
			}},
			{Name: "rc: selector of one label", Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				spec(o)["selector"] = Object{"app": at(o, "metadata")["name"]}
			}},
			{Name: "rc: selector does not match template labels", Invalid: true, Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				spec(o)["selector"] = Object{"app": "someone-else"}
			}},
			{Name: "rc: no selector and no template labels", Invalid: true, Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				delete(spec(o), "selector")
				delete(at(o, "spec", "template", "metadata"), "labels")
			}},
			{Name: "rc: no template", Invalid: true, Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				delete(spec(o), "template")
			}},
			{Name: "rc: restartPolicy not Always", Invalid: true, Kinds: rc, Apply: func(r *rand.Rand, o Object) {
				podSpecOf(o)["restartPolicy"] = pick(r, []string{"OnFailure", "Never"})
			}},
			{Name: "rc: activeDeadlineSeconds", Invalid: true, Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				podSpecOf(o)["activeDeadlineSeconds"] = 30
			}},
			{Name: "rc: negative minReadySeconds", Invalid: true, Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				spec(o)["minReadySeconds"] = -5
			}},
			{Name: "rc: status is reset", Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				o["status"] = Object{"replicas": 4, "readyReplicas": 2, "observedGeneration": 7}
			}},
			{Name: "rc: non-convertible annotation", Kinds: rc, Apply: func(_ *rand.Rand, o Object) {
				at(o, "metadata", "annotations")["non-convertible.kubernetes.io/spec.foo"] = "x"
			}},
		}
	})
}
