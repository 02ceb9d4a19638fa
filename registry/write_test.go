package registry_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// internal returns k's new object as a request decodes it: at the internal version
// when the kind has one.
func internal(t *testing.T, s *scheme.Scheme, k kind, namespace, name string) scheme.Object {
	t.Helper()
	obj := k.object(namespace, name)
	if _, ok := obj.(*scheme.Unstructured); ok {
		return obj
	}
	out, err := conversion.ToVersion(s, obj, testapi.Internal)
	if err != nil {
		t.Fatal(err)
	}
	return out.(scheme.Object)
}

// spec reads and sets one spec field of either kind: a Widget's color, a Gadget's shape.
func spec(obj scheme.Object) string {
	switch o := obj.(type) {
	case *toys.Widget:
		return o.Spec.Color
	case *toys.WidgetV1:
		return o.Spec.Color
	case *scheme.Unstructured:
		v, _ := scheme.NestedField(o.Object, "spec", "shape")
		s, _ := v.(string)
		return s
	}
	return ""
}

func setSpec(obj scheme.Object, v string) {
	switch o := obj.(type) {
	case *toys.Widget:
		o.Spec.Color = v
	case *scheme.Unstructured:
		o.Object["spec"].(map[string]any)["shape"] = v
	}
}

// breakSpec makes obj invalid: a Widget without a color (its strategy's rule), a
// Gadget whose size is no integer (its schema's).
func breakSpec(obj scheme.Object) (field string) {
	switch o := obj.(type) {
	case *toys.Widget:
		o.Spec.Color = ""
		return "spec.color"
	case *scheme.Unstructured:
		o.Object["spec"].(map[string]any)["size"] = "big"
		return "spec.size"
	}
	return ""
}

// strategies validate Widgets with testapi's rules, and record the hooks called.
func strategies(log *[]string) map[scheme.GroupResource]registry.Strategy {
	widgets := testapi.WidgetResource()
	gadgets := kinds()[1].res
	return map[scheme.GroupResource]registry.Strategy{
		widgets.GroupResource(): registry.StrategyFor[*toys.Widget]{
			PrepareForCreate: func(_ context.Context, w *toys.Widget) { *log = append(*log, "prepare") },
			Validate: func(_ context.Context, w *toys.Widget) validation.ErrorList {
				*log = append(*log, "validate")
				return testapi.ValidateWidget(w)
			},
			AuthorizeCreate: func(context.Context, *toys.Widget) error {
				*log = append(*log, "authorize")
				return nil
			},
			WarningsOnCreate: func(context.Context, *toys.Widget) []string { return []string{"widgets are fun"} },
		},
		gadgets.GroupResource(): registry.StrategyFor[*scheme.Unstructured]{
			PrepareForCreate: func(context.Context, *scheme.Unstructured) { *log = append(*log, "prepare") },
			Validate: func(context.Context, *scheme.Unstructured) validation.ErrorList {
				*log = append(*log, "validate")
				return nil
			},
			AuthorizeCreate: func(context.Context, *scheme.Unstructured) error {
				*log = append(*log, "authorize")
				return nil
			},
			WarningsOnCreate: func(context.Context, *scheme.Unstructured) []string { return []string{"gadgets are fun"} },
		},
	}
}

func TestCreate_ServerFieldsHooksAndAdmissionInKubesOrder(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			var log []string
			var seen []scheme.Object
			f := newFixture(t, registry.Options{
				Strategies:          strategies(&log),
				MutatingAdmission:   []registry.MutatingAdmission{recorder{name: "mutate", log: &log, seen: &seen}},
				ValidatingAdmission: []registry.ValidatingAdmission{recorder{name: "admit", log: &log, seen: &seen}},
			})
			in := internal(t, f.s, k, "default", "")
			in.SetGenerateName("gen-")
			in.SetUID("client-uid")
			in.SetGeneration(7)
			var warnings []string
			ctx := authn.WithUser(context.Background(), &authn.User{Name: "alice"})
			out, err := f.reg.Create(ctx, registry.Request{Resource: &k.res, Namespace: "default", Version: "v1", FieldManager: "tester", Warnings: &warnings}, in)
			if err != nil {
				t.Fatal(err)
			}
			// As kube's create handler and store: mutating admission first, before the
			// name is generated (its attributes have none), then the strategy.
			want := []string{"mutate CREATE  by alice", "authorize", "prepare", "validate", "admit CREATE " + out.GetName() + " by alice"}
			if !slices.Equal(log, want) {
				t.Errorf("ran %q, want %q", log, want)
			}
			if len(warnings) != 1 || !strings.HasSuffix(warnings[0], "are fun") {
				t.Errorf("warnings %q, want the strategy's", warnings)
			}
			if !strings.HasPrefix(out.GetName(), "gen-") || len(out.GetName()) != len("gen-")+5 {
				t.Errorf("name %q, want gen- and five generated characters", out.GetName())
			}
			if out.GetUID() == "" || out.GetUID() == "client-uid" || out.GetGeneration() != 1 || out.GetResourceVersion() == "" || out.GetCreationTimestamp().IsZero() {
				t.Errorf("server fields: uid %q, generation %d, resourceVersion %q, creationTimestamp %v", out.GetUID(), out.GetGeneration(), out.GetResourceVersion(), out.GetCreationTimestamp())
			}
			if gvk := out.GetObjectKind().GroupVersionKind(); gvk.Version != "v1" || gvk.Kind != k.res.Kind {
				t.Errorf("answered at %v, want the Request's version", gvk)
			}
			if mf := out.GetManagedFields(); len(mf) != 1 || mf[0].Manager != "tester" || mf[0].Operation != "Update" {
				t.Errorf("managedFields %+v, want one Update entry of tester", mf)
			}
			if _, ok := f.stored(t, k.res, "default", out.GetName()); !ok {
				t.Error("the created object is not stored")
			}
		})
	}
}

func TestCreate_RefusedWritesStoreNothing(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			ctx := context.Background()
			cases := []struct {
				name      string
				namespace string
				edit      func(t *testing.T, obj scheme.Object) string // returns what the message names
				dryRun    bool
				wantCode  int32
			}{
				{name: "an invalid object is 422 naming the field", namespace: "default", edit: func(_ *testing.T, o scheme.Object) string { return breakSpec(o) }, wantCode: 422},
				{name: "a missing namespace is 404", namespace: "nowhere", edit: func(*testing.T, scheme.Object) string { return `namespaces "nowhere" not found` }, wantCode: 404},
				{name: "a terminating namespace is 403", namespace: "leaving", edit: func(*testing.T, scheme.Object) string {
					return "unable to create new content in namespace leaving because it is being terminated"
				}, wantCode: 403},
				{name: "a dry run stores nothing", namespace: "default", dryRun: true},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					var log []string
					f := newFixture(t, registry.Options{Strategies: strategies(&log)})
					f.seedNamespace(t, "leaving", registry.NamespacePhaseTerminating)
					in := internal(t, f.s, k, c.namespace, "x")
					want := ""
					if c.edit != nil {
						want = c.edit(t, in)
					}
					out, err := f.reg.Create(ctx, registry.Request{Resource: &k.res, Namespace: c.namespace, Version: "v1", DryRun: c.dryRun}, in)
					if c.wantCode == 0 {
						if err != nil || out.GetName() != "x" || out.GetUID() == "" {
							t.Errorf("dry run: %v, %v", out, err)
						}
					} else {
						st := statusOf(t, err)
						if st.Code != c.wantCode || !strings.Contains(st.Message, want) {
							t.Errorf("got %d %q, want %d naming %q", st.Code, st.Message, c.wantCode, want)
						}
					}
					if _, ok := f.stored(t, k.res, c.namespace, "x"); ok {
						t.Error("the object was stored")
					}
				})
			}
		})
	}
}

func TestUpdate_CarriesServerFieldsBumpsGenerationAndChecksResourceVersion(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t, registry.Options{})
			ctx := context.Background()
			rq := registry.Request{Resource: &k.res, Namespace: "default", Version: "v1", FieldManager: "tester"}
			created, err := f.reg.Create(ctx, rq, internal(t, f.s, k, "default", "x"))
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			out, wasCreated, err := f.reg.Update(ctx, rq, "x", false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
				calls++
				if old == nil || !k.typed(old) {
					t.Fatalf("the update function got %T, want the stored object at the internal version", old)
				}
				in := scheme.DeepCopy(old)
				setSpec(in, "square")
				in.SetUID("") // the server carries it over
				in.SetResourceVersion("")
				return in, nil
			})
			if err != nil || wasCreated || calls != 1 {
				t.Fatalf("update: created %v, calls %d, err %v", wasCreated, calls, err)
			}
			if out.GetUID() != created.GetUID() || out.GetGeneration() != 2 || !out.GetCreationTimestamp().Time.Equal(created.GetCreationTimestamp().Time) || spec(out) != "square" {
				t.Errorf("updated: uid %q (was %q), generation %d, creationTimestamp %v, spec %q", out.GetUID(), created.GetUID(), out.GetGeneration(), out.GetCreationTimestamp(), spec(out))
			}

			_, _, err = f.reg.Update(ctx, rq, "x", false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
				in := scheme.DeepCopy(old)
				in.SetResourceVersion(created.GetResourceVersion()) // stale
				return in, nil
			})
			if st := statusOf(t, err); st.Code != 409 || !strings.Contains(st.Message, "the object has been modified") {
				t.Errorf("stale resourceVersion: %d %q, want 409 Conflict", st.Code, st.Message)
			}

			_, _, err = f.reg.Update(ctx, rq, "missing", false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
				if old != nil {
					t.Error("a missing object's update function got an object")
				}
				return internal(t, f.s, k, "default", "missing"), nil
			})
			if st := statusOf(t, err); st.Code != 404 {
				t.Errorf("update of a missing object without allowCreate: %d %q", st.Code, st.Message)
			}
			out, wasCreated, err = f.reg.Update(ctx, rq, "missing", true, func(context.Context, scheme.Object) (scheme.Object, error) {
				return internal(t, f.s, k, "default", "missing"), nil
			})
			if err != nil || !wasCreated || out.GetGeneration() != 1 {
				t.Errorf("update with allowCreate: created %v, generation %d, err %v", wasCreated, out.GetGeneration(), err)
			}
		})
	}
}

func TestUpdate_RemovingTheLastFinalizerOfADeletingObjectDeletesIt(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t, registry.Options{})
			ctx := context.Background()
			rq := registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}
			in := internal(t, f.s, k, "default", "x")
			in.SetFinalizers([]string{"example.com/keep"})
			if _, err := f.reg.Create(ctx, rq, in); err != nil {
				t.Fatal(err)
			}
			if _, deleted, err := f.reg.Delete(ctx, rq, "x", nil); err != nil || deleted {
				t.Fatalf("delete: deleted %v, err %v", deleted, err)
			}
			_, _, err := f.reg.Update(ctx, rq, "x", false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
				in := scheme.DeepCopy(old)
				in.SetFinalizers(nil)
				return in, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := f.stored(t, k.res, "default", "x"); ok {
				t.Error("the object stays after its last finalizer went")
			}
		})
	}
}

func TestUpdate_StatusSubresourceChangesOnlyStatus(t *testing.T) {
	k := kinds()[0] // Widgets have a status subresource
	f := newFixture(t, registry.Options{})
	ctx := context.Background()
	rq := registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}
	if _, err := f.reg.Create(ctx, rq, internal(t, f.s, k, "default", "x")); err != nil {
		t.Fatal(err)
	}
	rq.Subresource = "status"
	out, _, err := f.reg.Update(ctx, rq, "x", false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
		w := scheme.DeepCopy(old).(*toys.Widget)
		w.Spec.Color = "red"
		w.Status.Phase = "Running"
		return w, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w := out.(*toys.WidgetV1)
	if w.Spec.Color != "blue" || w.Status.Phase != "Running" || w.Generation != 1 {
		t.Errorf("after a status write: color %q, phase %q, generation %d; want blue, Running, 1", w.Spec.Color, w.Status.Phase, w.Generation)
	}
}

func TestGet_ReadsOnlyWithinTheStoresHooks(t *testing.T) {
	widgets := testapi.WidgetResource()
	var read scheme.Object
	var readErr error
	f := newFixture(t, registry.Options{Strategies: map[scheme.GroupResource]registry.Strategy{
		widgets.GroupResource(): registry.StrategyFor[*toys.Widget]{
			AuthorizeCreate: func(ctx context.Context, w *toys.Widget) error {
				if w.Name == "second" {
					read, readErr = registry.Get(ctx, widgets.GroupResource(), w.Namespace, "first")
				}
				return nil
			},
		},
	}})
	k := kinds()[0]
	ctx := context.Background()
	rq := registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}
	for _, name := range []string{"first", "second"} {
		if _, err := f.reg.Create(ctx, rq, internal(t, f.s, k, "default", name)); err != nil {
			t.Fatal(err)
		}
	}
	if readErr != nil || read == nil || read.GetName() != "first" || !k.typed(read) {
		t.Errorf("a hook's Get: %v (%T), %v; want the internal first widget", read, read, readErr)
	}
	if _, err := registry.Get(ctx, widgets.GroupResource(), "default", "first"); err == nil || errors.As(err, new(*scheme.Status)) {
		t.Errorf("Get outside a Store's call: %v, want the error that says so", err)
	}
}

func TestCreate_ReconcilesTheNamespaceWithTheRequests(t *testing.T) {
	f := newFixture(t, registry.Options{})
	ctx := context.Background()
	warehouses := testapi.WarehouseResource()
	wh := &toys.Warehouse{}
	wh.APIVersion, wh.Kind = testapi.Internal.String(), "Warehouse"
	wh.Name, wh.Namespace = "w", "default" // cluster-scoped: the namespace goes
	out, err := f.reg.Create(ctx, registry.Request{Resource: &warehouses, Version: "v1"}, wh)
	if err != nil || out.GetNamespace() != "" {
		t.Fatalf("cluster-scoped create with a namespace: namespace %q, err %v; want it stored without", out.GetNamespace(), err)
	}
	k := kinds()[0]
	in := internal(t, f.s, k, "", "a") // no namespace: the request's
	if out, err := f.reg.Create(ctx, registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}, in); err != nil || out.GetNamespace() != "default" {
		t.Errorf("namespaced create without a namespace: %v, %v", out, err)
	}
	in = internal(t, f.s, k, "other", "b")
	_, err = f.reg.Create(ctx, registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}, in)
	if st := statusOf(t, err); st.Code != 400 || st.Message != "the namespace of the provided object does not match the namespace sent on the request" {
		t.Errorf("another namespace: %d %q", st.Code, st.Message)
	}
}

func TestAttributesFrom_AreTheRequestsAsAuthorizationSawThem(t *testing.T) {
	widgets := testapi.WidgetResource()
	var got []authz.Attributes
	record := func(ctx context.Context) {
		a, ok := registry.AttributesFrom(ctx)
		if !ok {
			t.Error("AttributesFrom within a hook: not found")
		}
		got = append(got, a)
	}
	f := newFixture(t, registry.Options{Strategies: map[scheme.GroupResource]registry.Strategy{
		widgets.GroupResource(): registry.StrategyFor[*toys.Widget]{
			PrepareForCreate: func(ctx context.Context, _ *toys.Widget) { record(ctx) },
			PrepareForUpdate: func(ctx context.Context, _, _ *toys.Widget) { record(ctx) },
		},
	}})
	k := kinds()[0]
	bob := &authn.User{Name: "bob"}
	ctx := authn.WithUser(context.Background(), bob)
	// Without Request.Attributes: the context's user on the Request's resource, named as
	// a URL names it (a create by POST names none).
	rq := registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}
	if _, err := f.reg.Create(ctx, rq, internal(t, f.s, k, "default", "w")); err != nil {
		t.Fatal(err)
	}
	// With them: as given, whatever the object's name.
	given := authz.Attributes{User: bob, Verb: "update", APIGroup: widgets.Group, Resource: widgets.Plural, Namespace: "default", Name: "w", ResourceRequest: true}
	rq.Attributes = &given
	if _, _, err := f.reg.Update(ctx, rq, "w", false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
		setSpec(old, "changed")
		return old, nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []authz.Attributes{
		{User: bob, Verb: "create", APIGroup: widgets.Group, APIVersion: "v1", Resource: widgets.Plural, Namespace: "default", ResourceRequest: true},
		given,
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("AttributesFrom in the hooks:\n got %+v\nwant %+v", got, want)
	}
	if _, ok := registry.AttributesFrom(ctx); ok {
		t.Error("AttributesFrom outside a Store's call: found")
	}
}
