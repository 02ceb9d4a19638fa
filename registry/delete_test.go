package registry_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// kind is one of the two ways a kind is defined, run through the same test bodies (as
// etcd runs one range test over two read paths): a Go type with an internal hub
// version, or a schema-only kind served as unstructured objects.
type kind struct {
	name string
	res  scheme.Resource
	// object returns a new object at the storage version, as storage holds it.
	object func(namespace, name string) scheme.Object
	// typed is the Go type admission sees the internal version as.
	typed func(obj scheme.Object) bool
}

var gadgetGVK = scheme.GroupVersionKind{Group: "gadgets.example.com", Version: "v1", Kind: "Gadget"}

func kinds() []kind {
	widget := testapi.WidgetResource()
	return []kind{{
		name: "typed",
		res:  widget,
		object: func(namespace, name string) scheme.Object {
			w := &toys.WidgetV1{Spec: toys.WidgetSpec{Color: "blue"}}
			w.APIVersion, w.Kind = testapi.V1.String(), "Widget"
			w.Namespace, w.Name = namespace, name
			return w
		},
		typed: func(obj scheme.Object) bool { _, ok := obj.(*toys.Widget); return ok },
	}, {
		name: "schema-only",
		res: scheme.Resource{Group: gadgetGVK.Group, Kind: "Gadget", ListKind: "GadgetList", Plural: "gadgets",
			Singular: "gadget", Namespaced: true, StorageVersion: "v1"},
		object: func(namespace, name string) scheme.Object {
			return &scheme.Unstructured{Object: map[string]any{
				"apiVersion": gadgetGVK.GroupVersion().String(), "kind": "Gadget",
				"metadata": map[string]any{"namespace": namespace, "name": name},
				"spec":     map[string]any{"size": int64(1)},
			}}
		},
		typed: func(obj scheme.Object) bool { _, ok := obj.(*scheme.Unstructured); return ok },
	}}
}

// newScheme holds both kinds, and cluster-scoped Namespaces as a schema-only kind.
func newScheme(t *testing.T) *scheme.Scheme {
	t.Helper()
	s := testapi.NewScheme()
	openapi.Register(s, gadgetGVK, &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{
		"spec": {Type: "object", Properties: map[string]*openapi.Schema{
			"size":  {Type: "integer"},
			"shape": {Type: "string", Default: "round"},
		}},
	}})
	s.AddUnstructuredKind(gadgetGVK.GroupVersion().WithKind("GadgetList"))
	s.AddUnstructuredKind(scheme.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	s.AddUnstructuredKind(scheme.GroupVersionKind{Version: "v1", Kind: "NamespaceList"})
	for _, r := range []scheme.Resource{
		kinds()[1].res,
		{Kind: "Namespace", ListKind: "NamespaceList", Plural: "namespaces", Singular: "namespace", StorageVersion: "v1"},
	} {
		if err := s.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// recorder is an admission plugin that records what it saw, in order, and refuses
// what deny says.
type recorder struct {
	name string
	log  *[]string
	seen *[]scheme.Object
	deny error
}

func (r recorder) Admit(_ context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	*r.log = append(*r.log, r.name+" "+string(a.Operation)+" "+a.Name+" by "+userName(a.User))
	*r.seen = append(*r.seen, obj)
	return r.deny
}

func (r recorder) Validate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	return r.Admit(ctx, a, obj)
}

func userName(u *authn.User) string {
	if u == nil {
		return "<none>"
	}
	return u.Name
}

type fixture struct {
	store storage.Interface
	reg   *registry.Store
	s     *scheme.Scheme
}

func newFixture(t *testing.T, opts registry.Options) *fixture {
	t.Helper()
	f := &fixture{store: memory.New(memory.Options{}), s: newScheme(t)}
	opts.Scheme, opts.Storage = f.s, f.store
	if opts.Clock == nil {
		at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		opts.Clock = func() time.Time { return at }
	}
	reg, err := registry.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.reg = reg
	f.seedNamespace(t, "default", registry.NamespacePhaseActive)
	return f
}

// seedNamespace stores a Namespace in phase, with the kubernetes finalizer.
func (f *fixture) seedNamespace(t *testing.T, name, phase string) {
	t.Helper()
	res, _ := f.s.Resource(registry.NamespacesGroupResource())
	f.seed(t, *res, &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name},
		"spec":   map[string]any{"finalizers": []any{registry.FinalizerKubernetes}},
		"status": map[string]any{"phase": phase},
	}})
}

// seed stores obj as it is, at its storage key.
func (f *fixture) seed(t *testing.T, res scheme.Resource, obj scheme.Object) scheme.Object {
	t.Helper()
	out, err := f.store.Create(context.Background(), storage.Key(res.GroupResource(), obj.GetNamespace(), obj.GetName()), obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (f *fixture) stored(t *testing.T, res scheme.Resource, namespace, name string) (scheme.Object, bool) {
	t.Helper()
	obj, err := f.store.Get(context.Background(), storage.Key(res.GroupResource(), namespace, name), storage.GetOptions{})
	if errors.Is(err, storage.ErrNotFound) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj, true
}

func statusOf(t *testing.T, err error) *scheme.Status {
	t.Helper()
	var st *scheme.Status
	if !errors.As(err, &st) {
		t.Fatalf("error %v (%T) is no *scheme.Status", err, err)
	}
	return st
}

func policy(p registry.DeletionPropagation) *registry.DeletionPropagation { return &p }

func TestDelete_FinalizersPropagationAndPreconditions(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			ctx := context.Background()
			cases := []struct {
				name       string
				gc         bool
				finalizers []string
				opts       registry.DeleteOptions
				dryRun     bool
				// wantGone is whether the object is gone afterwards; wantFinalizers
				// are those it keeps otherwise.
				wantGone       bool
				wantDeleted    bool
				wantFinalizers []string
				wantCode       int32
				wantMessage    string
			}{
				{name: "an object without finalizers goes at once", wantGone: true, wantDeleted: true},
				{name: "an object with a finalizer is marked and stays", finalizers: []string{"example.com/keep"}, wantFinalizers: []string{"example.com/keep"}},
				{name: "Orphan with a collector adds the orphan finalizer", gc: true, opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationOrphan)}, wantFinalizers: []string{registry.FinalizerOrphanDependents}},
				{name: "Foreground with a collector adds foregroundDeletion", gc: true, opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationForeground)}, wantFinalizers: []string{registry.FinalizerDeleteDependents}},
				{name: "Background with a collector keeps other finalizers", gc: true, finalizers: []string{"example.com/keep"}, opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationBackground)}, wantFinalizers: []string{"example.com/keep"}},
				{name: "Background with a collector removes orphan and goes at once", gc: true, finalizers: []string{registry.FinalizerOrphanDependents}, opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationBackground)}, wantGone: true, wantDeleted: true},
				{name: "Background with a collector removes foregroundDeletion and goes at once", gc: true, finalizers: []string{registry.FinalizerDeleteDependents}, opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationBackground)}, wantGone: true, wantDeleted: true},
				{name: "Orphan without a collector orphans and deletes", opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationOrphan)}, wantGone: true, wantDeleted: true},
				{name: "a uid precondition that fails is 409", opts: registry.DeleteOptions{Preconditions: &registry.DeletePreconditions{UID: ptr(scheme.UID("other"))}},
					wantCode: 409, wantMessage: `Precondition failed: UID in precondition: other, UID in object meta: `},
				{name: "a resourceVersion precondition that fails is 409", opts: registry.DeleteOptions{Preconditions: &registry.DeletePreconditions{ResourceVersion: ptr("999")}},
					wantCode: 409, wantMessage: `Precondition failed: ResourceVersion in precondition: 999, ResourceVersion in object meta: `},
				{name: "a dry run deletes nothing", dryRun: true, wantDeleted: true},
				{name: "a dry run marks nothing", dryRun: true, finalizers: []string{"example.com/keep"}, wantFinalizers: []string{"example.com/keep"}},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					f := newFixture(t, registry.Options{GarbageCollection: c.gc})
					obj := k.object("default", "x")
					obj.SetUID("u-1")
					obj.SetGeneration(3)
					obj.SetFinalizers(c.finalizers)
					before := f.seed(t, k.res, obj)
					out, deleted, err := f.reg.Delete(ctx, registry.Request{Resource: &k.res, Namespace: "default", Version: "v1", DryRun: c.dryRun}, "x", &c.opts)
					if c.wantCode != 0 {
						st := statusOf(t, err)
						if st.Code != c.wantCode || !strings.Contains(st.Message, c.wantMessage) || st.Details == nil || st.Details.Name != "x" {
							t.Fatalf("got %d %q, want %d with %q", st.Code, st.Message, c.wantCode, c.wantMessage)
						}
						if _, ok := f.stored(t, k.res, "default", "x"); !ok {
							t.Fatal("a refused delete removed the object")
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if deleted != c.wantDeleted {
						t.Errorf("deleted = %v, want %v", deleted, c.wantDeleted)
					}
					if out.GetName() != "x" || out.GetUID() != "u-1" {
						t.Errorf("returned %s/%s, want x/u-1", out.GetName(), out.GetUID())
					}
					now, ok := f.stored(t, k.res, "default", "x")
					if ok == c.wantGone {
						t.Fatalf("stored afterwards = %v, want %v", ok, !c.wantGone)
					}
					if !ok {
						return
					}
					if c.dryRun {
						if now.GetResourceVersion() != before.GetResourceVersion() || now.GetDeletionTimestamp() != nil {
							t.Errorf("a dry run wrote: rv %s -> %s, deletionTimestamp %v", before.GetResourceVersion(), now.GetResourceVersion(), now.GetDeletionTimestamp())
						}
						if out.GetDeletionTimestamp() == nil && !deleted {
							t.Error("a dry run did not answer what the delete would store")
						}
						return
					}
					if !slices.Equal(now.GetFinalizers(), c.wantFinalizers) {
						t.Errorf("finalizers = %v, want %v", now.GetFinalizers(), c.wantFinalizers)
					}
					if now.GetDeletionTimestamp() == nil || now.GetDeletionGracePeriodSeconds() == nil || *now.GetDeletionGracePeriodSeconds() != 0 {
						t.Errorf("deletionTimestamp %v, grace %v: want both set", now.GetDeletionTimestamp(), now.GetDeletionGracePeriodSeconds())
					}
					if now.GetGeneration() != 4 {
						t.Errorf("generation = %d, want 4 (marking an object deleting bumps it)", now.GetGeneration())
					}
				})
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestDelete_AdmissionSeesTheInternalObjectInOrderAndMayRefuse(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			for _, deny := range []bool{false, true} {
				var log []string
				var seen []scheme.Object
				var denial error
				if deny {
					denial = errors.New("not today")
				}
				f := newFixture(t, registry.Options{
					MutatingAdmission:   []registry.MutatingAdmission{recorder{name: "mutate", log: &log, seen: &seen}},
					ValidatingAdmission: []registry.ValidatingAdmission{recorder{name: "validate", log: &log, seen: &seen, deny: denial}},
				})
				f.seed(t, k.res, k.object("default", "x"))
				ctx := authn.WithUser(context.Background(), &authn.User{Name: "alice"})
				_, _, err := f.reg.Delete(ctx, registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}, "x", nil)
				want := []string{"mutate DELETE x by alice", "validate DELETE x by alice"}
				if !slices.Equal(log, want) {
					t.Errorf("admission ran %q, want %q", log, want)
				}
				if len(seen) != 2 || seen[0] != nil || seen[1] == nil || !k.typed(seen[1]) {
					t.Errorf("admission saw %#v: want nil for mutation, the internal stored object for validation", seen)
				}
				_, stays := f.stored(t, k.res, "default", "x")
				if !deny {
					if err != nil || stays {
						t.Errorf("allowed delete: err %v, object stays %v", err, stays)
					}
					continue
				}
				st := statusOf(t, err)
				wantMsg := k.res.GroupResource().String() + ` "x" is forbidden: not today`
				if st.Code != 403 || st.Reason != scheme.StatusReasonForbidden || st.Message != wantMsg || !stays {
					t.Errorf("denied delete: %d %s %q (object stays %v), want 403 Forbidden %q", st.Code, st.Reason, st.Message, stays, wantMsg)
				}
			}
		})
	}
}

func TestDelete_MissingObjectIsNotFound(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t, registry.Options{})
			_, _, err := f.reg.Delete(context.Background(), registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}, "missing", nil)
			st := statusOf(t, err)
			want := k.res.GroupResource().String() + ` "missing" not found`
			if st.Code != 404 || st.Message != want {
				t.Errorf("got %d %q, want 404 %q", st.Code, st.Message, want)
			}
		})
	}
}

func TestDelete_OrphanWithoutACollectorRemovesTheOwnerReferences(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t, registry.Options{})
			owner := k.object("default", "owner")
			owner.SetUID("owner-uid")
			f.seed(t, k.res, owner)
			dep := k.object("default", "dep")
			dep.SetOwnerReferences([]scheme.OwnerReference{{APIVersion: "v1", Kind: k.res.Kind, Name: "owner", UID: "owner-uid"}, {APIVersion: "v1", Kind: "Other", Name: "o", UID: "other"}})
			f.seed(t, k.res, dep)
			_, deleted, err := f.reg.Delete(context.Background(), registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}, "owner",
				&registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationOrphan)})
			if err != nil || !deleted {
				t.Fatalf("delete: deleted %v, err %v", deleted, err)
			}
			now, ok := f.stored(t, k.res, "default", "dep")
			if !ok {
				t.Fatal("the dependent went with its owner")
			}
			if refs := now.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != "other" {
				t.Errorf("dependent's ownerReferences = %v, want only the other owner's", refs)
			}
		})
	}
}

func TestDeleteCollection_DeletesWhatThePredicateMatches(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t, registry.Options{})
			for _, name := range []string{"a", "b", "c"} {
				obj := k.object("default", name)
				obj.SetLabels(map[string]string{"keep": map[bool]string{true: "yes", false: "no"}[name == "b"]})
				f.seed(t, k.res, obj)
			}
			f.seedNamespace(t, "other", registry.NamespacePhaseActive)
			f.seed(t, k.res, k.object("other", "a"))
			sel, err := storage.ParseLabelSelector("keep=no")
			if err != nil {
				t.Fatal(err)
			}
			done, rv, err := f.reg.DeleteCollection(context.Background(), registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"},
				storage.Predicate{Label: sel}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, o := range done {
				names = append(names, o.GetName())
			}
			if !slices.Equal(names, []string{"a", "c"}) || rv == "" {
				t.Errorf("deleted %v at %q, want [a c] at a resourceVersion", names, rv)
			}
			for _, c := range []struct {
				ns, name string
				want     bool
			}{{"default", "a", false}, {"default", "b", true}, {"default", "c", false}, {"other", "a", true}} {
				if _, ok := f.stored(t, k.res, c.ns, c.name); ok != c.want {
					t.Errorf("%s/%s stored = %v, want %v", c.ns, c.name, ok, c.want)
				}
			}
		})
	}
}

func TestDelete_NamespaceLifecycle(t *testing.T) {
	f := newFixture(t, registry.Options{})
	res, _ := f.s.Resource(registry.NamespacesGroupResource())
	f.seedNamespace(t, "team", registry.NamespacePhaseActive)
	ctx := context.Background()
	rq := registry.Request{Resource: res, Version: "v1"}

	_, _, err := f.reg.Delete(ctx, rq, "default", nil)
	if st := statusOf(t, err); st.Code != 403 || st.Message != `namespaces "default" is forbidden: this namespace may not be deleted` {
		t.Errorf("deleting default: %d %q", st.Code, st.Message)
	}

	out, deleted, err := f.reg.Delete(ctx, rq, "team", nil)
	if err != nil || deleted {
		t.Fatalf("first delete: deleted %v, err %v", deleted, err)
	}
	fields, err := registry.NamespaceFields(out)
	if err != nil || fields.Phase != registry.NamespacePhaseTerminating || !slices.Equal(fields.Finalizers, []string{registry.FinalizerKubernetes}) || out.GetDeletionTimestamp() == nil {
		t.Errorf("after the first delete: phase %q, spec.finalizers %v, deletionTimestamp %v (err %v)", fields.Phase, fields.Finalizers, out.GetDeletionTimestamp(), err)
	}
	if out.GetDeletionGracePeriodSeconds() != nil {
		t.Errorf("a Namespace got deletionGracePeriodSeconds %d; kube sets the timestamp alone", *out.GetDeletionGracePeriodSeconds())
	}

	_, _, err = f.reg.Delete(ctx, rq, "team", nil)
	if st := statusOf(t, err); st.Code != 409 || !strings.Contains(st.Message, "The system is ensuring all content is removed from this namespace.") {
		t.Errorf("second delete: %d %q, want 409 while spec.finalizers remain", st.Code, st.Message)
	}
}

func TestDelete_SchemaDefaultsApplyToWhatAdmissionSees(t *testing.T) {
	var log []string
	var seen []scheme.Object
	f := newFixture(t, registry.Options{ValidatingAdmission: []registry.ValidatingAdmission{recorder{name: "validate", log: &log, seen: &seen}}})
	k := kinds()[1]
	f.seed(t, k.res, k.object("default", "x"))
	if _, _, err := f.reg.Delete(context.Background(), registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}, "x", nil); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Fatalf("validating admission ran %d times", len(seen))
	}
	u := seen[0].(*scheme.Unstructured)
	if shape, _ := scheme.NestedField(u.Object, "spec", "shape"); shape != "round" {
		t.Errorf("admission saw spec.shape %v, want the schema's default \"round\"", shape)
	}
}
