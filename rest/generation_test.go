package rest_test

import (
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// TestCRD_GenerationFollowsApiextensionsStrategy holds apiextensions-apiserver's rules
// for a custom resource's metadata.generation: with a status subresource, only changes
// outside metadata and status of the main resource bump it, and writes to /status never
// do; without one, any change outside metadata does, status included. Each step is a
// merge patch; the case was three /status patches taking generation 1 to 4.
func TestCRD_GenerationFollowsApiextensionsStrategy(t *testing.T) {
	type step struct {
		name, path, patch string
		wantGen           float64
	}
	for _, tc := range []struct {
		name      string
		subStatus bool
		steps     []step
	}{
		{"WithAStatusSubresource", true, []step{
			{"a status write keeps it", "/status", `{"status":{"ready":true}}`, 1},
			{"another status write keeps it", "/status", `{"status":{"ready":false,"phase":"Ready"}}`, 1},
			{"a third status write keeps it", "/status", `{"status":{"ready":true}}`, 1},
			{"spec sent to /status is ignored", "/status", `{"spec":{"size":7},"status":{"ready":false}}`, 1},
			{"status sent to the main resource is ignored", "", `{"status":{"ready":true}}`, 1},
			{"a label keeps it", "", `{"metadata":{"labels":{"a":"b"}}}`, 1},
			{"a spec change bumps it", "", `{"spec":{"size":2}}`, 2},
			{"an unchanged spec keeps it", "", `{"spec":{"size":2}}`, 2},
		}},
		{"WithoutAStatusSubresource", false, []step{
			{"a label keeps it", "", `{"metadata":{"labels":{"a":"b"}}}`, 1},
			{"a status change bumps it", "", `{"status":{"ready":true}}`, 2},
			{"the same status keeps it", "", `{"status":{"ready":true}}`, 2},
			{"a spec change bumps it", "", `{"spec":{"size":3}}`, 3},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(o *rest.Options) {
				gv := scheme.GroupVersion{Group: crdGroup, Version: "v1"}
				openapi.Register(o.Scheme, gv.WithKind("Widget"), crdSchema(t, crdWidgetSchema))
				o.Scheme.AddUnstructuredKind(gv.WithKind("WidgetList"))
				if err := o.Scheme.AddResource(scheme.Resource{Group: crdGroup, Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget",
					Namespaced: true, StatusSubresource: tc.subStatus, StorageVersion: "v1"}); err != nil {
					t.Fatal(err)
				}
			})
			if r := s.do("POST", crdPath, "application/json", crdWidgetJSON("w", `{"size":1}`)); r.code != http.StatusCreated {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			for _, st := range tc.steps {
				r := s.do("PATCH", crdPath+"/w"+st.path, mergeCT, st.patch)
				if r.code != http.StatusOK {
					t.Fatalf("%s: %d %s", st.name, r.code, r.body)
				}
				if g := get(r.json(t), "metadata", "generation"); g != st.wantGen {
					t.Errorf("%s: generation %v, want %v", st.name, g, st.wantGen)
				}
			}
		})
	}
}

// TestDelete_MarkingDeletingBumpsAKeptGeneration holds kube's markAsDeleting: the
// delete that sets deletionTimestamp on an object with finalizers bumps a generation
// the object keeps (its controllers must notice); a second delete does not.
func TestDelete_MarkingDeletingBumpsAKeptGeneration(t *testing.T) {
	s := newCRDServer(t, nil)
	if r := s.do("POST", crdPath, "application/json", `{"apiVersion":"crd.example.com/v1","kind":"Widget","metadata":{"name":"w","finalizers":["example.com/hold"]},"spec":{"size":1}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	for i, want := range []float64{2, 2} {
		r := s.do("DELETE", crdPath+"/w", "", "")
		if r.code != http.StatusOK {
			t.Fatalf("delete %d: %d %s", i+1, r.code, r.body)
		}
		if g := get(r.json(t), "metadata", "generation"); g != want {
			t.Errorf("delete %d: generation %v, want %v", i+1, g, want)
		}
	}
}
