package kubecode

import "math/rand/v2"

// PodResize is a Pod written through pods/resize: every case is an update (of a Pod
// created from the pod base manifest) sent to the subresource, kube's side run with
// pod.ResizeStrategy (Kinds), apikit's as a PUT to /resize (UpdateSubresource).
func init() {
	updatesOnly = append(updatesOnly, "PodResize")
	kindBases["PodResize"] = func(r *rand.Rand, o Object, name string, labels Object) {
		o["apiVersion"], o["kind"] = "v1", "Pod"
		o["spec"] = podSpec(r, name)
		o["metadata"].(Object)["labels"] = clone(labels)
	}
	kindMutations = append(kindMutations, resizeMutations)
}

// resizeMutations change what a resize may change (cpu and memory of containers and
// init containers, pod-level resources), what it drops (anything else), and what it
// refuses (a removed limit, containers added, renamed or reordered, a changed QoS
// class, another resource, a request over its limit).
func resizeMutations() []Mutation {
	resize := []string{"PodResize"}
	resources := func(o Object, i int) Object { return at(o, "spec", "containers", i, "resources") }
	return []Mutation{
		// Valid.
		{Name: "resize: more cpu", Kinds: resize, Apply: func(_ *rand.Rand, o Object) {
			resources(o, 0)["requests"].(Object)["cpu"] = "1500m"
			resources(o, 0)["limits"].(Object)["cpu"] = "3"
		}},
		{Name: "resize: more memory", Kinds: resize, Apply: func(_ *rand.Rand, o Object) {
			resources(o, 1)["limits"].(Object)["memory"] = "4Gi"
		}},
		{Name: "resize: less memory requested", Kinds: resize, Apply: func(_ *rand.Rand, o Object) {
			resources(o, 0)["requests"].(Object)["memory"] = "64Mi"
		}},
		{Name: "resize: init container cpu", Kinds: resize, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "initContainers", 0, "resources", "requests")["cpu"] = "100m"
		}},
		{Name: "resize: other changes dropped", Kinds: resize, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "containers", 0)["image"] = "nginx:1.28"
			at(o, "metadata")["labels"] = Object{"changed": "yes"}
			at(o, "spec")["terminationGracePeriodSeconds"] = 5
		}},
		{Name: "resize: pod-level limits added", Kinds: resize, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec")["resources"] = Object{"limits": Object{"cpu": "16", "memory": "32Gi"}}
		}},
		// Invalid.
		{Name: "resize: a limit removed", Kinds: resize, Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			delete(resources(o, 0)["limits"].(Object), "memory")
		}},
		{Name: "resize: a container added", Kinds: resize, Invalid: true, Apply: func(r *rand.Rand, o Object) {
			at(o, "spec")["containers"] = append(containersOf(o), container(r, "added", 7))
		}},
		{Name: "resize: a container renamed", Kinds: resize, Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "containers", 1)["name"] = "renamed"
		}},
		{Name: "resize: containers reordered", Kinds: resize, Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			c := containersOf(o)
			c[0], c[1] = c[1], c[0]
		}},
		{Name: "resize: an init container removed", Kinds: resize, Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec")["initContainers"] = []any{}
		}},
		{Name: "resize: guaranteed", Kinds: resize, Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			same := Object{"cpu": "2", "memory": "2Gi"}
			for _, c := range containersOf(o) {
				c.(Object)["resources"] = Object{"requests": clone(same), "limits": clone(same)}
			}
			at(o, "spec", "initContainers", 0)["resources"] = Object{"requests": clone(same), "limits": clone(same)}
		}},
		{Name: "resize: ephemeral-storage", Kinds: resize, Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			resources(o, 0)["limits"].(Object)["ephemeral-storage"] = "1Gi"
		}},
		{Name: "resize: a request over its limit", Kinds: resize, Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			resources(o, 0)["requests"].(Object)["cpu"] = "3"
		}},
		{Name: "resize: a resize policy", Kinds: resize, Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "containers", 0)["resizePolicy"] = []any{Object{"resourceName": "cpu", "restartPolicy": "RestartContainer"}}
		}},
	}
}
