package kubecode

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
)

// Object is a v1 manifest as JSON decodes it; the generator builds and mutates these, so
// that both sides of a differential test get the same bytes.
type Object = map[string]any

// Case is one generated request: a create of Body or, when Old is set, a create of Old
// (a valid base manifest) followed by an update of it to Body.
type Case struct {
	// Kind is the kind's name (a key of Kinds).
	Kind string
	// Namespace is the request's namespace ("" for a cluster-scoped kind).
	Namespace string
	// Seed and Index identify the case: Generate(kind, seed, n)[Index] is it again.
	Seed  uint64
	Index int
	// Mutations are the names of the mutations applied to the base manifest, in order.
	Mutations []string
	// Invalid says one of the mutations is meant to be refused (a generator's intent, not
	// an oracle: the kube side decides).
	Invalid bool
	// Old is the stored object an update starts from, nil for a create.
	Old Object
	// Body is the object created or the update's body.
	Body Object
}

// Op is "create" or "update".
func (c Case) Op() string {
	if c.Old != nil {
		return "update"
	}
	return "create"
}

// String names the case for a test's output.
func (c Case) String() string {
	return fmt.Sprintf("%s#%d(seed %d) %s [%s]", c.Kind, c.Index, c.Seed, c.Op(), strings.Join(c.Mutations, ", "))
}

// JSON encodes o; a generated manifest always encodes.
func JSON(o Object) []byte {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	return b
}

// Mutation changes a manifest, validly (other valid values, fields left out for the
// defaults) or not (what kube's validation refuses).
type Mutation struct {
	// Name says what it does.
	Name string
	// Invalid says the result is meant to be refused.
	Invalid bool
	// UpdateOnly says it only means something on an update (an immutable field changed).
	UpdateOnly bool
	// Kinds are the kinds it applies to; nil means every kind with a pod template
	// (Deployment, StatefulSet, DaemonSet, ReplicaSet, PodTemplate) and Pod.
	Kinds []string
	// ImmutableIn are the kinds in which it changes, on an update, a field an update may
	// not change (valid on a create, refused on an update). A Pod's spec is immutable but
	// for what podUpdatable lists.
	ImmutableIn []string
	// ValidIn are the kinds in which an Invalid mutation is valid (a PodDisruptionBudget's
	// name need only be a path segment).
	ValidIn []string
	// InvalidIn are the kinds in which it is refused though valid elsewhere (a Job's
	// template must name its restartPolicy).
	InvalidIn []string
	// Apply changes o; r is the case's random source.
	Apply func(r *rand.Rand, o Object)
}

// The kinds by what they have: workloads have a selector and a template whose
// restartPolicy must be Always.
var (
	workloads      = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"}
	withReplicas   = []string{"Deployment", "StatefulSet", "ReplicaSet"}
	withPodSpec    = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "PodTemplate", "Pod"}
	withRevHistory = []string{"Deployment", "StatefulSet", "DaemonSet"}
	allKinds       = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision", "Pod", "PodTemplate"}
)

// Other groups' kinds plug in from their own files (gen_<group>.go), in an init: their
// base manifest (kindBases), where their pod template is (templatePaths, when it is not
// spec.template), their mutations (kindMutations), and their names appended to the lists
// above whose mutations fit them (allKinds for the metadata ones, withPodSpec for the
// pod spec ones).
var (
	// kindBases set the apiVersion and the kind's fields on o, whose kind and metadata
	// are set (labels holds the labels a pod template carries).
	kindBases = map[string]func(r *rand.Rand, o Object, name string, labels Object){}
	// templatePaths are the paths to the pod template of kinds whose template is not at
	// spec.template.
	templatePaths = map[string][]any{}
	// kindMutations are the mutations of the plugged-in kinds.
	kindMutations []func() []Mutation
	// updateBodies make an update's body from the stored object, as a client's
	// read-modify-write does, for kinds whose server fills what the manifest leaves out
	// (a Job's generated selector and labels carry the stored uid).
	updateBodies = map[string]func(stored, body Object) Object{}
	// templateImmutable are the kinds whose pod template an update may not change (a
	// Job's): the pod spec mutations are refused in their updates.
	templateImmutable []string
	// pathSegmentNamed are the kinds whose names need only be path segments.
	pathSegmentNamed []string
	// updatesOnly are the kinds whose every case is an update (a subresource's writes:
	// PodResize).
	updatesOnly []string
)

// UpdateBody is the body of c's update of stored (the server's answer to the create
// of c.Old): c.Body, with what a client's read-modify-write carries over from stored.
func UpdateBody(c Case, stored []byte) []byte {
	f := updateBodies[c.Kind]
	if f == nil {
		return JSON(c.Body)
	}
	var st Object
	if err := json.Unmarshal(stored, &st); err != nil {
		return JSON(c.Body)
	}
	return JSON(f(st, clone(c.Body)))
}

// PodTemplate builds the template a workload's base manifest carries: labels, an
// annotation and a fully featured pod spec.
func PodTemplate(r *rand.Rand, name string, labels Object) Object {
	return Object{"metadata": Object{"labels": clone(labels), "annotations": Object{"prometheus.io/scrape": "true"}}, "spec": podSpec(r, name)}
}

// podUpdatable are the valid mutations that change only what a Pod's update may change
// (images, metadata).
var podUpdatable = []string{"change image (update)", "more annotations", "valid label values", "no labels on the object"}

func (m Mutation) appliesTo(kind string) bool {
	kinds := m.Kinds
	if kinds == nil {
		kinds = withPodSpec
	}
	return slices.Contains(kinds, kind)
}

// Generate returns n cases of kind, deterministic by seed: about a third are updates, each
// case has one to three mutations of the kind, and about half of the cases have an
// invalid one.
func Generate(kind string, seed uint64, n int) []Case {
	h := fnv.New64a()
	h.Write([]byte(kind))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	var valid, invalid, update []Mutation
	for _, m := range Mutations() {
		if !m.appliesTo(kind) {
			continue
		}
		switch {
		case m.UpdateOnly:
			update = append(update, m)
		case m.Invalid:
			invalid = append(invalid, m)
		default:
			valid = append(valid, m)
		}
	}
	cases := make([]Case, 0, n)
	for i := range n {
		c := Case{Kind: kind, Seed: seed, Index: i}
		if Kinds[kind].Strategy.NamespaceScoped() {
			c.Namespace = "ns1"
		}
		name := fmt.Sprintf("%s-%d", strings.ToLower(kind), i)
		base := Base(kind, r, name, c.Namespace)
		isUpdate := r.IntN(3) == 0 || slices.Contains(updatesOnly, kind)
		body := clone(base)
		if isUpdate {
			c.Old = base
		}
		var chosen []Mutation
		count := 1 + r.IntN(3)
		wantInvalid := r.IntN(2) == 0
		for j := range count {
			pool := valid
			switch {
			case j == 0 && isUpdate && len(update) > 0 && r.IntN(2) == 0:
				pool = update
			case j == 0 && wantInvalid && len(invalid) > 0:
				pool = invalid
			case j > 0 && len(invalid) > 0 && r.IntN(4) == 0:
				pool = invalid
			}
			if len(pool) == 0 {
				continue
			}
			m := pool[r.IntN(len(pool))]
			if slices.ContainsFunc(chosen, func(x Mutation) bool { return x.Name == m.Name }) {
				continue
			}
			chosen = append(chosen, m)
		}
		for _, m := range chosen {
			next, ok := apply(m, r, body)
			if !ok {
				continue
			}
			body = next
			c.Mutations = append(c.Mutations, m.Name)
			c.Invalid = c.Invalid || m.Invalid && !slices.Contains(m.ValidIn, kind) || m.UpdateOnly || slices.Contains(m.InvalidIn, kind)
			if isUpdate && (slices.Contains(m.ImmutableIn, kind) || kind == "Pod" && !slices.Contains(podUpdatable, m.Name) ||
				slices.Contains(templateImmutable, kind) && m.Kinds == nil) {
				c.Invalid = true
			}
		}
		// An update's body is the client's change of the manifest it created, without a
		// resourceVersion: an unconditional update.
		c.Body = body
		cases = append(cases, c)
	}
	return cases
}

// apply applies m to a copy of o. A mutation whose target an earlier one removed (a
// container's port after "no containers") panics on the missing map: it does not
// apply, and o stays as it was.
func apply(m Mutation, r *rand.Rand, o Object) (out Object, ok bool) {
	out = clone(o)
	defer func() {
		if recover() != nil {
			out, ok = o, false
		}
	}()
	m.Apply(r, out)
	return out, true
}

// Base is the valid, fully featured manifest of kind named name in namespace.
func Base(kind string, r *rand.Rand, name, namespace string) Object {
	meta := Object{"name": name, "labels": Object{"app": name, "team": "payments"}, "annotations": Object{"example.com/owner": "team-a"}}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	labels := Object{"app": name, "tier": "backend"}
	o := Object{"kind": kind, "metadata": meta}
	switch kind {
	case "Pod", "PodTemplate":
		o["apiVersion"] = "v1"
	default:
		o["apiVersion"] = "apps/v1"
	}
	selector := func() Object {
		if r.IntN(3) == 0 {
			return Object{"matchLabels": Object{"app": name}, "matchExpressions": []any{
				Object{"key": "tier", "operator": "In", "values": []any{"backend", "frontend"}},
			}}
		}
		return Object{"matchLabels": clone(labels)}
	}
	template := func() Object { return PodTemplate(r, name, labels) }
	if b := kindBases[kind]; b != nil {
		b(r, o, name, labels)
		return o
	}
	switch kind {
	case "Deployment":
		o["spec"] = Object{
			"replicas":                3,
			"selector":                selector(),
			"template":                template(),
			"strategy":                Object{"type": "RollingUpdate", "rollingUpdate": Object{"maxSurge": "30%", "maxUnavailable": 1}},
			"revisionHistoryLimit":    5,
			"minReadySeconds":         5,
			"progressDeadlineSeconds": 300,
		}
	case "StatefulSet":
		o["spec"] = Object{
			"replicas":            2,
			"serviceName":         name + "-headless",
			"selector":            selector(),
			"template":            template(),
			"podManagementPolicy": "Parallel",
			"updateStrategy":      Object{"type": "RollingUpdate", "rollingUpdate": Object{"partition": 1, "maxUnavailable": 1}},
			"volumeClaimTemplates": []any{Object{
				"metadata": Object{"name": "data"},
				"spec": Object{"accessModes": []any{"ReadWriteOnce"}, "storageClassName": "standard",
					"resources": Object{"requests": Object{"storage": "10Gi"}}},
			}},
			"persistentVolumeClaimRetentionPolicy": Object{"whenDeleted": "Delete", "whenScaled": "Retain"},
			"revisionHistoryLimit":                 7,
			"minReadySeconds":                      3,
		}
	case "DaemonSet":
		o["spec"] = Object{
			"selector":             selector(),
			"template":             template(),
			"updateStrategy":       Object{"type": "RollingUpdate", "rollingUpdate": Object{"maxUnavailable": "20%", "maxSurge": 0}},
			"revisionHistoryLimit": 4,
			"minReadySeconds":      2,
		}
	case "ReplicaSet":
		o["spec"] = Object{"replicas": 2, "selector": selector(), "template": template(), "minReadySeconds": 1}
	case "ControllerRevision":
		o["revision"] = 1 + r.IntN(20)
		o["data"] = Object{"spec": Object{"template": template()}}
	case "Pod":
		o["spec"] = podSpec(r, name)
		meta["labels"] = clone(labels)
	case "PodTemplate":
		o["template"] = template()
	}
	return o
}

var images = []string{"nginx:1.27", "registry.example.com/team/api:v2.3.1", "busybox", "ghcr.io/org/worker@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "redis:latest"}

// podSpec is a fully featured pod spec: several containers with ports, env, resources,
// probes and mounts; an init container; volumes of a few sources; security contexts;
// tolerations; affinity.
func podSpec(r *rand.Rand, name string) Object {
	n := 2 + r.IntN(2)
	containers := make([]any, 0, n)
	for i := range n {
		containers = append(containers, container(r, fmt.Sprintf("c%d", i), i))
	}
	return Object{
		"initContainers": []any{Object{
			"name": "init", "image": "busybox:1.36", "command": []any{"sh", "-c", "echo init"},
			"resources":    Object{"requests": Object{"cpu": "50m", "memory": "32Mi"}},
			"volumeMounts": []any{Object{"name": "scratch", "mountPath": "/scratch"}},
		}},
		"containers": containers,
		"volumes": []any{
			Object{"name": "scratch", "emptyDir": Object{"sizeLimit": "1Gi"}},
			Object{"name": "config", "configMap": Object{"name": name + "-config", "items": []any{Object{"key": "app.yaml", "path": "app.yaml"}}}},
			Object{"name": "creds", "secret": Object{"secretName": name + "-creds", "defaultMode": 0o400}},
			Object{"name": "podinfo", "downwardAPI": Object{"items": []any{Object{"path": "labels", "fieldRef": Object{"fieldPath": "metadata.labels"}}}}},
			Object{"name": "token", "projected": Object{"sources": []any{Object{"serviceAccountToken": Object{"path": "token", "expirationSeconds": 3600}}}}},
		},
		"securityContext": Object{"runAsNonRoot": true, "runAsUser": 1000, "fsGroup": 2000,
			"seccompProfile": Object{"type": "RuntimeDefault"}},
		"serviceAccountName": "app",
		"nodeSelector":       Object{"kubernetes.io/os": "linux"},
		"tolerations": []any{
			Object{"key": "dedicated", "operator": "Equal", "value": "payments", "effect": "NoSchedule"},
			Object{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120},
		},
		"affinity": Object{
			"nodeAffinity": Object{"requiredDuringSchedulingIgnoredDuringExecution": Object{"nodeSelectorTerms": []any{
				Object{"matchExpressions": []any{Object{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"amd64", "arm64"}}}},
			}}},
			"podAntiAffinity": Object{"preferredDuringSchedulingIgnoredDuringExecution": []any{Object{
				"weight": 50, "podAffinityTerm": Object{"topologyKey": "kubernetes.io/hostname",
					"labelSelector": Object{"matchLabels": Object{"app": name}}},
			}}},
		},
		"terminationGracePeriodSeconds": 45,
	}
}

func container(r *rand.Rand, name string, i int) Object {
	c := Object{
		"name":  name,
		"image": images[r.IntN(len(images))],
		"ports": []any{
			Object{"name": "http", "containerPort": 8080 + i, "protocol": "TCP"},
			Object{"name": "metrics", "containerPort": 9090 + i},
		},
		"env": []any{
			Object{"name": "MODE", "value": "production"},
			Object{"name": "POD_NAME", "valueFrom": Object{"fieldRef": Object{"fieldPath": "metadata.name"}}},
			Object{"name": "DB_PASSWORD", "valueFrom": Object{"secretKeyRef": Object{"name": "db", "key": "password"}}},
			Object{"name": "CPU_LIMIT", "valueFrom": Object{"resourceFieldRef": Object{"resource": "limits.cpu", "containerName": name}}},
		},
		"envFrom": []any{Object{"configMapRef": Object{"name": "shared-env"}}},
		"resources": Object{
			"requests": Object{"cpu": []any{"100m", "0.25", "1"}[r.IntN(3)], "memory": []any{"128Mi", "256M", "1Gi"}[r.IntN(3)]},
			"limits":   Object{"cpu": "2", "memory": "2Gi"},
		},
		"livenessProbe": Object{"httpGet": Object{"path": "/healthz", "port": "http"}, "initialDelaySeconds": 10, "periodSeconds": 15},
		"readinessProbe": Object{"tcpSocket": Object{"port": 8080 + i}, "timeoutSeconds": 2,
			"successThreshold": 1, "failureThreshold": 5},
		"startupProbe": Object{"exec": Object{"command": []any{"cat", "/tmp/ready"}}, "failureThreshold": 30},
		"volumeMounts": []any{
			Object{"name": "config", "mountPath": "/etc/app", "readOnly": true},
			Object{"name": "scratch", "mountPath": "/tmp"},
		},
		"securityContext": Object{"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
			"capabilities": Object{"drop": []any{"ALL"}}},
	}
	if r.IntN(2) == 0 {
		c["imagePullPolicy"] = "IfNotPresent"
	}
	return c
}

// clone deep-copies a manifest.
func clone[T any](v T) T {
	return cloneAny(v).(T)
}

func cloneAny(v any) any {
	switch v := v.(type) {
	case Object:
		out := make(Object, len(v))
		for k, e := range v {
			out[k] = cloneAny(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneAny(e)
		}
		return out
	default:
		return v
	}
}

// at returns the object at path in o (list elements by index), or nil when any step is
// missing.
func at(o Object, path ...any) Object {
	var cur any = o
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := cur.(Object)
			if !ok {
				return nil
			}
			cur = m[p]
		case int:
			l, ok := cur.([]any)
			if !ok || p >= len(l) {
				return nil
			}
			cur = l[p]
		}
	}
	m, _ := cur.(Object)
	return m
}

// podSpecOf is the pod spec of a manifest: the template's, the pod's own, or (for a
// ControllerRevision) the one in its data.
func podSpecOf(o Object) Object {
	switch o["kind"] {
	case "Pod":
		return at(o, "spec")
	case "PodTemplate":
		return at(o, "template", "spec")
	case "ControllerRevision":
		return at(o, "data", "spec", "template", "spec")
	}
	return at(templateOf(o), "spec")
}

// templateOf is the pod template of a workload manifest.
func templateOf(o Object) Object {
	if p, ok := templatePaths[o["kind"].(string)]; ok {
		return at(o, p...)
	}
	return at(o, "spec", "template")
}

// templateMetaOf is the metadata whose labels the selector must match.
func templateMetaOf(o Object) Object {
	if o["kind"] == "PodTemplate" {
		return at(o, "template", "metadata")
	}
	return at(templateOf(o), "metadata")
}

func containersOf(o Object) []any {
	l, _ := podSpecOf(o)["containers"].([]any)
	return l
}

// firstContainer is the first container of the manifest's pod spec.
func firstContainer(o Object) Object {
	return at(podSpecOf(o), "containers", 0)
}

func pick[T any](r *rand.Rand, l []T) T { return l[r.IntN(len(l))] }
