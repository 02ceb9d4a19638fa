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

// ResourceQuotas and LimitRanges: bases with every kind of hard limit and every limit
// type, the metadata mutations, and mutations of names, quantities, scopes, selectors
// and the min <= default request <= default <= max rules.
func init() {
	kindBases["ResourceQuota"] = func(r *rand.Rand, o Object, _ string, _ Object) {
		o["apiVersion"] = "v1"
		o["spec"] = Object{"hard": Object{
			"requests.cpu": "2", "requests.memory": "4Gi", "limits.cpu": "4", "limits.memory": "8Gi",
			"pods": "10", "services": "5", "configmaps": "20", "secrets": "20", "persistentvolumeclaims": "4",
			"requests.storage": "100Gi", "services.nodeports": "2", "count/deployments.apps": "3",
			"gold.storageclass.storage.k8s.io/requests.storage": "50Gi", "requests.example.com/gpu": "2",
		}}
	}
	kindBases["LimitRange"] = func(r *rand.Rand, o Object, _ string, _ Object) {
		o["apiVersion"] = "v1"
		o["spec"] = Object{"limits": []any{
			Object{"type": "Container", "max": Object{"cpu": "2", "memory": "1Gi"}, "min": Object{"cpu": "100m", "memory": "64Mi"},
				"default": Object{"cpu": "500m", "memory": "512Mi"}, "defaultRequest": Object{"cpu": "200m", "memory": "256Mi"},
				"maxLimitRequestRatio": Object{"cpu": "10"}},
			Object{"type": "Pod", "max": Object{"cpu": "4", "memory": "2Gi"}},
			Object{"type": "PersistentVolumeClaim", "min": Object{"storage": "1Gi"}, "max": Object{"storage": "10Gi"}},
		}}
	}
	allKinds = append(allKinds, "ResourceQuota", "LimitRange")
	rq, lr := []string{"ResourceQuota"}, []string{"LimitRange"}
	hard := func(o Object) Object { return at(o, "spec", "hard") }
	item := func(o Object, i int) Object { return at(o, "spec", "limits", i) }
	kindMutations = append(kindMutations, func() []Mutation {
		return []Mutation{
			// ResourceQuota, valid.
			{Name: "rq: quantities to round", Kinds: rq, Apply: func(_ *rand.Rand, o Object) {
				hard(o)["requests.cpu"] = "0.0001"
				hard(o)["limits.memory"] = "1.5Gi"
			}},
			{Name: "rq: bare cpu and memory", Kinds: rq, Apply: func(_ *rand.Rand, o Object) {
				hard(o)["cpu"] = "1"
				hard(o)["memory"] = "1Gi"
			}},
			{Name: "rq: request above limit (warning)", Kinds: rq, Apply: func(_ *rand.Rand, o Object) { hard(o)["requests.cpu"] = "8" }},
			{Name: "rq: NotBestEffort scope", ImmutableIn: rq, Kinds: rq, Apply: func(_ *rand.Rand, o Object) {
				at(o, "spec")["hard"] = Object{"pods": "3", "requests.cpu": "1"}
				at(o, "spec")["scopes"] = []any{"NotBestEffort", "Terminating"}
			}},
			{Name: "rq: priority class selector", Kinds: rq, Apply: func(r *rand.Rand, o Object) {
				at(o, "spec")["hard"] = Object{"pods": "3", "limits.memory": "1Gi"}
				at(o, "spec")["scopeSelector"] = Object{"matchExpressions": []any{Object{"scopeName": "PriorityClass", "operator": pick(r, []string{"In", "NotIn"}), "values": []any{"high"}}}}
			}},
			{Name: "rq: status is reset", Kinds: rq, Apply: func(_ *rand.Rand, o Object) {
				o["status"] = Object{"hard": Object{"pods": "10"}, "used": Object{"pods": "1"}}
			}},
			// Unscoped: a scoped quota tracks only the pod resources its scopes support.
			{Name: "rq: hugepages", Kinds: rq, Apply: func(_ *rand.Rand, o Object) {
				delete(at(o, "spec"), "scopes")
				delete(at(o, "spec"), "scopeSelector")
				hard(o)["requests.hugepages-2Mi"] = "1Gi"
			}},
			// ResourceQuota, invalid.
			{Name: "rq: unknown bare resource", Invalid: true, Kinds: rq, Apply: func(r *rand.Rand, o Object) {
				hard(o)[pick(r, []string{"gpus", "storage", "requests.gpus"})] = "1"
			}},
			{Name: "rq: bad resource name", Invalid: true, Kinds: rq, Apply: func(_ *rand.Rand, o Object) { hard(o)["bad name!"] = "1" }},
			{Name: "rq: negative quantity", Invalid: true, Kinds: rq, Apply: func(_ *rand.Rand, o Object) { hard(o)["requests.memory"] = "-1Gi" }},
			{Name: "rq: fractional count", Invalid: true, Kinds: rq, Apply: func(r *rand.Rand, o Object) {
				hard(o)[pick(r, []string{"pods", "services", "requests.example.com/gpu"})] = "1500m"
			}},
			{Name: "rq: unsupported scope", Invalid: true, Kinds: rq, Apply: func(_ *rand.Rand, o Object) {
				at(o, "spec")["scopes"] = []any{"Sometimes"}
			}},
			{Name: "rq: scope not for the resources", Invalid: true, Kinds: rq, Apply: func(r *rand.Rand, o Object) {
				at(o, "spec")["scopes"] = []any{pick(r, []string{"BestEffort", "Terminating", "VolumeAttributesClass"})}
			}},
			{Name: "rq: conflicting scopes", Invalid: true, Kinds: rq, Apply: func(r *rand.Rand, o Object) {
				at(o, "spec")["hard"] = Object{"pods": "3"}
				at(o, "spec")["scopes"] = pick(r, [][]any{{"BestEffort", "NotBestEffort"}, {"Terminating", "NotTerminating", "BestEffort", "NotBestEffort"}})
			}},
			{Name: "rq: bad scope selector", Invalid: true, Kinds: rq, Apply: func(r *rand.Rand, o Object) {
				at(o, "spec")["hard"] = Object{"pods": "3"}
				at(o, "spec")["scopeSelector"] = Object{"matchExpressions": pick(r, [][]any{
					{Object{"scopeName": "BestEffort", "operator": "In", "values": []any{"x"}}},
					{Object{"scopeName": "PriorityClass", "operator": "In"}},
					{Object{"scopeName": "PriorityClass", "operator": "Exists", "values": []any{"x"}}},
					{Object{"scopeName": "PriorityClass", "operator": "Equals", "values": []any{"x"}}},
					{Object{"scopeName": "Nope", "operator": "Exists"}},
					{Object{"scopeName": "Terminating", "operator": "Exists"}, Object{"scopeName": "NotTerminating", "operator": "Exists"}},
				})}
			}},
			// LimitRange, valid.
			{Name: "lr: container defaults from max and min", Kinds: lr, Apply: func(r *rand.Rand, o Object) {
				c := item(o, 0)
				delete(c, "default")
				delete(c, "defaultRequest")
				if r.IntN(2) == 0 {
					delete(c, "max")
				}
			}},
			{Name: "lr: container default request from the default", Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				c := item(o, 0)
				delete(c, "defaultRequest")
				delete(c, "min")
			}},
			{Name: "lr: only a pod item", Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				at(o, "spec")["limits"] = []any{Object{"type": "Pod", "min": Object{"cpu": "10m"}}}
			}},
			{Name: "lr: quantities to round", Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				item(o, 1)["max"] = Object{"cpu": "3.0001", "memory": "2.5Gi"}
			}},
			{Name: "lr: extended resource equal default and request", Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				item(o, 0)["default"].(Object)["example.com/gpu"] = "1"
				item(o, 0)["defaultRequest"].(Object)["example.com/gpu"] = "1"
			}},
			// LimitRange, invalid.
			{Name: "lr: min above max", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) { item(o, 0)["min"].(Object)["cpu"] = "3" }},
			{Name: "lr: default above max", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) { item(o, 0)["default"].(Object)["memory"] = "2Gi" }},
			{Name: "lr: default request above default", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				item(o, 0)["defaultRequest"].(Object)["cpu"] = "600m"
			}},
			{Name: "lr: default request below min", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				item(o, 0)["defaultRequest"].(Object)["memory"] = "32Mi"
			}},
			{Name: "lr: ratio below 1", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) { item(o, 0)["maxLimitRequestRatio"] = Object{"cpu": "500m"} }},
			{Name: "lr: ratio above max/min", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) { item(o, 0)["maxLimitRequestRatio"] = Object{"cpu": "30"} }},
			{Name: "lr: defaults on a pod item", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				item(o, 1)["default"] = Object{"cpu": "1"}
				item(o, 1)["defaultRequest"] = Object{"cpu": "1"}
			}},
			{Name: "lr: claim item without storage bounds", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				at(o, "spec")["limits"].([]any)[2] = Object{"type": "PersistentVolumeClaim", "max": Object{"cpu": "1"}}
			}},
			{Name: "lr: duplicate type", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				item(o, 2)["type"] = "Pod"
			}},
			{Name: "lr: bad type", Invalid: true, Kinds: lr, Apply: func(r *rand.Rand, o Object) {
				item(o, 1)["type"] = pick(r, []string{"Node", "bad type!", ""})
			}},
			{Name: "lr: non-container resource on a container item", Invalid: true, Kinds: lr, Apply: func(r *rand.Rand, o Object) {
				item(o, 0)["max"].(Object)[pick(r, []string{"storage", "pods", "example.com/gpu", "foo.kubernetes.io/bar"})] = "5"
			}},
			{Name: "lr: extended resource default and request differ", Invalid: true, Kinds: lr, Apply: func(_ *rand.Rand, o Object) {
				item(o, 0)["default"].(Object)["example.com/gpu"] = "2"
				item(o, 0)["defaultRequest"].(Object)["example.com/gpu"] = "1"
			}},
		}
	})
}
