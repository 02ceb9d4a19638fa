package rest_test

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// typedWidget is the Go-typed twin of the schema-only Widget of crdWidgetSchema: the
// same fields, defaults (a defaulter) and checks (a strategy), so that the benchmarks
// compare what serving a kind from a schema costs against serving it from Go types.
type typedWidget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              typedWidgetSpec   `json:"spec"`
	Status            typedWidgetStatus `json:"status,omitempty"`
}

type typedWidgetSpec struct {
	Size     int64             `json:"size"`
	Color    string            `json:"color,omitempty"`
	Replicas *int32            `json:"replicas,omitempty"`
	Parts    []typedWidgetPart `json:"parts,omitempty"`
	Template *typedTemplate    `json:"template,omitempty"`
}

type typedWidgetPart struct {
	Name  string `json:"name"`
	Count *int64 `json:"count,omitempty"`
}

type typedTemplate struct {
	Tier string `json:"tier,omitempty"`
}

type typedWidgetStatus struct {
	Phase string `json:"phase,omitempty"`
	Ready bool   `json:"ready,omitempty"`
}

type typedWidgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []typedWidget `json:"items"`
}

const typedPath = "/apis/typed.example.com/v1/namespaces/default/widgets"

func addTypedWidgets(t testing.TB, s *scheme.Scheme) registry.Strategy {
	gv := scheme.GroupVersion{Group: "typed.example.com", Version: "v1"}
	s.AddKnownTypeWithName(gv.WithKind("Widget"), &typedWidget{})
	s.AddKnownTypeWithName(gv.WithKind("WidgetList"), &typedWidgetList{})
	conversion.RegisterDefaults(s, func(w *typedWidget) {
		if w.Spec.Color == "" {
			w.Spec.Color = "blue"
		}
		if w.Spec.Replicas == nil {
			r := int32(1)
			w.Spec.Replicas = &r
		}
		for i := range w.Spec.Parts {
			if w.Spec.Parts[i].Count == nil {
				c := int64(1)
				w.Spec.Parts[i].Count = &c
			}
		}
		if w.Spec.Template == nil {
			w.Spec.Template = &typedTemplate{}
		}
		if w.Spec.Template.Tier == "" {
			w.Spec.Template.Tier = "web"
		}
	})
	if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Namespaced: true, StatusSubresource: true}); err != nil {
		t.Fatal(err)
	}
	return registry.StrategyFor[*typedWidget]{Validate: func(_ context.Context, w *typedWidget) validation.ErrorList {
		var errs validation.ErrorList
		spec := validation.NewPath("spec")
		if !slices.Contains([]string{"red", "green", "blue"}, w.Spec.Color) {
			errs = append(errs, validation.NotSupported(spec.Child("color"), w.Spec.Color, []string{"red", "green", "blue"}))
		}
		if r := *w.Spec.Replicas; r < 0 || r > 10 {
			errs = append(errs, validation.Invalid(spec.Child("replicas"), r, "spec.replicas in body should be less than or equal to 10"))
		}
		for i, p := range w.Spec.Parts {
			if p.Name == "" {
				errs = append(errs, validation.Required(spec.Child("parts").Index(i).Child("name"), ""))
			}
		}
		return errs
	}}
}

// newCRDBenchServer serves the schema-only Widget (crd.example.com) and its typed twin
// (typed.example.com).
func newCRDBenchServer(b *testing.B) *testServer {
	return newServer(b, func(o *rest.Options) {
		addCRDWidgets(b, o.Scheme, crdSchema(b, crdWidgetSchema))
		o.Strategies[scheme.GroupResource{Group: "typed.example.com", Resource: "widgets"}] = addTypedWidgets(b, o.Scheme)
	})
}

// benchImpls are the two ways of serving the same Widget: from its schema, from Go types.
var benchImpls = []struct{ name, path, apiVersion string }{
	{"crd", crdPath, "crd.example.com/v1"},
	{"typed", typedPath, "typed.example.com/v1"},
}

func benchWidget(apiVersion, name string) string {
	return `{"apiVersion":"` + apiVersion + `","kind":"Widget","metadata":{"name":"` + name + `"},` +
		`"spec":{"size":3,"color":"green","parts":[{"name":"wheel","count":4},{"name":"axle"}]}}`
}

func BenchmarkCRDCreate(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			s := newCRDBenchServer(b)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				benchDo(b, "POST", s.url+impl.path, benchWidget(impl.apiVersion, "w"+strconv.Itoa(i)))
			}
		})
	}
}

func BenchmarkCRDList(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run("impl="+impl.name+"/items=100", func(b *testing.B) {
			s := newCRDBenchServer(b)
			for i := range 100 {
				benchDo(b, "POST", s.url+impl.path, benchWidget(impl.apiVersion, "w"+strconv.Itoa(i)))
			}
			b.ReportAllocs()
			for b.Loop() {
				benchDo(b, "GET", s.url+impl.path, "")
			}
		})
	}
}

// TestCRDBench_TwinsServeTheSameWidget keeps the benchmark honest: both kinds take the
// same body and answer the same defaulted spec.
func TestCRDBench_TwinsServeTheSameWidget(t *testing.T) {
	s := newServer(t, func(o *rest.Options) {
		addCRDWidgets(t, o.Scheme, crdSchema(t, crdWidgetSchema))
		o.Strategies[scheme.GroupResource{Group: "typed.example.com", Resource: "widgets"}] = addTypedWidgets(t, o.Scheme)
	})
	var specs []any
	for _, impl := range benchImpls {
		r := s.do("POST", impl.path, "application/json", benchWidget(impl.apiVersion, "w"))
		if r.code != 201 {
			t.Fatalf("%s: %d %s", impl.name, r.code, r.body)
		}
		specs = append(specs, get(r.json(t), "spec"))
	}
	if !reflect.DeepEqual(specs[0], specs[1]) {
		t.Errorf("crd spec %v, typed spec %v", specs[0], specs[1])
	}
}
