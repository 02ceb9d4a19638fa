package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/validation"
)

// The Gadget kinds are registration fixtures: one kind served at one version, without
// an internal hub, so its hooks receive *Gadget.

var gadgetsGV = scheme.GroupVersion{Group: "gadgets.example.com", Version: "v1"}

type Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec `json:"spec"`
}

type GadgetSpec struct {
	Size int `json:"size"`
}

type GadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// UntaggedGadget embeds ObjectMeta without a json tag: encoding/json lifts name and
// namespace to the top level.
type UntaggedGadget struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ObjectMeta
}

type UntaggedGadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []UntaggedGadget `json:"items"`
}

var gadgetsGR = scheme.GroupResource{Group: gadgetsGV.Group, Resource: "gadgets"}

// gadgetScheme registers kinds as the Gadget kind of gadgets.example.com/v1.
func gadgetScheme(t *testing.T, kind, list scheme.Kinded) *scheme.Scheme {
	t.Helper()
	s := scheme.New()
	s.AddKnownTypeWithName(gadgetsGV.WithKind("Gadget"), kind)
	if list != nil {
		s.AddKnownTypeWithName(gadgetsGV.WithKind("GadgetList"), list)
	}
	if err := s.AddResource(scheme.Resource{Group: gadgetsGV.Group, Kind: "Gadget", Plural: "gadgets", Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	return s
}

// wrongSignatureStrategy's Validate takes *Gadget, so it is not a CreateValidator and
// would never be called.
type wrongSignatureStrategy struct{}

func (wrongSignatureStrategy) Validate(_ context.Context, g *Gadget) validation.ErrorList { return nil }

type pointerStrategy struct{}

func (*pointerStrategy) Validate(context.Context, scheme.Object) validation.ErrorList { return nil }

func TestNew_RefusesRegistrationMistakesNamingTheKindAndTheFix(t *testing.T) {
	for _, tc := range []struct {
		name       string
		scheme     func(t *testing.T) *scheme.Scheme
		strategy   rest.Strategy
		wantInMsgs []string
	}{{
		name:       "list kind not registered",
		scheme:     func(t *testing.T) *scheme.Scheme { return gadgetScheme(t, &Gadget{}, nil) },
		wantInMsgs: []string{"gadgets.gadgets.example.com", "GadgetList is not registered in gadgets.example.com/v1", "register a GadgetList type"},
	}, {
		name:       "ObjectMeta embedded without a json tag",
		scheme:     func(t *testing.T) *scheme.Scheme { return gadgetScheme(t, &UntaggedGadget{}, &UntaggedGadgetList{}) },
		wantInMsgs: []string{"kind Gadget in gadgets.example.com/v1", "embeds ObjectMeta without a json tag", "scheme.ObjectMeta `json:\"metadata,omitempty\"`"},
	}, {
		name:       "strategy method with the kind's type instead of scheme.Object",
		scheme:     func(t *testing.T) *scheme.Scheme { return gadgetScheme(t, &Gadget{}, &GadgetList{}) },
		strategy:   wrongSignatureStrategy{},
		wantInMsgs: []string{"strategy of gadgets.gadgets.example.com", "Validate(context.Context, *rest_test.Gadget) validation.ErrorList", "is not the hook Validate(context.Context, scheme.Object) validation.ErrorList", "rest.StrategyFor[*rest_test.Gadget]"},
	}, {
		name:       "StrategyFor of another type than the hooks receive",
		scheme:     func(t *testing.T) *scheme.Scheme { return gadgetScheme(t, &Gadget{}, &GadgetList{}) },
		strategy:   rest.StrategyFor[*UntaggedGadget]{},
		wantInMsgs: []string{"strategy of gadgets.gadgets.example.com is a StrategyFor[*rest_test.UntaggedGadget]", "use StrategyFor[*rest_test.Gadget]"},
	}, {
		name:       "strategy without any hook method",
		scheme:     func(t *testing.T) *scheme.Scheme { return gadgetScheme(t, &Gadget{}, &GadgetList{}) },
		strategy:   struct{}{},
		wantInMsgs: []string{"has none of the hook methods"},
	}, {
		name:       "strategy whose hooks have pointer receivers passed by value",
		scheme:     func(t *testing.T) *scheme.Scheme { return gadgetScheme(t, &Gadget{}, &GadgetList{}) },
		strategy:   pointerStrategy{},
		wantInMsgs: []string{"its Validate has a pointer receiver: pass a *rest_test.pointerStrategy"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			opts := rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: tc.scheme(t), Storage: memory.New(memory.Options{})}
			if tc.strategy != nil {
				opts.Strategies = map[scheme.GroupResource]rest.Strategy{gadgetsGR: tc.strategy}
			}
			_, err := rest.New(opts)
			if err == nil {
				t.Fatal("New accepted the mistake")
			}
			t.Log(err)
			for _, want := range tc.wantInMsgs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestNew_AcceptsBothStrategyForms(t *testing.T) {
	s := gadgetScheme(t, &Gadget{}, &GadgetList{})
	for _, st := range []rest.Strategy{
		rest.StrategyFor[*Gadget]{},
		rest.StrategyFor[scheme.Object]{},
		&rest.StrategyFor[*Gadget]{},
		&pointerStrategy{},
	} {
		if _, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: memory.New(memory.Options{}), Strategies: map[scheme.GroupResource]rest.Strategy{gadgetsGR: st}}); err != nil {
			t.Errorf("New refused %T: %v", st, err)
		}
	}
}

func TestStrategyFor_HooksReceiveTheKindsOwnType(t *testing.T) {
	var prepared, warned bool
	st := rest.StrategyFor[*Gadget]{
		PrepareForCreate: func(_ context.Context, g *Gadget) { prepared = g.Spec.Size == 3 },
		Validate: func(_ context.Context, g *Gadget) validation.ErrorList {
			if g.Spec.Size > 10 {
				return validation.ErrorList{validation.Invalid(validation.NewPath("spec", "size"), g.Spec.Size, "must be at most 10")}
			}
			return nil
		},
		WarningsOnCreate: func(_ context.Context, g *Gadget) []string {
			warned = true
			return []string{"gadget " + g.Name + " is small"}
		},
	}
	h, err := rest.New(rest.Options{
		Scheme: gadgetScheme(t, &Gadget{}, &GadgetList{}), Storage: memory.New(memory.Options{}),
		AllowAnonymous: true, Authorizer: authz.AlwaysAllow{},
		Strategies: map[scheme.GroupResource]rest.Strategy{gadgetsGR: st},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(body string) *http.Response {
		t.Helper()
		resp, err := http.Post(srv.URL+"/apis/gadgets.example.com/v1/namespaces/default/gadgets", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := post(`{"apiVersion":"gadgets.example.com/v1","kind":"Gadget","metadata":{"name":"big"},"spec":{"size":11}}`); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("create of an invalid gadget: %d, want 422 from the typed Validate", resp.StatusCode)
	}
	resp := post(`{"apiVersion":"gadgets.example.com/v1","kind":"Gadget","metadata":{"name":"small"},"spec":{"size":3}}`)
	if resp.StatusCode != http.StatusCreated || !prepared || !warned {
		t.Errorf("create: %d, prepared %v, warned %v; want 201 with both hooks run", resp.StatusCode, prepared, warned)
	}
	if got := resp.Header.Get("Warning"); got != `299 - "gadget small is small"` {
		t.Errorf("Warning header %q", got)
	}
}

// TestStrategyFor_WrongHookSignatureDoesNotCompile builds testdata/wrongsignature, whose
// StrategyFor[*Gadget] has a Validate taking scheme.Object: the compiler must refuse it.
func TestStrategyFor_WrongHookSignatureDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(gobin, "build", "-o", t.TempDir()+"/bin", "./testdata/wrongsignature").CombinedOutput()
	if err == nil {
		t.Fatal("a StrategyFor hook with the wrong signature compiled")
	}
	if !strings.Contains(string(out), "cannot use") || !strings.Contains(string(out), "main.go") {
		t.Errorf("the build failed for another reason:\n%s", out)
	}
}
