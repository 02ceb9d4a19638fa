package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

// The side-by-side check of issue 25 item 6: kube-apiserver reconciles an object's
// metadata.namespace with the request's on every write (a cluster-scoped object is
// stored without one, a namespaced one takes the URL's, another one is 400); apikit
// must answer and store the same.

// nsDiffKind is one kind of the comparison, with the object fields besides metadata.
type nsDiffKind struct {
	name, apiVersion, kind, collection string
	namespaced, putCreate, strategic   bool
	rest                               string
}

func nsDiffKinds() []nsDiffKind {
	const group = "nsdiff.example.com"
	return []nsDiffKind{
		{name: "Namespace", apiVersion: "v1", kind: "Namespace", collection: "/api/v1/namespaces", strategic: true, rest: `"spec":{}`},
		{name: "ClusterRole", apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", collection: "/apis/rbac.authorization.k8s.io/v1/clusterroles", putCreate: true, strategic: true, rest: `"rules":[]`},
		{name: "ConfigMap", apiVersion: "v1", kind: "ConfigMap", collection: "/api/v1/namespaces/default/configmaps", namespaced: true, strategic: true, rest: `"data":{"a":"b"}`},
		{name: "namespaced custom resource", apiVersion: group + "/v1", kind: "Gadget", collection: "/apis/" + group + "/v1/namespaces/default/gadgets", namespaced: true, rest: `"spec":{"size":1}`},
		{name: "cluster-scoped custom resource", apiVersion: group + "/v1", kind: "Gizmo", collection: "/apis/" + group + "/v1/gizmos", rest: `"spec":{"size":1}`},
	}
}

// nsDiffCRD is the CRD of kind in nsdiff.example.com, with the status and scale
// subresources when subresources is set.
func nsDiffCRD(kind, plural, scope string, subresources bool) map[string]any {
	integer := map[string]any{"type": "integer"}
	version := map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
		"type": "object", "properties": map[string]any{
			"spec":   map[string]any{"type": "object", "properties": map[string]any{"size": integer, "replicas": integer}},
			"status": map[string]any{"type": "object", "properties": map[string]any{"replicas": integer}},
		}}}}
	if subresources {
		version["subresources"] = map[string]any{"status": map[string]any{},
			"scale": map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}
	}
	return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + ".nsdiff.example.com"},
		"spec": map[string]any{"group": "nsdiff.example.com", "scope": scope,
			"names":    map[string]any{"kind": kind, "plural": plural, "singular": strings.ToLower(kind)},
			"versions": []any{version}}}
}

// nsDiffExtra is one more write of the comparison, on an object the test creates
// first (unless fixture is ""): the body may name the fixture's resourceVersion rv.
type nsDiffExtra struct {
	name, fixture, path, method, ctype string
	body                               func(rv string) string
	// read is the object read back after the write.
	read string
}

func nsDiffExtras() []nsDiffExtra {
	const (
		dh  = "/apis/nsdiff.example.com/v1/namespaces/default/doohickeys"
		gz  = "/apis/nsdiff.example.com/v1/gizmos"
		gd  = "/apis/nsdiff.example.com/v1/namespaces/default/gadgets"
		cms = "/api/v1/namespaces/default/configmaps"
	)
	doohickey := func(name string) string {
		return `{"apiVersion":"nsdiff.example.com/v1","kind":"Doohickey","metadata":{"name":"` + name + `"},"spec":{"replicas":1}}`
	}
	status := func(name, ns string) func(string) string {
		return func(rv string) string {
			meta := `"name":"` + name + `","resourceVersion":"` + rv + `"`
			if ns != "" {
				meta += `,"namespace":"` + ns + `"`
			}
			return `{"apiVersion":"nsdiff.example.com/v1","kind":"Doohickey","metadata":{` + meta + `},"spec":{"replicas":1},"status":{"replicas":7}}`
		}
	}
	scale := func(name, ns string) func(string) string {
		return func(string) string {
			meta := `"name":"` + name + `"`
			if ns != "" {
				meta += `,"namespace":"` + ns + `"`
			}
			return `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{` + meta + `},"spec":{"replicas":7}}`
		}
	}
	fixed := func(body string) func(string) string { return func(string) string { return body } }
	return []nsDiffExtra{
		{"PUT /status without a namespace", doohickey("dh-1"), dh + "/dh-1/status", "PUT", "application/json", status("dh-1", ""), dh + "/dh-1"},
		{"PUT /status in the same namespace", doohickey("dh-2"), dh + "/dh-2/status", "PUT", "application/json", status("dh-2", "default"), dh + "/dh-2"},
		{"PUT /status in another namespace", doohickey("dh-3"), dh + "/dh-3/status", "PUT", "application/json", status("dh-3", "other"), dh + "/dh-3"},
		{"merge patch /status to another namespace", doohickey("dh-4"), dh + "/dh-4/status", "PATCH", "application/merge-patch+json", fixed(`{"metadata":{"namespace":"other"},"status":{"replicas":7}}`), dh + "/dh-4"},
		{"PUT /scale without a namespace", doohickey("dh-5"), dh + "/dh-5/scale", "PUT", "application/json", scale("dh-5", ""), dh + "/dh-5"},
		{"PUT /scale in the same namespace", doohickey("dh-6"), dh + "/dh-6/scale", "PUT", "application/json", scale("dh-6", "default"), dh + "/dh-6"},
		{"PUT /scale in another namespace", doohickey("dh-7"), dh + "/dh-7/scale", "PUT", "application/json", scale("dh-7", "other"), dh + "/dh-7"},
		{"merge patch /scale to another namespace", doohickey("dh-8"), dh + "/dh-8/scale", "PATCH", "application/merge-patch+json", fixed(`{"metadata":{"namespace":"other"},"spec":{"replicas":7}}`), dh + "/dh-8"},
		{"PUT of another name in another namespace", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-x"}}`, cms + "/cm-x", "PUT", "application/json",
			fixed(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-y","namespace":"other"}}`), cms + "/cm-x"},
		{"POST with an empty namespace", "", cms, "POST", "application/json", fixed(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-empty","namespace":""}}`), cms + "/cm-empty"},
		{"JSON patch setting an empty namespace on a namespaced custom resource", `{"apiVersion":"nsdiff.example.com/v1","kind":"Gadget","metadata":{"name":"gd-empty"}}`, gd + "/gd-empty", "PATCH", "application/json-patch+json",
			fixed(`[{"op":"add","path":"/metadata/namespace","value":""}]`), gd + "/gd-empty"},
		{"JSON patch setting an empty namespace on a cluster-scoped custom resource", `{"apiVersion":"nsdiff.example.com/v1","kind":"Gizmo","metadata":{"name":"gz-empty"}}`, gz + "/gz-empty", "PATCH", "application/json-patch+json",
			fixed(`[{"op":"add","path":"/metadata/namespace","value":""}]`), gz + "/gz-empty"},
		{"apply of a Namespace naming itself its namespace", "", "/api/v1/namespaces/ns-applied?fieldManager=e2e", "PATCH", "application/apply-patch+yaml",
			fixed("apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-applied, namespace: ns-applied}\n"), "/api/v1/namespaces/ns-applied"},
		{"apply of a cluster-scoped custom resource with a namespace", "", gz + "/gz-applied?fieldManager=e2e", "PATCH", "application/apply-patch+yaml",
			fixed("apiVersion: nsdiff.example.com/v1\nkind: Gizmo\nmetadata: {name: gz-applied, namespace: default}\nspec: {size: 2}\n"), gz + "/gz-applied"},
	}
}

// object is k's object with metadata.namespace ns (none when ""), label written=label
// and resourceVersion rv (none when "").
func (k nsDiffKind) object(name, ns, label, rv string) string {
	meta := `"name":"` + name + `","labels":{"written":"` + label + `"}`
	if ns != "" {
		meta += `,"namespace":"` + ns + `"`
	}
	if rv != "" {
		meta += `,"resourceVersion":"` + rv + `"`
	}
	return `{"apiVersion":"` + k.apiVersion + `","kind":"` + k.kind + `","metadata":{` + meta + `},` + k.rest + `}`
}

// nsDiffVerb is one way of writing: the request for k's object name with namespace
// ns, label after and (for a PUT) the stored resourceVersion rv.
type nsDiffVerb struct {
	name    string
	create  bool
	applies func(nsDiffKind) bool
	request func(k nsDiffKind, name, ns, rv string) (method, path, ctype, body string)
}

func nsDiffVerbs() []nsDiffVerb {
	always := func(nsDiffKind) bool { return true }
	metaPatch := func(ns string) string {
		v := "null"
		if ns != "" {
			v = `"` + ns + `"`
		}
		return `{"metadata":{"namespace":` + v + `,"labels":{"written":"after"}}}`
	}
	return []nsDiffVerb{
		{"create", true, always, func(k nsDiffKind, name, ns, _ string) (string, string, string, string) {
			return "POST", k.collection, "application/json", k.object(name, ns, "after", "")
		}},
		{"dry-run create", true, always, func(k nsDiffKind, name, ns, _ string) (string, string, string, string) {
			return "POST", k.collection + "?dryRun=All", "application/json", k.object(name, ns, "after", "")
		}},
		{"update", false, always, func(k nsDiffKind, name, ns, rv string) (string, string, string, string) {
			return "PUT", k.collection + "/" + name, "application/json", k.object(name, ns, "after", rv)
		}},
		{"create by update", true, func(k nsDiffKind) bool { return k.putCreate }, func(k nsDiffKind, name, ns, _ string) (string, string, string, string) {
			return "PUT", k.collection + "/" + name, "application/json", k.object(name, ns, "after", "")
		}},
		{"merge patch", false, always, func(k nsDiffKind, name, ns, _ string) (string, string, string, string) {
			return "PATCH", k.collection + "/" + name, "application/merge-patch+json", metaPatch(ns)
		}},
		{"strategic merge patch", false, func(k nsDiffKind) bool { return k.strategic }, func(k nsDiffKind, name, ns, _ string) (string, string, string, string) {
			return "PATCH", k.collection + "/" + name, "application/strategic-merge-patch+json", metaPatch(ns)
		}},
		{"JSON patch", false, always, func(k nsDiffKind, name, ns, _ string) (string, string, string, string) {
			op := `{"op":"add","path":"/metadata/namespace","value":"` + ns + `"},`
			switch {
			case ns == "" && k.namespaced:
				op = `{"op":"remove","path":"/metadata/namespace"},`
			case ns == "":
				op = ""
			}
			return "PATCH", k.collection + "/" + name, "application/json-patch+json", `[` + op + `{"op":"add","path":"/metadata/labels","value":{"written":"after"}}]`
		}},
		{"apply", false, always, func(k nsDiffKind, name, ns, _ string) (string, string, string, string) {
			return "PATCH", k.collection + "/" + name + "?fieldManager=e2e&force=true", "application/apply-patch+yaml", k.object(name, ns, "after", "")
		}},
		{"apply creating", true, always, func(k nsDiffKind, name, ns, _ string) (string, string, string, string) {
			return "PATCH", k.collection + "/" + name + "?fieldManager=e2e", "application/apply-patch+yaml", k.object(name, ns, "after", "")
		}},
	}
}

// nsDiffAnswer is what a server answers a request and then stores: code, reason and
// message, and the object read back (its namespace and label, or that it is absent).
type nsDiffAnswer struct {
	Code            int
	Reason, Message string
	Stored          string
}

// do sends one raw request to sv and decodes the answer (a body that is not JSON is
// returned under "text").
func (sv *sideBySide) do(t *testing.T, hc *http.Client, method, path, ctype, body string) (int, map[string]any) {
	t.Helper()
	code, m, _ := sv.doWith(t, hc, method, path, ctype, body, nil)
	return code, m
}

// doWith is do with the request's extra headers (an upgrade's Connection and Upgrade),
// answering the response's header too.
func (sv *sideBySide) doWith(t *testing.T, hc *http.Client, method, path, ctype, body string, header http.Header) (int, map[string]any, http.Header) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(sv.cfg.Host, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", sv.name, method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		// kube-apiserver answers a path it does not serve yet in plain text.
		return resp.StatusCode, map[string]any{"text": string(data)}, resp.Header
	}
	return resp.StatusCode, m, resp.Header
}

// TestSideBySide_NamespaceOfEveryWriteAsKubeAPIServer sends the same raw writes (create,
// PUT, PUT creating, merge, strategic and JSON patches, apply and apply creating) of a
// Namespace, a ClusterRole, a ConfigMap and custom resources of both scopes, with
// the object's namespace missing, the request's, another one or set on a cluster-scoped
// kind, to apikit and to the real kube-apiserver, and compares code, reason, message
// and the stored object's namespace and label.
func TestSideBySide_NamespaceOfEveryWriteAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	type nsCase struct{ name, ns string }
	namespacedCases := []nsCase{{"missing", ""}, {"same", "default"}, {"different", "other"}}
	clusterCases := []nsCase{{"missing", ""}, {"set", "default"}}
	var transcripts [][]string
	for _, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []map[string]any{nsDiffCRD("Gadget", "gadgets", "Namespaced", false), nsDiffCRD("Gizmo", "gizmos", "Cluster", false),
			nsDiffCRD("Doohickey", "doohickeys", "Namespaced", true)} {
			sv.create(t, ctx, gvrCRDs, "", c)
			name := c["metadata"].(map[string]any)["name"].(string)
			waitFor(t, sv.name+": "+name+" established", func() bool {
				got, err := sv.dc.Resource(gvrCRDs).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false
				}
				conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
				return slices.ContainsFunc(conds, func(c any) bool {
					m, _ := c.(map[string]any)
					return m["type"] == "Established" && m["status"] == "True"
				})
			})
		}
		var lines []string
		n := 0
		for _, k := range nsDiffKinds() {
			// A new CRD's resource may take a moment to be served.
			waitFor(t, sv.name+": "+k.collection+" served", func() bool {
				code, _ := sv.do(t, hc, "GET", k.collection, "", "")
				return code == http.StatusOK
			})
			cases := clusterCases
			if k.namespaced {
				cases = namespacedCases
			}
			for _, v := range nsDiffVerbs() {
				if !v.applies(k) {
					continue
				}
				for _, c := range cases {
					n++
					name := fmt.Sprintf("e2e-ns-rule-%d", n)
					rv := ""
					if !v.create {
						code, m := sv.do(t, hc, "POST", k.collection, "application/json", k.object(name, "", "before", ""))
						if code != http.StatusCreated {
							t.Fatalf("%s: creating %s %s: %d %v", sv.name, k.name, name, code, m)
						}
						rv, _ = get(m, "metadata", "resourceVersion").(string)
					}
					method, path, ctype, body := v.request(k, name, c.ns, rv)
					code, m := sv.do(t, hc, method, path, ctype, body)
					ans := nsDiffAnswer{Code: code}
					if m["kind"] == "Status" {
						ans.Reason, _ = m["reason"].(string)
						ans.Message, _ = m["message"].(string)
					}
					if gc, g := sv.do(t, hc, "GET", k.collection+"/"+name, "", ""); gc == http.StatusOK {
						ans.Stored = fmt.Sprintf("namespace %v, label %v", get(g, "metadata", "namespace"), get(g, "metadata", "labels", "written"))
					} else {
						ans.Stored = fmt.Sprintf("GET %d", gc)
					}
					lines = append(lines, fmt.Sprintf("%s %s, namespace %s: %d %s %q; stored %s", k.name, v.name, c.name, ans.Code, ans.Reason, ans.Message, ans.Stored))
				}
			}
		}
		waitFor(t, sv.name+": doohickeys served", func() bool {
			code, _ := sv.do(t, hc, "GET", "/apis/nsdiff.example.com/v1/doohickeys", "", "")
			return code == http.StatusOK
		})
		for _, x := range nsDiffExtras() {
			rv := ""
			if x.fixture != "" {
				collection, _, _ := strings.Cut(x.read, "/"+get(jsonObject(t, x.fixture), "metadata", "name").(string))
				code, m := sv.do(t, hc, "POST", collection, "application/json", x.fixture)
				if code != http.StatusCreated {
					t.Fatalf("%s: %s: creating the fixture: %d %v", sv.name, x.name, code, m)
				}
				rv, _ = get(m, "metadata", "resourceVersion").(string)
			}
			code, m := sv.do(t, hc, x.method, x.path, x.ctype, x.body(rv))
			ans := nsDiffAnswer{Code: code}
			if m["kind"] == "Status" {
				ans.Reason, _ = m["reason"].(string)
				ans.Message, _ = m["message"].(string)
			}
			if gc, g := sv.do(t, hc, "GET", x.read, "", ""); gc == http.StatusOK {
				ans.Stored = fmt.Sprintf("namespace %#v, spec.replicas %v, status.replicas %v", get(g, "metadata", "namespace"), get(g, "spec", "replicas"), get(g, "status", "replicas"))
			} else {
				ans.Stored = fmt.Sprintf("GET %d", gc)
			}
			lines = append(lines, fmt.Sprintf("%s: %d %s %q; stored %s", x.name, ans.Code, ans.Reason, ans.Message, ans.Stored))
		}
		t.Logf("%s:\n%s", sv.name, strings.Join(lines, "\n"))
		transcripts = append(transcripts, lines)
	}
	for i := range max(len(transcripts[0]), len(transcripts[1])) {
		var kube, apikit string
		if i < len(transcripts[0]) {
			kube = transcripts[0][i]
		}
		if i < len(transcripts[1]) {
			apikit = transcripts[1][i]
		}
		if kube != apikit {
			t.Errorf("\nkube:   %s\napikit: %s", kube, apikit)
		}
	}
}

// jsonObject decodes a JSON object of the test.
func jsonObject(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// get reads a nested field of a decoded JSON object.
func get(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}
