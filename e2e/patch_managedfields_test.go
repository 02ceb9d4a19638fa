package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/managedfields/managedfieldstest"
	"k8s.io/kube-openapi/pkg/spec3"
	"sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// TestManagedFields_MatchApimachinery runs the same sequence of applies and updates
// through the example server and through k8s.io/apimachinery's field manager (the code
// kube-apiserver runs, fed with the OpenAPI v3 schemas the server publishes), and
// compares the outcome of every step: the conflicts, the object's spec, and the
// managedFields entries (manager, operation, apiVersion, fieldsType, fieldsV1; times
// differ by construction and are only checked to be set).
func TestManagedFields_MatchApimachinery(t *testing.T) {
	es := startExampleServer(t, server.StorageMemory)
	const ns = "mf-compare"
	gvk := schema.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}

	code, _, body := es.do(t, "GET", "/openapi/v3/apis/toys.example.com/v1", nil, nil)
	if code != 200 {
		t.Fatalf("openapi v3: %d %s", code, body)
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("decoding the OpenAPI v3 document: %v", err)
	}
	tc, err := managedfields.NewTypeConverter(doc.Components.Schemas, false)
	if err != nil {
		t.Fatalf("kube's type converter rejects our schemas: %v", err)
	}
	kube := managedfieldstest.NewTestFieldManager(tc, gvk)

	manifest := func(name, color string, replicas int, parts ...string) string {
		s := fmt.Sprintf("apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: %s\n  namespace: %s\n  labels:\n    owner: %s\nspec:\n  color: %s\n", name, ns, name, color)
		if replicas > 0 {
			s += fmt.Sprintf("  replicas: %d\n", replicas)
		}
		if len(parts) > 0 {
			s += "  parts:\n"
			for _, p := range parts {
				s += "  - name: " + p + "\n    count: 1\n"
			}
		}
		return s
	}

	type step struct {
		name    string
		op      string // apply or update
		manager string
		force   bool
		body    func(live map[string]any) map[string]any
	}
	applyOf := func(color string, replicas int, parts ...string) func(map[string]any) map[string]any {
		return func(map[string]any) map[string]any {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(manifest("w", color, replicas, parts...)), &m); err != nil {
				t.Fatal(err)
			}
			m["metadata"].(map[string]any)["labels"] = map[string]any{"app": "demo"}
			return m
		}
	}
	edit := func(f func(spec map[string]any)) func(map[string]any) map[string]any {
		return func(live map[string]any) map[string]any {
			f(live["spec"].(map[string]any))
			return live
		}
	}
	steps := []step{
		{"alice applies and creates", "apply", "alice", false, applyOf("red", 2, "wheel", "bolt")},
		{"an editor changes the color with an update", "update", "editor", false, edit(func(s map[string]any) { s["color"] = "green" })},
		{"bob applies another color and conflicts", "apply", "bob", false, applyOf("blue", 2, "axle")},
		{"bob forces", "apply", "bob", true, applyOf("blue", 2, "axle")},
		{"alice applies the same replicas without bolt", "apply", "alice", false, applyOf("blue", 2, "wheel")},
		{"an update adds a part and changes replicas", "update", "editor", false, edit(func(s map[string]any) {
			s["replicas"] = int64(4)
			s["parts"] = append(s["parts"].([]any), map[string]any{"name": "spring", "count": int64(3)})
		})},
		{"alice stops applying replicas and wheel", "apply", "alice", false, applyOf("blue", 0)},
		{"a client-side apply sets the color and its annotation", "update", "kubectl-client-side-apply", false, func(live map[string]any) map[string]any {
			live["spec"].(map[string]any)["color"] = "green"
			live["metadata"].(map[string]any)["annotations"] = map[string]any{
				"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"annotations":{},"name":"w","namespace":"` + ns + `"},"spec":{"color":"green"}}` + "\n",
			}
			return live
		}},
		{"another manager's apply of the color conflicts", "apply", "carol", false, applyOf("red", 0)},
		{"kubectl's server-side apply inherits the client-side applied color", "apply", "kubectl", false, applyOf("red", 0)},
		{"an update with managedFields [{}] clears them", "update", "editor", false, func(live map[string]any) map[string]any {
			live["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{}}
			return live
		}},
		{"the first apply after that conflicts with before-first-apply", "apply", "alice", false, applyOf("red", 3, "wheel")},
		{"alice forces her first apply", "apply", "alice", true, applyOf("red", 3, "wheel")},
		// Past 256 elements package patch compares list-maps in key order: the fields
		// recorded must not show it.
		{"an update sets 300 parts out of key order", "update", "editor", false, edit(func(s map[string]any) {
			parts := make([]any, 300)
			for i := range parts {
				parts[i] = map[string]any{"name": fmt.Sprintf("p%d", (i*119)%300), "count": int64(1)}
			}
			s["parts"] = parts
		})},
		{"another update reverses them and changes one count", "update", "mover", false, edit(func(s map[string]any) {
			parts := s["parts"].([]any)
			slices.Reverse(parts)
			parts[10].(map[string]any)["count"] = int64(5)
		})},
		{"alice applies two of them", "apply", "alice", true, applyOf("red", 3, "p7", "p250")},
	}

	for _, st := range steps {
		// Ours, over HTTP.
		var oursObj map[string]any
		var oursConflicts []string
		path := "/apis/toys.example.com/v1/namespaces/" + ns + "/widgets/w?fieldManager=" + st.manager
		if st.op == "apply" {
			cfg, _ := json.Marshal(st.body(nil))
			if st.force {
				path += "&force=true"
			}
			code, _, resp := es.do(t, "PATCH", path, http.Header{"Content-Type": {"application/apply-patch+yaml"}}, cfg)
			oursObj, oursConflicts = decodeStep(t, st.name, code, resp)
		} else {
			_, _, cur := es.do(t, "GET", "/apis/toys.example.com/v1/namespaces/"+ns+"/widgets/w", nil, nil)
			var live map[string]any
			if err := json.Unmarshal(cur, &live); err != nil {
				t.Fatal(err)
			}
			upd, _ := json.Marshal(st.body(normalizeInts(live).(map[string]any)))
			code, _, resp := es.do(t, "PUT", path, http.Header{"Content-Type": {"application/json"}}, upd)
			oursObj, oursConflicts = decodeStep(t, st.name, code, resp)
		}

		// Kube's, in process.
		var kubeConflicts []string
		if st.op == "apply" {
			err = kube.Apply(&unstructured.Unstructured{Object: st.body(nil)}, st.manager, st.force)
		} else {
			live := kube.Live().(*unstructured.Unstructured).DeepCopy().Object
			err = kube.Update(&unstructured.Unstructured{Object: st.body(live)}, st.manager)
		}
		if err != nil {
			if s, ok := err.(interface{ Status() metav1.Status }); ok && s.Status().Code == 409 {
				for _, c := range s.Status().Details.Causes {
					kubeConflicts = append(kubeConflicts, c.Message+" "+c.Field)
				}
				kubeConflicts = append(kubeConflicts, "message: "+s.Status().Message)
			} else {
				t.Fatalf("%s: kube: %v", st.name, err)
			}
		}
		sort.Strings(kubeConflicts)
		if strings.Join(oursConflicts, "\n") != strings.Join(kubeConflicts, "\n") {
			t.Errorf("%s: conflicts differ:\nours: %q\nkube: %q", st.name, oursConflicts, kubeConflicts)
		}
		if oursObj == nil {
			continue
		}
		kubeLive := kube.Live().(*unstructured.Unstructured).Object
		oursSpec, _ := json.Marshal(oursObj["spec"])
		kubeSpec, _ := json.Marshal(normalizeInts(kubeLive["spec"]))
		if string(oursSpec) != string(kubeSpec) {
			t.Errorf("%s: spec differs:\nours: %s\nkube: %s", st.name, oursSpec, kubeSpec)
		}
		oursAnn, _ := json.Marshal(oursObj["metadata"].(map[string]any)["annotations"])
		kubeAnn, _ := json.Marshal(kubeLive["metadata"].(map[string]any)["annotations"])
		if string(oursAnn) != string(kubeAnn) {
			t.Errorf("%s: annotations differ:\nours: %s\nkube: %s", st.name, oursAnn, kubeAnn)
		}
		ours := entriesOf(t, oursObj)
		theirs := summarizeEntries(typedZeroBaseline(kube.ManagedFields()))
		if ours != theirs {
			t.Errorf("%s: managedFields differ:\nours:\n%s\nkube:\n%s", st.name, ours, theirs)
		} else {
			t.Logf("%s: managedFields identical:\n%s", st.name, ours)
		}
	}
}

// decodeStep returns the object of a 2xx answer, or the sorted conflict causes of a 409.
func decodeStep(t *testing.T, name string, code int, body []byte) (map[string]any, []string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: %v: %s", name, err, body)
	}
	if code == 409 {
		var out []string
		details, _ := m["details"].(map[string]any)
		causes, _ := details["causes"].([]any)
		for _, c := range causes {
			cm := c.(map[string]any)
			out = append(out, fmt.Sprint(cm["message"])+" "+fmt.Sprint(cm["field"]))
		}
		out = append(out, "message: "+fmt.Sprint(m["message"]))
		sort.Strings(out)
		return nil, out
	}
	if code/100 != 2 {
		t.Fatalf("%s: %d %s", name, code, body)
	}
	return m, nil
}

// normalizeInts turns JSON float64 numbers that are integral into int64, as
// apimachinery's unstructured objects hold them.
func normalizeInts(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeInts(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeInts(e)
		}
	}
	return v
}

func entriesOf(t *testing.T, obj map[string]any) string {
	t.Helper()
	md, _ := obj["metadata"].(map[string]any)
	b, _ := json.Marshal(md["managedFields"])
	var entries []metav1.ManagedFieldsEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Time == nil {
			t.Errorf("entry of %s has no time", e.Manager)
		}
	}
	return summarizeEntries(entries)
}

// summarizeEntries renders entries without their times, sorted by operation and
// manager (the order within one second of each other).
func summarizeEntries(entries []metav1.ManagedFieldsEntry) string {
	var lines []string
	for _, e := range entries {
		raw := ""
		if e.FieldsV1 != nil {
			raw = string(e.FieldsV1.Raw)
		}
		lines = append(lines, fmt.Sprintf("%s %s %s %s %s %s", e.Operation, e.Manager, e.APIVersion, e.Subresource, e.FieldsType, raw))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// typedZeroBaseline adjusts kube's "before-first-apply" entry for one difference of the
// harness, not of the field manager: kube-apiserver compares an object's existing fields
// against a new object of its kind (objectCreater.New), which for a Go type like Widget
// already holds "spec" (a non-omitempty struct), so .spec itself is not recorded; the
// managedfieldstest harness creates an empty unstructured object instead, so it records
// ".spec" (`"f:spec":{".":{}`). The example server serves Widget as a Go type.
func typedZeroBaseline(entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	out := make([]metav1.ManagedFieldsEntry, len(entries))
	for i, e := range entries {
		if e.Manager == "before-first-apply" && e.FieldsV1 != nil {
			raw := strings.Replace(string(e.FieldsV1.Raw), `"f:spec":{".":{},`, `"f:spec":{`, 1)
			e.FieldsV1 = &metav1.FieldsV1{Raw: []byte(raw)}
		}
		out[i] = e
	}
	return out
}
