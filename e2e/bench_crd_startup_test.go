package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz"

	kubecel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/apikit-dev/apikit/apiextensions"
	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/validation/structural"
)

// Start-up with N CRDs, from nothing to a handler that serves them (the testdata
// Robot CRD, two versions, CEL rules, renamed into N groups):
//
//	path=install: apiextensions.Install of N CRDs into a scheme, then rest.New (what
//	  a server serving CRDs from manifests does);
//	path=api: crdserver.Start, then Handler.Apply of N CRDs through the API, waiting until
//	  every one is Established (what a server taking CRDs at run time does).
//
//	go test ./e2e -run '^$' -bench CRDStartup -count 6

// testdataRobots returns the testdata CRD manifest and apikit's decoding of it.
func testdataRobots(tb testing.TB) ([]byte, *apiextensions.CustomResourceDefinition) {
	tb.Helper()
	data, err := os.ReadFile("../apiextensions/testdata/crd/fleet.example.com_robots.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	loaded, err := apiextensions.Decode(data)
	if err != nil {
		tb.Fatal(err)
	}
	return data, loaded[0]
}

// benchCRDs returns n copies of the testdata CRD in groups of their own.
func benchCRDs(b testing.TB, n int) []*apiextensions.CustomResourceDefinition {
	_, robots := testdataRobots(b)
	out := make([]*apiextensions.CustomResourceDefinition, n)
	for i := range out {
		crd := robots.DeepCopy()
		crd.Spec.Group = fmt.Sprintf("fleet%d.example.com", i)
		crd.Name = crd.Spec.Names.Plural + "." + crd.Spec.Group
		out[i] = crd
	}
	return out
}

func BenchmarkCRDStartup(b *testing.B) {
	for _, n := range []int{0, 10, 50} {
		defs := benchCRDs(b, n)
		b.Run(fmt.Sprintf("crds=%d/path=install", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := scheme.New()
				if err := apiextensions.InstallAll(s, defs, apiextensions.InstallOptions{}); err != nil {
					b.Fatal(err)
				}
				store := memory.New(memory.Options{})
				if _, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: store, Rules: cel.New()}); err != nil {
					b.Fatal(err)
				}
				store.Close()
			}
		})
		b.Run(fmt.Sprintf("crds=%d/path=api", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				store := memory.New(memory.Options{})
				h, err := crdserver.Start(b.Context(), crdserver.Options{Scheme: scheme.New(), Storage: store, REST: rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Rules: cel.New()}})
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				if err := h.Apply(ctx, defs...); err != nil {
					b.Fatal(err)
				}
				cancel()
				h.Close()
				store.Close()
			}
		})
	}
}

// TestCRDStartup_APIPathServesEveryCRD keeps the benchmark honest: after Apply the
// handler serves the last CRD's resource.
func TestCRDStartup_APIPathServesEveryCRD(t *testing.T) {
	defs := benchCRDs(t, 3)
	store := memory.New(memory.Options{})
	defer store.Close()
	h, err := crdserver.Start(t.Context(), crdserver.Options{Scheme: scheme.New(), Storage: store, REST: rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Rules: cel.New()}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Apply(context.Background(), defs...); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/apis/fleet2.example.com/v1/namespaces/default/robots")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("list of the last CRD's robots: %d", resp.StatusCode)
	}
}

// BenchmarkCRDCEL evaluates the testdata CRD's CEL rules (v1: a list rule with a
// messageExpression, two cross-field rules on spec, a transition rule) on one valid
// Robot, on create and on update, with apikit's cel and with apiextensions-apiserver's
// CEL validator:
//
//	go test ./e2e -run '^$' -bench CRDCEL -count 6 > out.txt; benchstat -col /impl out.txt
func BenchmarkCRDCEL(b *testing.B) {
	manifest, robots := testdataRobots(b)
	compiled, errs := structural.Compile(robots.Spec.Versions[0].Schema.OpenAPIV3Schema, crdSchemaPath)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	ours, errs := cel.New().Compile(compiled, crdSchemaPath)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	ss := newKubeCRDHandlers(b, manifest)["v1"].structural
	kube := kubecel.NewValidator(ss, true, celconfig.PerCallLimit)
	obj := map[string]any{"apiVersion": "fleet.example.com/v1", "kind": "Robot",
		"metadata": map[string]any{"name": "r", "namespace": "default"},
		"spec":     scheme.DeepCopyJSONValue(validCRDSpecs["robots/v1"])}
	compiled.Default(obj) // as stored: the rules see defaulted objects
	old := scheme.DeepCopyJSONValue(obj).(map[string]any)
	ctx := context.Background()
	for _, op := range []struct {
		name string
		old  map[string]any
	}{{"create", nil}, {"update", old}} {
		b.Run("op="+op.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if errs := ours.Validate(ctx, obj, op.old); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
		b.Run("op="+op.name+"/impl=apiextensions", func(b *testing.B) {
			var oldObj any
			if op.old != nil {
				oldObj = op.old
			}
			b.ReportAllocs()
			for b.Loop() {
				if errs, _ := kube.Validate(ctx, nil, ss, obj, oldObj, celconfig.RuntimeCELCostBudget); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
