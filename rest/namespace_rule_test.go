package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// nsRuleKind is one kind of the namespace-rule tests: where it is served and how its
// objects are written.
type nsRuleKind struct {
	name       string
	apiVersion string
	kind       string
	collection string // the collection path, in namespace default when namespaced
	namespaced bool
	putCreate  bool   // a PUT may create a missing object
	strategic  bool   // strategic merge patch is served (not for schema-only kinds)
	rest       string // the object's fields besides apiVersion, kind and metadata, a JSON fragment
}

const (
	nsRuleGroup = "nsrule.example.com"
	// nsMismatch is kube's answer to an object whose namespace is not the request's.
	nsMismatch = "the namespace of the provided object does not match the namespace sent on the request"
)

// nsRuleSchema is the schema of the schema-only kinds: a free-form spec.
const nsRuleSchema = `{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}`

// addNSRuleKinds registers the schema-only Gadget (namespaced) and Gizmo
// (cluster-scoped) of nsRuleGroup, as a CRD of each scope would.
func addNSRuleKinds(t *testing.T, s *scheme.Scheme) {
	t.Helper()
	gv := scheme.GroupVersion{Group: nsRuleGroup, Version: "v1"}
	for _, k := range []struct {
		kind, plural string
		namespaced   bool
	}{{"Gadget", "gadgets", true}, {"Gizmo", "gizmos", false}} {
		openapi.Register(s, gv.WithKind(k.kind), crdSchema(t, nsRuleSchema))
		s.AddUnstructuredKind(gv.WithKind(k.kind + "List"))
		if err := s.AddResource(scheme.Resource{Group: nsRuleGroup, Kind: k.kind, ListKind: k.kind + "List", Plural: k.plural,
			Singular: strings.ToLower(k.kind), Namespaced: k.namespaced, StorageVersion: "v1"}); err != nil {
			t.Fatal(err)
		}
	}
}

// newNSRuleServer serves the typed kinds of testapi, the built-in kinds and the
// schema-only kinds of addNSRuleKinds, with namespace default stored.
func newNSRuleServer(t *testing.T, mod func(*rest.Options)) *testServer {
	t.Helper()
	s := newServer(t, func(o *rest.Options) {
		if err := builtin.AddToScheme(o.Scheme); err != nil {
			t.Fatal(err)
		}
		for gr, st := range strategies.Builtin() {
			o.Strategies[gr] = st
		}
		addNSRuleKinds(t, o.Scheme)
		if mod != nil {
			mod(o)
		}
	})
	if r := s.do("POST", "/api/v1/namespaces", "application/json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`); r.code != http.StatusCreated {
		t.Fatalf("creating namespace default: %d %s", r.code, r.body)
	}
	return s
}

func nsRuleKinds() []nsRuleKind {
	return []nsRuleKind{
		{name: "typed namespaced Widget", apiVersion: "toys.example.com/v1", kind: "Widget", collection: widgetsPath, namespaced: true, strategic: true, rest: `"spec":{"color":"blue"}`},
		{name: "typed cluster-scoped Warehouse", apiVersion: "toys.example.com/v1", kind: "Warehouse", collection: warehousesPath, strategic: true, rest: `"spec":{"location":"here"}`},
		{name: "schema-only namespaced Gadget", apiVersion: nsRuleGroup + "/v1", kind: "Gadget", collection: "/apis/" + nsRuleGroup + "/v1/namespaces/default/gadgets", namespaced: true, rest: `"spec":{"size":1}`},
		{name: "schema-only cluster-scoped Gizmo", apiVersion: nsRuleGroup + "/v1", kind: "Gizmo", collection: "/apis/" + nsRuleGroup + "/v1/gizmos", rest: `"spec":{"size":1}`},
		{name: "built-in ConfigMap", apiVersion: "v1", kind: "ConfigMap", collection: "/api/v1/namespaces/default/configmaps", namespaced: true, strategic: true, rest: `"data":{"a":"b"}`},
		{name: "built-in Role", apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", collection: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", namespaced: true, putCreate: true, strategic: true, rest: `"rules":[]`},
		{name: "built-in Namespace", apiVersion: "v1", kind: "Namespace", collection: "/api/v1/namespaces", strategic: true, rest: `"spec":{}`},
		{name: "built-in ClusterRole", apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", collection: "/apis/rbac.authorization.k8s.io/v1/clusterroles", putCreate: true, strategic: true, rest: `"rules":[]`},
	}
}

// object is k's object name with metadata.namespace ns (none when ns is "") and label
// written=label.
func (k nsRuleKind) object(name, ns, label string) string {
	meta := `"name":"` + name + `","labels":{"written":"` + label + `"}`
	if ns != "" {
		meta += `,"namespace":"` + ns + `"`
	}
	return `{"apiVersion":"` + k.apiVersion + `","kind":"` + k.kind + `","metadata":{` + meta + `},` + k.rest + `}`
}

// nsRuleVerb is one way of writing an object.
type nsRuleVerb struct {
	name   string
	create bool // the object does not exist before
	// request is the method, path (under the object or its collection), content type
	// and body that write k's object name with namespace ns and label.
	request func(k nsRuleKind, name, ns, label string) (method, path, ctype, body string)
	// applies says whether the verb serves k.
	applies func(k nsRuleKind) bool
}

func nsRuleVerbs() []nsRuleVerb {
	always := func(nsRuleKind) bool { return true }
	// metaPatch is a merge or strategic merge patch setting the label and the namespace
	// (null when ns is "", which removes it).
	metaPatch := func(ns, label string) string {
		v := "null"
		if ns != "" {
			v = `"` + ns + `"`
		}
		return `{"metadata":{"namespace":` + v + `,"labels":{"written":"` + label + `"}}}`
	}
	return []nsRuleVerb{
		{name: "create", create: true, applies: always, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			return "POST", k.collection, "application/json", k.object(name, ns, label)
		}},
		{name: "dry-run create", create: true, applies: always, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			return "POST", k.collection + "?dryRun=All", "application/json", k.object(name, ns, label)
		}},
		{name: "update", applies: always, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			return "PUT", k.collection + "/" + name, "application/json", k.object(name, ns, label)
		}},
		{name: "create by update", create: true, applies: func(k nsRuleKind) bool { return k.putCreate }, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			return "PUT", k.collection + "/" + name, "application/json", k.object(name, ns, label)
		}},
		{name: "merge patch", applies: always, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			return "PATCH", k.collection + "/" + name, "application/merge-patch+json", metaPatch(ns, label)
		}},
		{name: "strategic merge patch", applies: func(k nsRuleKind) bool { return k.strategic }, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			return "PATCH", k.collection + "/" + name, "application/strategic-merge-patch+json", metaPatch(ns, label)
		}},
		{name: "JSON patch", applies: always, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			// Without ns, the patch removes the namespace a namespaced object has.
			op := `{"op":"add","path":"/metadata/namespace","value":"` + ns + `"},`
			switch {
			case ns == "" && k.namespaced:
				op = `{"op":"remove","path":"/metadata/namespace"},`
			case ns == "":
				op = ""
			}
			return "PATCH", k.collection + "/" + name, "application/json-patch+json",
				`[` + op + `{"op":"add","path":"/metadata/labels","value":{"written":"` + label + `"}}]`
		}},
		{name: "apply", applies: always, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			return "PATCH", k.collection + "/" + name + "?fieldManager=test&force=true", "application/apply-patch+yaml", k.object(name, ns, label)
		}},
		{name: "apply creating", create: true, applies: always, request: func(k nsRuleKind, name, ns, label string) (string, string, string, string) {
			return "PATCH", k.collection + "/" + name + "?fieldManager=test", "application/apply-patch+yaml", k.object(name, ns, label)
		}},
	}
}

// TestNamespaceRule_EveryWriteReconcilesTheNamespaceAsKube writes typed, schema-only and
// built-in objects of both scopes by every verb, with the object's namespace missing,
// the request's, another one, or set on a cluster-scoped kind, and checks kube's
// answers: a namespaced object takes the request's namespace, a cluster-scoped one is
// stored without one, and a different namespace is 400 BadRequest with nothing written.
func TestNamespaceRule_EveryWriteReconcilesTheNamespaceAsKube(t *testing.T) {
	s := newNSRuleServer(t, nil)
	type nsCase struct {
		name string
		ns   string // the object's namespace
		bad  bool   // kube answers 400 BadRequest
	}
	namespacedCases := []nsCase{{"missing", "", false}, {"same", "default", false}, {"different", "other", true}}
	clusterCases := []nsCase{{"missing", "", false}, {"set on a cluster-scoped kind", "default", false}}
	n := 0
	for _, k := range nsRuleKinds() {
		cases := clusterCases
		if k.namespaced {
			cases = namespacedCases
		}
		for _, v := range nsRuleVerbs() {
			if !v.applies(k) {
				continue
			}
			for _, c := range cases {
				n++
				name := fmt.Sprintf("ns-rule-%d", n)
				t.Run(k.name+"/"+v.name+"/"+c.name, func(t *testing.T) {
					if !v.create {
						if r := s.do("POST", k.collection, "application/json", k.object(name, "", "before")); r.code != http.StatusCreated {
							t.Fatalf("creating %s: %d %s", name, r.code, r.body)
						}
					}
					method, path, ctype, body := v.request(k, name, c.ns, "after")
					r := s.do(method, path, ctype, body)
					wantNS := ""
					if k.namespaced {
						wantNS = "default"
					}
					if c.bad {
						if r.code != http.StatusBadRequest {
							t.Fatalf("%s %s = %d, want 400: %s", method, path, r.code, r.body)
						}
						if m := r.json(t); m["reason"] != "BadRequest" || m["message"] != nsMismatch {
							t.Errorf("status = %s, want BadRequest %q", r.body, nsMismatch)
						}
					} else {
						if r.code != http.StatusOK && r.code != http.StatusCreated {
							t.Fatalf("%s %s = %d, want 200 or 201: %s", method, path, r.code, r.body)
						}
						if got := get(r.json(t), "metadata", "namespace"); got != nilIfEmpty(wantNS) {
							t.Errorf("answered metadata.namespace = %v, want %q", got, wantNS)
						}
					}
					g := s.do("GET", k.collection+"/"+name, "", "")
					stored := !strings.Contains(v.name, "dry-run") && !(v.create && c.bad)
					if !stored {
						if g.code != http.StatusNotFound {
							t.Errorf("GET after the refused or dry-run create = %d, want 404: %s", g.code, g.body)
						}
						return
					}
					if g.code != http.StatusOK {
						t.Fatalf("GET = %d: %s", g.code, g.body)
					}
					m := g.json(t)
					if got := get(m, "metadata", "namespace"); got != nilIfEmpty(wantNS) {
						t.Errorf("stored metadata.namespace = %v, want %q", got, wantNS)
					}
					wantLabel := "after"
					if c.bad {
						wantLabel = "before"
					}
					if got := get(m, "metadata", "labels", "written"); got != wantLabel {
						t.Errorf("stored label written = %v, want %q (the write is stored only when answered 2xx)", got, wantLabel)
					}
				})
			}
		}
	}
}

// nilIfEmpty is what a decoded JSON object holds for an omitted string field.
func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestNamespaceRule_SubresourceWritesReconcileTheNamespaceAsKube writes /status and
// /scale of a namespaced Widget with the body's namespace missing, the request's or
// another one: kube refuses another namespace with 400 and nothing written.
func TestNamespaceRule_SubresourceWritesReconcileTheNamespaceAsKube(t *testing.T) {
	s := newNSRuleServer(t, nil)
	status := func(name, ns string) string {
		extra := `"resourceVersion":""`
		if ns != "" {
			extra = `"namespace":"` + ns + `"`
		}
		return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `",` + extra + `},"spec":{"color":"blue","replicas":1},"status":{"replicas":7}}`
	}
	scale := func(name, ns string) string {
		meta := `"name":"` + name + `"`
		if ns != "" {
			meta += `,"namespace":"` + ns + `"`
		}
		return `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{` + meta + `},"spec":{"replicas":7}}`
	}
	tests := []struct {
		name, sub, method, ctype string
		body                     func(name, ns string) string
		ns                       string
		bad                      bool
		field                    []string // where the write shows on the stored Widget
	}{
		{"PUT /status without a namespace", "status", "PUT", "application/json", status, "", false, []string{"status", "replicas"}},
		{"PUT /status in the same namespace", "status", "PUT", "application/json", status, "default", false, []string{"status", "replicas"}},
		{"PUT /status in another namespace", "status", "PUT", "application/json", status, "other", true, []string{"status", "replicas"}},
		{"merge patch /status to another namespace", "status", "PATCH", "application/merge-patch+json",
			func(string, string) string { return `{"metadata":{"namespace":"other"},"status":{"replicas":7}}` }, "other", true, []string{"status", "replicas"}},
		{"PUT /scale without a namespace", "scale", "PUT", "application/json", scale, "", false, []string{"spec", "replicas"}},
		{"PUT /scale in the same namespace", "scale", "PUT", "application/json", scale, "default", false, []string{"spec", "replicas"}},
		{"PUT /scale in another namespace", "scale", "PUT", "application/json", scale, "other", true, []string{"spec", "replicas"}},
		{"merge patch /scale to another namespace", "scale", "PATCH", "application/merge-patch+json",
			func(string, string) string { return `{"metadata":{"namespace":"other"},"spec":{"replicas":7}}` }, "other", true, []string{"spec", "replicas"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("sub-%d", i)
			before, _ := get(s.create(name, "blue"), tt.field...).(float64)
			r := s.do(tt.method, widgetsPath+"/"+name+"/"+tt.sub, tt.ctype, tt.body(name, tt.ns))
			want := float64(7)
			if tt.bad {
				if r.code != http.StatusBadRequest {
					t.Fatalf("code = %d, want 400: %s", r.code, r.body)
				}
				if m := r.json(t); m["reason"] != "BadRequest" || m["message"] != nsMismatch {
					t.Errorf("status = %s, want BadRequest %q", r.body, nsMismatch)
				}
				want = before
			} else if r.code != http.StatusOK {
				t.Fatalf("code = %d, want 200: %s", r.code, r.body)
			}
			m := s.do("GET", widgetsPath+"/"+name, "", "").json(t)
			if got := get(m, "metadata", "namespace"); got != "default" {
				t.Errorf("stored metadata.namespace = %v, want default", got)
			}
			got, _ := get(m, tt.field...).(float64)
			if got != want {
				t.Errorf("stored %s = %v, want %v", strings.Join(tt.field, "."), got, want)
			}
		})
	}
}

// namespaceSetter is a mutating admission plugin that sets every object's namespace
// to ns, as a faulty webhook could.
type namespaceSetter struct{ ns string }

func (a namespaceSetter) Admit(_ context.Context, _ rest.AdmissionAttributes, obj scheme.Object) error {
	if obj != nil {
		obj.SetNamespace(a.ns)
	}
	return nil
}

// TestNamespaceRule_HoldsAfterMutatingAdmission checks kube's BeforeCreate and
// BeforeUpdate, which reconcile the namespace again after mutating admission: a
// namespace admission set on a cluster-scoped object is cleared, another namespace on
// a namespaced one is 400.
func TestNamespaceRule_HoldsAfterMutatingAdmission(t *testing.T) {
	s := newNSRuleServer(t, func(o *rest.Options) {
		o.MutatingAdmission = append(o.MutatingAdmission, namespaceSetter{ns: "other"})
	})
	tests := []struct {
		name, method, path, body string
		code                     int
		message                  string
	}{
		{"create of a cluster-scoped Warehouse is stored without the namespace", "POST", warehousesPath, `{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"w"},"spec":{"location":"here"}}`, 201, ""},
		{"update of the cluster-scoped Warehouse is stored without the namespace", "PUT", warehousesPath + "/w", `{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"w"},"spec":{"location":"there"}}`, 200, ""},
		{"create of a cluster-scoped ClusterRole is stored without the namespace", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"cr"},"rules":[]}`, 201, ""},
		{"create of a namespaced Widget is BadRequest", "POST", widgetsPath, widgetJSON("x", "blue"), 400, nsMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(tt.method, tt.path, "application/json", tt.body)
			if r.code != tt.code {
				t.Fatalf("code = %d, want %d: %s", r.code, tt.code, r.body)
			}
			m := r.json(t)
			if tt.message != "" {
				if m["reason"] != "BadRequest" || m["message"] != tt.message {
					t.Errorf("status = %s, want BadRequest %q", r.body, tt.message)
				}
				return
			}
			if got := get(m, "metadata", "namespace"); got != nil {
				t.Errorf("metadata.namespace = %v, want none", got)
			}
		})
	}
}

// TestNamespaceRule_AnEmptyNamespaceIsNotStored writes "namespace": "" on schema-only
// objects of both scopes: kube stores a cluster-scoped one without the field (its
// decoding of metadata drops it) and gives a namespaced one the URL's.
func TestNamespaceRule_AnEmptyNamespaceIsNotStored(t *testing.T) {
	s := newNSRuleServer(t, nil)
	const (
		gizmos  = "/apis/" + nsRuleGroup + "/v1/gizmos"
		gadgets = "/apis/" + nsRuleGroup + "/v1/namespaces/default/gadgets"
	)
	emptyNS := `[{"op":"add","path":"/metadata/namespace","value":""}]`
	tests := []struct {
		name             string
		collection, kind string
		fixture          bool // the object is created first, then patched
		want             any  // the stored metadata.namespace; nil when absent
	}{
		{"create of a cluster-scoped object", gizmos, "Gizmo", false, nil},
		{"JSON patch of a cluster-scoped object", gizmos, "Gizmo", true, nil},
		{"JSON patch of a namespaced object", gadgets, "Gadget", true, "default"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("empty-%d", i)
			obj := func(meta string) string {
				return `{"apiVersion":"nsrule.example.com/v1","kind":"` + tt.kind + `","metadata":{"name":"` + name + `"` + meta + `}}`
			}
			var r response
			if tt.fixture {
				if f := s.do("POST", tt.collection, "application/json", obj("")); f.code != http.StatusCreated {
					t.Fatalf("creating the fixture: %d %s", f.code, f.body)
				}
				r = s.do("PATCH", tt.collection+"/"+name, "application/json-patch+json", emptyNS)
			} else {
				r = s.do("POST", tt.collection, "application/json", obj(`,"namespace":""`))
			}
			if r.code != http.StatusOK && r.code != http.StatusCreated {
				t.Fatalf("code = %d: %s", r.code, r.body)
			}
			g := s.do("GET", tt.collection+"/"+name, "", "")
			meta, _ := get(g.json(t), "metadata").(map[string]any)
			if got, ok := meta["namespace"]; got != tt.want || (tt.want == nil && ok) {
				t.Errorf("stored metadata.namespace = %#v (present %v), want %#v: %s", got, ok, tt.want, g.body)
			}
		})
	}
}
