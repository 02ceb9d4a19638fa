package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// The side-by-side check of issue 26 for apps/v1: the same manifests, valid and invalid,
// created on kube-apiserver (started as envtest starts it: the ServiceAccount admission
// plugin off) and on apikit, read back equal once the fields a server picks (uid,
// resourceVersion, timestamps, managedFields times) are set aside; refused ones refused with
// the same code, reason, message and causes. Then updates of the stored objects.

// appsDiffCase is one write: a manifest POSTed to its collection, or with update set, a
// change PUT over the object the case named by fixture created.
type appsDiffCase struct {
	name, collection, manifest string
	// fixture and update: PUT update(fixture's stored object) to the fixture's path.
	fixture string
	update  func(obj map[string]any)
}

const appsTemplate = `
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports: [{name: http, containerPort: 8080}]
        resources:
          limits: {cpu: 500m, memory: 128Mi}
          requests: {cpu: "0.1", memory: 64Mi}
        readinessProbe:
          httpGet: {path: /healthz, port: http}
        env:
        - {name: MODE, value: prod}
        - name: POD
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
        volumeMounts: [{name: cache, mountPath: /cache}, {name: conf, mountPath: /etc/conf}]
      - name: log
        image: busybox
        command: [sh, -c, "tail -f /dev/null"]
      volumes:
      - {name: cache, emptyDir: {}}
      - name: conf
        configMap: {name: web-conf}`

// appsManifest is a manifest of kind named name with spec fields before the template.
func appsManifest(kind, name, spec string) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: %s\nmetadata:\n  name: %s\nspec:\n%s  template:%s\n", kind, name, spec, appsTemplate)
}

const appsSelector = "  selector:\n    matchLabels: {app: web}\n"

func appsDiffCases() []appsDiffCase {
	const (
		deps = "/apis/apps/v1/namespaces/default/deployments"
		sts  = "/apis/apps/v1/namespaces/default/statefulsets"
		dss  = "/apis/apps/v1/namespaces/default/daemonsets"
		rss  = "/apis/apps/v1/namespaces/default/replicasets"
		crs  = "/apis/apps/v1/namespaces/default/controllerrevisions"
	)
	dep := func(name, spec string) string { return appsManifest("Deployment", name, spec) }
	swap := func(old, new string) func(string) string {
		return func(s string) string { return strings.Replace(s, old, new, 1) }
	}
	broken := func(name string, f func(string) string) string { return f(dep(name, appsSelector)) }
	cases := []appsDiffCase{
		{name: "deployment with kube's defaults", collection: deps, manifest: dep("d-min", appsSelector)},
		{name: "deployment with a Recreate strategy", collection: deps, manifest: dep("d-recreate", appsSelector+"  strategy: {type: Recreate}\n")},
		{name: "deployment with surge and unavailable set", collection: deps, manifest: dep("d-surge", appsSelector+"  replicas: 0\n  strategy:\n    rollingUpdate: {maxSurge: 50%, maxUnavailable: 0}\n")},
		{name: "deployment with a matchExpressions selector", collection: deps, manifest: dep("d-expr", "  selector:\n    matchExpressions: [{key: app, operator: In, values: [web, api]}]\n")},
		{name: "deployment whose selector does not match its template", collection: deps, manifest: dep("d-mismatch", "  selector:\n    matchLabels: {app: api}\n")},
		{name: "deployment without a selector", collection: deps, manifest: dep("d-nosel", "")},
		{name: "deployment with an empty selector", collection: deps, manifest: dep("d-emptysel", "  selector: {}\n")},
		{name: "deployment with surge and unavailable 0", collection: deps, manifest: dep("d-zero", appsSelector+"  strategy:\n    rollingUpdate: {maxSurge: 0, maxUnavailable: 0}\n")},
		{name: "deployment with unavailable over 100%", collection: deps, manifest: dep("d-110", appsSelector+"  strategy:\n    rollingUpdate: {maxUnavailable: 110%}\n")},
		{name: "deployment with Recreate and rollingUpdate", collection: deps, manifest: dep("d-recreate-ru", appsSelector+"  strategy:\n    type: Recreate\n    rollingUpdate: {maxSurge: 1}\n")},
		{name: "deployment with negative replicas and history", collection: deps, manifest: dep("d-neg", appsSelector+"  replicas: -1\n  revisionHistoryLimit: -2\n")},
		{name: "deployment with a progress deadline below minReadySeconds", collection: deps, manifest: dep("d-deadline", appsSelector+"  minReadySeconds: 30\n  progressDeadlineSeconds: 10\n")},
		{name: "deployment with restartPolicy Never", collection: deps, manifest: broken("d-never", swap("      containers:", "      restartPolicy: Never\n      containers:"))},
		{name: "deployment with a bad container name", collection: deps, manifest: broken("d-badname", swap("name: log", "name: Log_1"))},
		{name: "deployment with duplicate containers", collection: deps, manifest: broken("d-dup", swap("name: log", "name: app"))},
		{name: "deployment with a container without image", collection: deps, manifest: broken("d-noimage", swap("        image: busybox\n", ""))},
		{name: "deployment with a port out of range", collection: deps, manifest: broken("d-port", swap("containerPort: 8080", "containerPort: 70000"))},
		{name: "deployment with a bad quantity", collection: deps, manifest: broken("d-qty", swap("memory: 128Mi", "memory: 12x"))},
		{name: "deployment with requests above limits", collection: deps, manifest: broken("d-req", swap(`cpu: "0.1"`, "cpu: 2"))},
		{name: "deployment with a mount of a missing volume", collection: deps, manifest: broken("d-mount", swap("name: conf, mountPath", "name: nope, mountPath"))},
		{name: "deployment with a bad image pull policy", collection: deps, manifest: broken("d-pull", swap("image: busybox\n", "image: busybox\n        imagePullPolicy: Sometimes\n"))},
		{name: "deployment named with capitals", collection: deps, manifest: dep("D-Caps", appsSelector)},
		{name: "statefulset with kube's defaults", collection: sts, manifest: appsManifest("StatefulSet", "s-min", appsSelector+"  serviceName: db\n")},
		{name: "statefulset with claims and parallel pods", collection: sts, manifest: appsManifest("StatefulSet", "s-pvc",
			appsSelector+"  podManagementPolicy: Parallel\n  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec:\n      accessModes: [ReadWriteOnce]\n      resources: {requests: {storage: 1Gi}}\n")},
		{name: "statefulset with a bad pod management policy", collection: sts, manifest: appsManifest("StatefulSet", "s-policy", appsSelector+"  podManagementPolicy: Sometimes\n")},
		{name: "statefulset whose selector does not match", collection: sts, manifest: appsManifest("StatefulSet", "s-mismatch", "  selector:\n    matchLabels: {app: db}\n")},
		{name: "daemonset with kube's defaults", collection: dss, manifest: appsManifest("DaemonSet", "ds-min", appsSelector)},
		{name: "daemonset with OnDelete", collection: dss, manifest: appsManifest("DaemonSet", "ds-ondelete", appsSelector+"  updateStrategy: {type: OnDelete}\n")},
		{name: "daemonset with unavailable 0", collection: dss, manifest: appsManifest("DaemonSet", "ds-zero", appsSelector+"  updateStrategy:\n    rollingUpdate: {maxUnavailable: 0}\n")},
		{name: "replicaset with kube's defaults", collection: rss, manifest: appsManifest("ReplicaSet", "rs-min", appsSelector)},
		{name: "replicaset with negative replicas", collection: rss, manifest: appsManifest("ReplicaSet", "rs-neg", appsSelector+"  replicas: -3\n")},
		{name: "controllerrevision", collection: crs, manifest: "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: cr-1}\ndata: {spec: {template: {metadata: {labels: {app: web}}}}}\nrevision: 3\n"},
		{name: "controllerrevision with a negative revision", collection: crs, manifest: "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: cr-neg}\nrevision: -1\n"},
		{name: "deployment selector changed", fixture: "d-min", collection: deps, update: func(o map[string]any) {
			setPath(o, map[string]any{"app": "web", "tier": "x"}, "spec", "selector", "matchLabels")
			setPath(o, map[string]any{"app": "web", "tier": "x"}, "spec", "template", "metadata", "labels")
		}},
		{name: "deployment image changed", fixture: "d-recreate", collection: deps, update: func(o map[string]any) {
			c := get(o, "spec", "template", "spec", "containers").([]any)
			c[0].(map[string]any)["image"] = "nginx:1.28"
		}},
		{name: "deployment labels changed", fixture: "d-surge", collection: deps, update: func(o map[string]any) {
			setPath(o, map[string]any{"team": "a"}, "metadata", "labels")
		}},
		{name: "statefulset serviceName changed", fixture: "s-min", collection: sts, update: func(o map[string]any) {
			setPath(o, "other", "spec", "serviceName")
		}},
		{name: "statefulset replicas changed", fixture: "s-pvc", collection: sts, update: func(o map[string]any) {
			setPath(o, int64(4), "spec", "replicas")
		}},
		{name: "controllerrevision data changed", fixture: "cr-1", collection: crs, update: func(o map[string]any) {
			setPath(o, map[string]any{"x": int64(1)}, "data")
		}},
	}
	return cases
}

func setPath(m map[string]any, v any, path ...string) {
	for _, p := range path[:len(path)-1] {
		next, _ := m[p].(map[string]any)
		if next == nil {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// normalizeStored sets aside what each server picks for itself.
func normalizeStored(m map[string]any) map[string]any {
	md, _ := m["metadata"].(map[string]any)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if md[f] != nil {
			md[f] = "<" + f + ">"
		}
	}
	if mf, ok := md["managedFields"].([]any); ok {
		for _, e := range mf {
			if em, ok := e.(map[string]any); ok && em["time"] != nil {
				em["time"] = "<time>"
			}
		}
	}
	return m
}

// appsDiffAnswer is what a server answered to a write and then stored.
type appsDiffAnswer struct {
	Code    int
	Reason  string
	Message string
	Causes  []string
	Stored  map[string]any
}

// setRefusal fills a's Reason, Message and Causes from the Status body m. The causes
// are sorted, and so is the bracketed list of a message that names several: kube
// validates some fields by ranging over a map (a node's capacity), so the order of
// its causes differs from run to run while the set does not.
func (a *appsDiffAnswer) setRefusal(m map[string]any) {
	a.Reason, _ = m["reason"].(string)
	a.Message, _ = m["message"].(string)
	if i := strings.Index(a.Message, ": ["); i >= 0 && strings.HasSuffix(a.Message, "]") {
		parts := strings.Split(a.Message[i+3:len(a.Message)-1], ", ")
		slices.Sort(parts)
		a.Message = a.Message[:i+3] + strings.Join(parts, ", ") + "]"
	}
	causes, _ := get(m, "details", "causes").([]any)
	for _, cause := range causes {
		cm, _ := cause.(map[string]any)
		a.Causes = append(a.Causes, fmt.Sprintf("%v %v: %v", cm["reason"], cm["field"], cm["message"]))
	}
	slices.Sort(a.Causes)
}

// copyJSON is a deep copy of the JSON object m, to normalize while m stays a fixture.
func copyJSON(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var cp map[string]any
	_ = json.Unmarshal(raw, &cp)
	return cp
}

// TestSideBySide_AppsManifestsAsKubeAPIServer creates and updates the manifests of
// appsDiffCases on kube-apiserver and on apikit and compares the answers and the stored
// objects.
func TestSideBySide_AppsManifestsAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	answers := make([][]appsDiffAnswer, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]map[string]any{}
		for _, c := range appsDiffCases() {
			var code int
			var m map[string]any
			if c.update == nil {
				body, err := yaml.YAMLToJSON([]byte(c.manifest))
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				code, m = sv.do(t, hc, "POST", c.collection, "application/json", string(body))
				if code == http.StatusCreated {
					stored[get(m, "metadata", "name").(string)] = m
				}
			} else {
				obj := stored[c.fixture]
				if obj == nil {
					t.Fatalf("%s: %s: the fixture %s was not created", sv.name, c.name, c.fixture)
				}
				// A fresh copy of the stored object, changed.
				raw, _ := json.Marshal(obj)
				var cp map[string]any
				_ = json.Unmarshal(raw, &cp)
				c.update(cp)
				body, _ := json.Marshal(cp)
				code, m = sv.do(t, hc, "PUT", c.collection+"/"+c.fixture, "application/json", string(body))
			}
			ans := appsDiffAnswer{Code: code}
			if m["kind"] == "Status" {
				ans.setRefusal(m)
			} else {
				// A copy: the stored object is the fixture of later updates.
				cp := copyJSON(m)
				ans.Stored = normalizeStored(cp)
			}
			answers[i] = append(answers[i], ans)
		}
	}
	equal := 0
	for j, c := range appsDiffCases() {
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", c.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d apps/v1 writes answered and stored as kube-apiserver does", equal, len(appsDiffCases()))
}
