package kubecode

import (
	"math/rand/v2"
	"strings"
)

// Mutations are every mutation the generator combines, valid ones (other valid values,
// fields left out so that defaults fill them) and invalid ones (what kube refuses).
func Mutations() []Mutation {
	only := func(kinds ...string) []string { return kinds }
	spec := func(o Object) Object { return at(o, "spec") }
	all := []Mutation{
		// Valid: fields left out, for the defaults.
		{Name: "omit replicas", Kinds: withReplicas, Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "replicas") }},
		{Name: "omit strategy", Kinds: only("Deployment"), Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "strategy") }},
		{Name: "omit rollingUpdate", Kinds: only("Deployment"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "strategy")["rollingUpdate"] = Object{}
		}},
		{Name: "omit updateStrategy", Kinds: only("StatefulSet", "DaemonSet"), Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "updateStrategy")
		}},
		{Name: "omit revisionHistoryLimit and progressDeadlineSeconds", Kinds: withRevHistory, Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "revisionHistoryLimit")
			delete(spec(o), "progressDeadlineSeconds")
		}},
		{Name: "omit statefulset policies", ImmutableIn: only("StatefulSet"), Kinds: only("StatefulSet"), Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "podManagementPolicy")
			delete(spec(o), "persistentVolumeClaimRetentionPolicy")
			delete(at(o, "spec", "volumeClaimTemplates", 0, "spec"), "storageClassName")
		}},
		{Name: "omit pod spec defaults", InvalidIn: []string{"Job", "CronJob"}, Apply: func(_ *rand.Rand, o Object) {
			ps := podSpecOf(o)
			for _, k := range []string{"terminationGracePeriodSeconds", "securityContext", "restartPolicy", "dnsPolicy", "schedulerName"} {
				delete(ps, k)
			}
		}},
		{Name: "omit container defaults", Apply: func(_ *rand.Rand, o Object) {
			for _, c := range containersOf(o) {
				c := c.(Object)
				delete(c, "imagePullPolicy")
				delete(c, "terminationMessagePath")
				delete(c, "terminationMessagePolicy")
				for _, p := range c["ports"].([]any) {
					delete(p.(Object), "protocol")
				}
			}
		}},
		{Name: "omit probe fields", Apply: func(_ *rand.Rand, o Object) {
			c := firstContainer(o)
			c["livenessProbe"] = Object{"httpGet": Object{"port": 8080}}
			c["readinessProbe"] = Object{"grpc": Object{"port": 9000}}
		}},
		{Name: "omit volume defaults", Apply: func(_ *rand.Rand, o Object) {
			vols := podSpecOf(o)["volumes"].([]any)
			delete(at(vols[2].(Object), "secret"), "defaultMode")
			vols = append(vols, Object{"name": "plain"}, Object{"name": "host", "hostPath": Object{"path": "/var/log"}})
			podSpecOf(o)["volumes"] = vols
		}},
		{Name: "limits only (requests default to them)", Apply: func(_ *rand.Rand, o Object) {
			c := firstContainer(o)
			c["resources"] = Object{"limits": Object{"cpu": "500m", "memory": "512Mi", "ephemeral-storage": "1Gi"}}
		}},
		{Name: "no resources", Apply: func(_ *rand.Rand, o Object) { delete(firstContainer(o), "resources") }},
		{Name: "no labels on the object", Kinds: allKinds, Apply: func(_ *rand.Rand, o Object) {
			if o["kind"] != "Pod" {
				delete(at(o, "metadata"), "labels")
			}
		}},

		// Valid: other values.
		{Name: "other replicas", Kinds: withReplicas, Apply: func(r *rand.Rand, o Object) { spec(o)["replicas"] = pick(r, []int{0, 1, 7, 100}) }},
		{Name: "image tags", Apply: func(r *rand.Rand, o Object) {
			for _, c := range containersOf(o) {
				c := c.(Object)
				c["image"] = pick(r, []string{"nginx", "nginx:latest", "nginx:1.27", "example.com:5000/app", "example.com:5000/app:latest", "app@sha256:abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"})
				delete(c, "imagePullPolicy")
			}
		}},
		{Name: "recreate strategy", Kinds: only("Deployment"), Apply: func(_ *rand.Rand, o Object) {
			spec(o)["strategy"] = Object{"type": "Recreate"}
		}},
		{Name: "surge as number, unavailable as percent", Kinds: only("Deployment"), Apply: func(r *rand.Rand, o Object) {
			at(o, "spec", "strategy")["rollingUpdate"] = Object{"maxSurge": pick(r, []int{0, 2, 10}), "maxUnavailable": pick(r, []string{"10%", "50%", "100%"})}
		}},
		{Name: "OnDelete update strategy", Kinds: only("StatefulSet", "DaemonSet"), Apply: func(_ *rand.Rand, o Object) {
			spec(o)["updateStrategy"] = Object{"type": "OnDelete"}
		}},
		{Name: "quantities in other forms", Apply: func(r *rand.Rand, o Object) {
			c := firstContainer(o)
			c["resources"] = Object{
				"requests": Object{"cpu": pick(r, []string{"0.5", "1.5", "250m", "2000m", "1e-1"}), "memory": pick(r, []string{"1e9", "0.5Gi", "1000Mi", "1G", "129M"})},
				"limits":   Object{"cpu": pick(r, []string{"4", "4000m", "8"}), "memory": pick(r, []string{"4Gi", "5e9", "8G"})},
			}
		}},
		{Name: "more annotations", Kinds: allKinds, Apply: func(r *rand.Rand, o Object) {
			at(o, "metadata", "annotations")["deployment.kubernetes.io/revision"] = "3"
			at(o, "metadata", "annotations")["a.b/c"] = strings.Repeat("x", 1+r.IntN(500))
		}},
		{Name: "valid label values", Kinds: allKinds, Apply: func(r *rand.Rand, o Object) {
			at(o, "metadata")["labels"] = Object{"app.kubernetes.io/name": "x", "v": pick(r, []string{"", "a", "A-b_c.d", strings.Repeat("z", 63)})}
		}},
		{Name: "name longer than a DNS label", Kinds: only("Deployment", "DaemonSet", "ReplicaSet", "ControllerRevision", "Pod", "PodTemplate"),
			ImmutableIn: allKinds, Apply: longName},
		// A StatefulSet's name is its pods' hostname prefix: a DNS label.
		{Name: "statefulset name longer than a DNS label", Invalid: true, Kinds: only("StatefulSet"), Apply: longName},
		{Name: "host port and UDP", Apply: func(_ *rand.Rand, o Object) {
			firstContainer(o)["ports"] = []any{Object{"name": "dns", "containerPort": 53, "protocol": "UDP", "hostPort": 53}, Object{"containerPort": 53, "protocol": "TCP"}}
		}},
		{Name: "restartPolicy OnFailure", Kinds: only("Pod", "PodTemplate"), Apply: func(r *rand.Rand, o Object) {
			podSpecOf(o)["restartPolicy"] = pick(r, []string{"OnFailure", "Never"})
		}},
		{Name: "hostNetwork", Apply: func(_ *rand.Rand, o Object) {
			ps := podSpecOf(o)
			ps["hostNetwork"] = true
			delete(ps, "dnsPolicy")
			for _, c := range containersOf(o) {
				c := c.(Object)
				for _, p := range c["ports"].([]any) {
					delete(p.(Object), "hostPort")
				}
			}
		}},
		{Name: "sidecar init container", Apply: func(_ *rand.Rand, o Object) {
			ps := podSpecOf(o)
			ps["initContainers"] = append(ps["initContainers"].([]any), Object{"name": "proxy", "image": "envoy:v1", "restartPolicy": "Always"})
		}},
		{Name: "change image (update)", Apply: func(_ *rand.Rand, o Object) { firstContainer(o)["image"] = "nginx:1.28" }},
		{Name: "controller revision data", ImmutableIn: only("ControllerRevision"), Kinds: only("ControllerRevision"), Apply: func(r *rand.Rand, o Object) {
			o["data"] = Object{"spec": Object{"replicas": r.IntN(5)}, "anything": []any{1, "two"}}
		}},
		{Name: "controller revision other revision", Kinds: only("ControllerRevision"), Apply: func(r *rand.Rand, o Object) {
			o["revision"] = r.IntN(1000)
		}},
		{Name: "controller revision no data", Invalid: true, Kinds: only("ControllerRevision"), Apply: func(_ *rand.Rand, o Object) { delete(o, "data") }},
		{Name: "selector by expression", ImmutableIn: only("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"), Kinds: workloads, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchExpressions": []any{Object{"key": "app", "operator": "Exists"}}}
		}},

		// Invalid.
		{Name: "selector does not match template labels", Invalid: true, Kinds: workloads, Apply: func(_ *rand.Rand, o Object) {
			templateMetaOf(o)["labels"] = Object{"app": "someone-else"}
		}},
		{Name: "empty selector", Invalid: true, Kinds: workloads, Apply: func(r *rand.Rand, o Object) {
			if r.IntN(2) == 0 {
				spec(o)["selector"] = Object{}
			} else {
				delete(spec(o), "selector")
			}
		}},
		{Name: "bad selector operator", Invalid: true, Kinds: workloads, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchLabels": Object{"app": at(o, "metadata")["name"]}, "matchExpressions": []any{Object{"key": "tier", "operator": "Equals", "values": []any{"backend"}}}}
		}},
		{Name: "negative replicas", Invalid: true, Kinds: withReplicas, Apply: func(_ *rand.Rand, o Object) { spec(o)["replicas"] = -1 }},
		{Name: "maxSurge and maxUnavailable both 0", Invalid: true, Kinds: only("Deployment", "DaemonSet"), Apply: func(r *rand.Rand, o Object) {
			ru := Object{"maxSurge": pick[any](r, []any{0, "0%"}), "maxUnavailable": pick[any](r, []any{0, "0%"})}
			if o["kind"] == "Deployment" {
				at(o, "spec", "strategy")["rollingUpdate"] = ru
			} else {
				spec(o)["updateStrategy"] = Object{"type": "RollingUpdate", "rollingUpdate": ru}
			}
		}},
		{Name: `"25" for "25%"`, Invalid: true, Kinds: only("Deployment", "DaemonSet"), Apply: func(r *rand.Rand, o Object) {
			ru := Object{"maxSurge": pick(r, []string{"25", "abc", "25 %"}), "maxUnavailable": "25%"}
			if o["kind"] == "Deployment" {
				at(o, "spec", "strategy")["rollingUpdate"] = ru
			} else {
				spec(o)["updateStrategy"] = Object{"type": "RollingUpdate", "rollingUpdate": Object{"maxUnavailable": ru["maxSurge"]}}
			}
		}},
		{Name: "percent over 100%", Invalid: true, Kinds: only("Deployment"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "strategy")["rollingUpdate"] = Object{"maxUnavailable": "110%"}
		}},
		{Name: "recreate with rollingUpdate", Invalid: true, Kinds: only("Deployment"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "strategy")["type"] = "Recreate"
		}},
		{Name: "bad strategy type", Invalid: true, Kinds: only("Deployment", "StatefulSet", "DaemonSet"), Apply: func(_ *rand.Rand, o Object) {
			if o["kind"] == "Deployment" {
				spec(o)["strategy"] = Object{"type": "Rolling"}
			} else {
				spec(o)["updateStrategy"] = Object{"type": "Rolling"}
			}
		}},
		{Name: "negative revisionHistoryLimit", Invalid: true, Kinds: withRevHistory, Apply: func(_ *rand.Rand, o Object) { spec(o)["revisionHistoryLimit"] = -2 }},
		{Name: "negative minReadySeconds", Invalid: true, Kinds: workloads, Apply: func(_ *rand.Rand, o Object) { spec(o)["minReadySeconds"] = -5 }},
		{Name: "progressDeadlineSeconds not above minReadySeconds", Invalid: true, Kinds: only("Deployment"), Apply: func(_ *rand.Rand, o Object) {
			spec(o)["progressDeadlineSeconds"] = 5
		}},
		{Name: "bad podManagementPolicy", Invalid: true, Kinds: only("StatefulSet"), Apply: func(_ *rand.Rand, o Object) { spec(o)["podManagementPolicy"] = "Random" }},
		{Name: "negative partition", Invalid: true, Kinds: only("StatefulSet"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "updateStrategy", "rollingUpdate")["partition"] = -1
		}},
		{Name: "bad retention policy", Invalid: true, Kinds: only("StatefulSet"), Apply: func(_ *rand.Rand, o Object) {
			spec(o)["persistentVolumeClaimRetentionPolicy"] = Object{"whenDeleted": "Keep"}
		}},
		{Name: "claim template without storage", Invalid: true, Kinds: only("StatefulSet"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "volumeClaimTemplates", 0, "spec")["resources"] = Object{}
		}},
		{Name: "restartPolicy not Always in a workload", Invalid: true, Kinds: workloads, Apply: func(r *rand.Rand, o Object) {
			podSpecOf(o)["restartPolicy"] = pick(r, []string{"Never", "OnFailure"})
		}},
		{Name: "bad restartPolicy", Invalid: true, Kinds: only("Pod", "PodTemplate"), Apply: func(_ *rand.Rand, o Object) {
			podSpecOf(o)["restartPolicy"] = "Sometimes"
		}},
		{Name: "bad dnsPolicy", Invalid: true, Apply: func(_ *rand.Rand, o Object) { podSpecOf(o)["dnsPolicy"] = "Google" }},
		{Name: "bad container name", Invalid: true, Apply: func(r *rand.Rand, o Object) {
			firstContainer(o)["name"] = pick(r, []string{"Web_Server", "-web", strings.Repeat("c", 64), ""})
		}},
		{Name: "duplicate container names", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			cs := containersOf(o)
			cs[1].(Object)["name"] = cs[0].(Object)["name"]
		}},
		{Name: "init container named like a container", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(podSpecOf(o), "initContainers", 0)["name"] = firstContainer(o)["name"]
		}},
		{Name: "no containers", Invalid: true, Apply: func(r *rand.Rand, o Object) {
			if r.IntN(2) == 0 {
				podSpecOf(o)["containers"] = []any{}
			} else {
				delete(podSpecOf(o), "containers")
			}
		}},
		{Name: "no image", Invalid: true, Apply: func(_ *rand.Rand, o Object) { delete(firstContainer(o), "image") }},
		{Name: "bad port name", Invalid: true, Apply: func(r *rand.Rand, o Object) {
			at(firstContainer(o), "ports", 0)["name"] = pick(r, []string{"http_port", "a-very-long-port-name", "HTTP", "80", "-x"})
		}},
		{Name: "duplicate port names", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "ports", 1)["name"] = "http"
		}},
		{Name: "port out of range", Invalid: true, Apply: func(r *rand.Rand, o Object) {
			at(firstContainer(o), "ports", 0)["containerPort"] = pick(r, []int{0, -1, 65536})
		}},
		{Name: "bad protocol", Invalid: true, Apply: func(r *rand.Rand, o Object) {
			at(firstContainer(o), "ports", 0)["protocol"] = pick(r, []string{"HTTP", "tcp"})
		}},
		{Name: "bad image pull policy", Invalid: true, Apply: func(_ *rand.Rand, o Object) { firstContainer(o)["imagePullPolicy"] = "Sometimes" }},
		{Name: "bad quantity", Invalid: true, Apply: func(r *rand.Rand, o Object) {
			at(firstContainer(o), "resources", "requests")["memory"] = pick(r, []string{"12Zi", "1.5.5", "lots"})
		}},
		{Name: "negative quantity", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "resources", "requests")["cpu"] = "-100m"
		}},
		{Name: "requests above limits", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "resources")["requests"] = Object{"cpu": "3", "memory": "3Gi"}
		}},
		{Name: "bad resource name", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "resources", "limits")["gpu"] = "1"
		}},
		{Name: "bad env var", Invalid: true, Apply: func(r *rand.Rand, o Object) {
			at(firstContainer(o), "env", 0)["name"] = pick(r, []string{"", "A=B"})
		}},
		{Name: "env value and valueFrom", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "env", 1)["value"] = "x"
		}},
		{Name: "mount of a missing volume", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "volumeMounts", 0)["name"] = "missing"
		}},
		{Name: "duplicate volume names", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(podSpecOf(o), "volumes", 1)["name"] = "scratch"
		}},
		{Name: "volume with two sources", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(podSpecOf(o), "volumes", 0)["hostPath"] = Object{"path": "/tmp"}
		}},
		{Name: "probe with two handlers", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "livenessProbe")["tcpSocket"] = Object{"port": 80}
		}},
		{Name: "probe with no handler", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			firstContainer(o)["readinessProbe"] = Object{"periodSeconds": 5}
		}},
		{Name: "liveness successThreshold not 1", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "livenessProbe")["successThreshold"] = 3
		}},
		{Name: "bad toleration operator", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(podSpecOf(o), "tolerations", 0)["operator"] = "Equals"
		}},
		{Name: "toleration Exists with value", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(podSpecOf(o), "tolerations", 1)["value"] = "x"
		}},
		{Name: "empty node selector terms", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(podSpecOf(o), "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")["nodeSelectorTerms"] = []any{}
		}},
		{Name: "affinity weight out of range", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(podSpecOf(o), "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", 0)["weight"] = 101
		}},
		{Name: "privileged without privilege escalation", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			at(firstContainer(o), "securityContext")["privileged"] = true
		}},
		{Name: "negative terminationGracePeriodSeconds", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			podSpecOf(o)["terminationGracePeriodSeconds"] = -10
		}},
		{Name: "bad service account name", Invalid: true, Apply: func(_ *rand.Rand, o Object) {
			podSpecOf(o)["serviceAccountName"] = "Bad_SA"
		}},
		{Name: "name not a DNS subdomain", Invalid: true, Kinds: allKinds, ValidIn: pathSegmentNamed, ImmutableIn: allKinds, Apply: func(r *rand.Rand, o Object) {
			at(o, "metadata")["name"] = pick(r, []string{"Web_App", "web..app", "-web", "web.App"})
		}},
		{Name: "name too long", Invalid: true, Kinds: allKinds, Apply: func(_ *rand.Rand, o Object) {
			// The case's own name starts it, so that no two cases collide.
			name := at(o, "metadata")["name"].(string)
			at(o, "metadata")["name"] = name + strings.Repeat("a", 254-len(name))
		}},
		{Name: "no name", Invalid: true, Kinds: allKinds, Apply: func(_ *rand.Rand, o Object) { delete(at(o, "metadata"), "name") }},
		{Name: "bad label value", Invalid: true, Kinds: allKinds, Apply: func(r *rand.Rand, o Object) {
			at(o, "metadata")["labels"] = Object{"app": pick(r, []string{"has space", strings.Repeat("v", 64), "-dash", "a/b"})}
		}},
		{Name: "bad label key", Invalid: true, Kinds: allKinds, Apply: func(r *rand.Rand, o Object) {
			at(o, "metadata")["labels"] = Object{pick(r, []string{"bad key", "example.com/", "Example.com/x", strings.Repeat("k", 64)}): "v"}
		}},
		{Name: "bad annotation key", Invalid: true, Kinds: allKinds, Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata", "annotations")["no spaces"] = "v"
		}},
		{Name: "bad template label value", Invalid: true, Kinds: only("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "PodTemplate"), Apply: func(_ *rand.Rand, o Object) {
			templateMetaOf(o)["labels"].(Object)["extra"] = "not valid!"
		}},
		{Name: "negative revision", Invalid: true, Kinds: only("ControllerRevision"), Apply: func(_ *rand.Rand, o Object) { o["revision"] = -1 }},
		{Name: "namespace differs from the request's", Invalid: true, Kinds: allKinds, Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata")["namespace"] = "other"
		}},

		// Update only: immutable fields changed.
		{Name: "selector changed", UpdateOnly: true, Kinds: workloads, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchLabels": Object{"tier": "backend"}}
		}},
		{Name: "statefulset forbidden field changed", UpdateOnly: true, Kinds: only("StatefulSet"), Apply: func(r *rand.Rand, o Object) {
			if r.IntN(2) == 0 {
				spec(o)["serviceName"] = "other"
			} else {
				spec(o)["podManagementPolicy"] = "OrderedReady"
			}
		}},
		{Name: "controller revision data changed", UpdateOnly: true, Kinds: only("ControllerRevision"), Apply: func(_ *rand.Rand, o Object) {
			o["data"] = Object{"changed": true}
		}},
		{Name: "pod spec field changed", UpdateOnly: true, Kinds: only("Pod"), Apply: func(r *rand.Rand, o Object) {
			if r.IntN(2) == 0 {
				at(firstContainer(o), "ports", 0)["containerPort"] = 7000
			} else {
				podSpecOf(o)["serviceAccountName"] = "other"
			}
		}},
		{Name: "pod toleration added", UpdateOnly: true, Kinds: only("Pod"), Apply: func(_ *rand.Rand, o Object) {
			ps := podSpecOf(o)
			ps["tolerations"] = append(ps["tolerations"].([]any), Object{"key": "k", "operator": "Exists", "effect": "NoSchedule"})
		}},
		{Name: "spec and annotation change bumps generation", UpdateOnly: true, Kinds: allKinds, Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata", "annotations")["changed"] = "yes"
			if s := spec(o); s != nil {
				if _, ok := s["minReadySeconds"]; ok {
					s["minReadySeconds"] = 9
				}
			}
		}},
		{Name: "uid changed", UpdateOnly: true, Kinds: allKinds, Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata")["uid"] = "not-the-stored-uid"
		}},
		{Name: "name changed", UpdateOnly: true, Kinds: allKinds, Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata")["name"] = "renamed"
		}},
	}
	for _, m := range kindMutations {
		all = append(all, m()...)
	}
	return all
}

// longName gives the object a name of 64 to 253 characters, too long for a DNS label but
// not for a DNS subdomain.
func longName(_ *rand.Rand, o Object) {
	name := at(o, "metadata")["name"].(string)
	at(o, "metadata")["name"] = name + strings.Repeat("b", 64-len(name)) + ".example"
}
