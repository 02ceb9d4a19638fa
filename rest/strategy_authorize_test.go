package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

var widgetsGR = scheme.GroupResource{Group: testapi.Group, Resource: "widgets"}

// gatedWidgets refuses a write of a widget of the colour of the stored widget "gate"
// (read with registry.Get), and of a widget mutating admission has not labelled: it shows
// that AuthorizeCreate and AuthorizeUpdate run after mutating admission and before
// validation, on every way of writing, and may read stored objects.
type gatedWidgets struct {
	widgetStrategy
	calls, listed atomic.Int64
}

func (g *gatedWidgets) authorize(ctx context.Context, w *toys.Widget) error {
	g.calls.Add(1)
	if w.Name == "gate" {
		return nil
	}
	if w.Labels["admitted"] != "yes" {
		return fmt.Errorf("%s was not admitted before authorization", w.Name)
	}
	all, err := registry.List(ctx, widgetsGR, w.Namespace)
	if err != nil {
		return err
	}
	g.listed.Store(int64(len(all)))
	obj, err := registry.Get(ctx, widgetsGR, w.Namespace, "gate")
	if err != nil {
		return err // a NotFound Status, sent as it is
	}
	if gate := obj.(*toys.Widget); gate.Spec.Color == w.Spec.Color {
		return fmt.Errorf("the gate forbids %s widgets", w.Spec.Color)
	}
	return nil
}

func (g *gatedWidgets) AuthorizeCreate(ctx context.Context, obj scheme.Object) error {
	return g.authorize(ctx, obj.(*toys.Widget))
}

func (g *gatedWidgets) AuthorizeUpdate(ctx context.Context, obj, _ scheme.Object) error {
	return g.authorize(ctx, obj.(*toys.Widget))
}

// labelAdmission labels every widget admitted=yes.
type labelAdmission struct{}

func (labelAdmission) Admit(_ context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Operation == registry.OperationDelete {
		return nil
	}
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["admitted"] = "yes"
	obj.SetLabels(labels)
	return nil
}

func TestStrategy_AuthorizeHooksRefuseEveryWriteAfterMutationBeforeValidation(t *testing.T) {
	g := &gatedWidgets{}
	s := newServer(t, func(o *rest.Options) {
		o.Strategies = map[scheme.GroupResource]registry.Strategy{widgetsGR: g}
		o.MutatingAdmission = []registry.MutatingAdmission{labelAdmission{}}
	})
	s.create("gate", "blue")
	s.create("w", "red")
	const apply = "application/apply-patch+yaml"
	forbidden := `widgets.toys.example.com "%s" is forbidden: the gate forbids %s widgets`
	for _, c := range []struct {
		name, method, path, contentType, body string
		code                                  int
		message                               string
	}{
		{"create of an allowed colour", "POST", widgetsPath, "application/json", widgetJSON("ok", "green"), http.StatusCreated, ""},
		{"create", "POST", widgetsPath, "application/json", widgetJSON("n", "blue"), http.StatusForbidden, fmt.Sprintf(forbidden, "n", "blue")},
		{"dry-run create", "POST", widgetsPath + "?dryRun=All", "application/json", widgetJSON("n", "blue"), http.StatusForbidden, fmt.Sprintf(forbidden, "n", "blue")},
		{"create refused before validation would refuse its name", "POST", widgetsPath, "application/json", widgetJSON("bad_name", "blue"), http.StatusForbidden, fmt.Sprintf(forbidden, "bad_name", "blue")},
		{"create of an invalid allowed widget", "POST", widgetsPath, "application/json", widgetJSON("bad_name", "green"), http.StatusUnprocessableEntity, "bad_name"},
		{"update", "PUT", widgetsPath + "/w", "application/json", widgetJSON("w", "blue"), http.StatusForbidden, fmt.Sprintf(forbidden, "w", "blue")},
		{"JSON patch", "PATCH", widgetsPath + "/w", "application/json-patch+json", `[{"op":"replace","path":"/spec/color","value":"blue"}]`, http.StatusForbidden, fmt.Sprintf(forbidden, "w", "blue")},
		{"merge patch", "PATCH", widgetsPath + "/w", "application/merge-patch+json", `{"spec":{"color":"blue"}}`, http.StatusForbidden, fmt.Sprintf(forbidden, "w", "blue")},
		{"strategic merge patch", "PATCH", widgetsPath + "/w", "application/strategic-merge-patch+json", `{"spec":{"color":"blue"}}`, http.StatusForbidden, fmt.Sprintf(forbidden, "w", "blue")},
		{"apply to an existing object", "PATCH", widgetsPath + "/w?fieldManager=m&force=true", apply, "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {color: blue}\n", http.StatusForbidden, fmt.Sprintf(forbidden, "w", "blue")},
		{"apply creating the object", "PATCH", widgetsPath + "/a?fieldManager=m", apply, "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {color: blue}\n", http.StatusForbidden, fmt.Sprintf(forbidden, "a", "blue")},
		{"update of an allowed colour", "PUT", widgetsPath + "/w", "application/json", widgetJSON("w", "green"), http.StatusOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := g.calls.Load()
			r := s.do(c.method, c.path, c.contentType, c.body)
			if r.code != c.code || c.message != "" && !strings.Contains(fmt.Sprint(r.json(t)["message"]), c.message) {
				t.Fatalf("%s %s: %d %s, want %d with %q", c.method, c.path, r.code, r.body, c.code, c.message)
			}
			if c.code == http.StatusForbidden {
				if m := r.json(t); m["reason"] != "Forbidden" || get(m, "details", "kind") != "widgets" || m["message"] != c.message {
					t.Errorf("Status %v, want reason Forbidden, details.kind widgets, message %q", m, c.message)
				}
			}
			if got := g.calls.Load() - before; got != 1 {
				t.Errorf("the hook ran %d times, want once", got)
			}
		})
	}
	t.Run("refused writes stored nothing", func(t *testing.T) {
		if r := s.do("GET", widgetsPath+"/w", "", ""); r.code != http.StatusOK || get(r.json(t), "spec", "color") != "green" {
			t.Errorf("w: %d %s, want the green update only", r.code, r.body)
		}
		for _, name := range []string{"n", "a"} {
			if r := s.do("GET", widgetsPath+"/"+name, "", ""); r.code != http.StatusNotFound {
				t.Errorf("%s: %d %s, want 404", name, r.code, r.body)
			}
		}
		if got := g.listed.Load(); got != 3 {
			t.Errorf("registry.List read %d widgets, want 3 (gate, w, ok)", got)
		}
	})
	t.Run("a Status the hook returns is the answer", func(t *testing.T) {
		if r := s.do("DELETE", widgetsPath+"/gate", "", ""); r.code != http.StatusOK {
			t.Fatalf("delete gate: %d %s", r.code, r.body)
		}
		r := s.do("PUT", widgetsPath+"/w", "application/json", widgetJSON("w", "red"))
		if m := r.json(t); r.code != http.StatusNotFound || m["reason"] != "NotFound" || m["message"] != `widgets.toys.example.com "gate" not found` {
			t.Errorf("update without a gate: %d %s, want kube's 404 of the gate", r.code, r.body)
		}
	})
}

func TestStrategy_GetAndListFailOutsideARequest(t *testing.T) {
	if _, err := registry.Get(context.Background(), widgetsGR, "default", "w"); err == nil {
		t.Error("Get outside a request: no error")
	}
	if _, err := registry.List(context.Background(), widgetsGR, "default"); err == nil {
		t.Error("List outside a request: no error")
	}
}
