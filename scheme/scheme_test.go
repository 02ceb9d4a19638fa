package scheme

import (
	"errors"
	"regexp"
	"slices"
	"testing"
)

type testSpec struct {
	Color string `json:"color"`
}

type testKind struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       testSpec `json:"spec"`
}

type testKindList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	Items    []testKind `json:"items"`
}

var (
	testGV      = GroupVersion{Group: "toys.example.com", Version: "v1"}
	testGVAlpha = GroupVersion{Group: "toys.example.com", Version: "v1alpha1"}
)

func newTestScheme(t *testing.T) *Scheme {
	t.Helper()
	s := New()
	s.AddKnownTypes(testGV, &testKind{}, &testKindList{})
	s.AddKnownTypes(testGVAlpha, &testKind{}, &testKindList{})
	s.AddKnownTypes(testGV.Internal(), &testKind{}, &testKindList{})
	s.AddUnstructuredKind(GroupVersionKind{Group: "cr.example.com", Version: "v1", Kind: "Gadget"})
	s.AddUnstructuredKind(GroupVersionKind{Group: "cr.example.com", Version: "v1", Kind: "GadgetList"})
	if err := s.AddResource(Resource{Group: testGV.Group, Kind: "testKind", Plural: "testkinds", ShortNames: []string{"tk"}, Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(Resource{Group: "cr.example.com", Kind: "Gadget", Plural: "gadgets"}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseGroupVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    GroupVersion
		wantErr bool
	}{
		{"v1", GroupVersion{Version: "v1"}, false},
		{"apps/v1", GroupVersion{Group: "apps", Version: "v1"}, false},
		{"", GroupVersion{}, false},
		{"a/b/c", GroupVersion{}, true},
		{"apps/", GroupVersion{}, true},
	}
	for _, tt := range tests {
		got, err := ParseGroupVersion(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseGroupVersion(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("String() of %q = %q", tt.in, got.String())
		}
	}
}

func TestCompareVersions_OrdersLikeKubernetes(t *testing.T) {
	got := []string{"v1alpha1", "foo", "v2beta1", "v1", "v1beta2", "v1beta1", "v2", "v10alpha3", "bar"}
	slices.SortFunc(got, func(a, b string) int { return -CompareVersions(a, b) })
	want := []string{"v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v10alpha3", "v1alpha1", "bar", "foo"}
	if !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}

func TestScheme_NewSetsKindAndCreatesUnstructuredForSchemaOnlyKinds(t *testing.T) {
	s := newTestScheme(t)
	obj, err := s.New(testGV.WithKind("testKind"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.(*testKind); !ok {
		t.Fatalf("New returned %T", obj)
	}
	if got := obj.GetObjectKind().GroupVersionKind(); got != testGV.WithKind("testKind") {
		t.Errorf("gvk = %v", got)
	}
	internal, _ := s.New(testGV.Internal().WithKind("testKind"))
	if got := internal.GetObjectKind().GroupVersionKind(); !got.Empty() {
		t.Errorf("internal objects keep TypeMeta empty, got %v", got)
	}
	g, err := s.New(GroupVersionKind{Group: "cr.example.com", Version: "v1", Kind: "Gadget"})
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := g.(*Unstructured); !ok || u.GetAPIVersion() != "cr.example.com/v1" || u.GetKind() != "Gadget" {
		t.Errorf("schema-only kind gave %#v", g)
	}
	gl, _ := s.New(GroupVersionKind{Group: "cr.example.com", Version: "v1", Kind: "GadgetList"})
	if _, ok := gl.(*UnstructuredList); !ok {
		t.Errorf("schema-only list kind gave %T", gl)
	}
	_, err = s.New(GroupVersionKind{Group: "x", Version: "v1", Kind: "Nope"})
	var nre *NotRegisteredError
	if !errors.As(err, &nre) {
		t.Errorf("unknown kind error = %v", err)
	}
}

func TestScheme_ObjectKindsAndKindFor(t *testing.T) {
	s := newTestScheme(t)
	kinds, err := s.ObjectKinds(&testKind{})
	if err != nil || len(kinds) != 3 {
		t.Fatalf("ObjectKinds = %v, %v", kinds, err)
	}
	k, err := s.KindFor(&testKind{}, testGVAlpha)
	if err != nil || k != testGVAlpha.WithKind("testKind") {
		t.Errorf("KindFor = %v, %v", k, err)
	}
	if _, err := s.KindFor(&testKind{}, GroupVersion{Group: "other", Version: "v1"}); err == nil {
		t.Error("KindFor in an unregistered version succeeded")
	}
	if _, err := s.ObjectKinds(&struct{ TypeMeta }{}); err == nil {
		t.Error("ObjectKinds of an unregistered type succeeded")
	}
	u := &Unstructured{}
	u.SetGroupVersionKind(GroupVersionKind{Group: "cr.example.com", Version: "v1", Kind: "Gadget"})
	if kinds, err := s.ObjectKinds(u); err != nil || kinds[0].Kind != "Gadget" {
		t.Errorf("ObjectKinds(unstructured) = %v, %v", kinds, err)
	}
}

func TestScheme_ResourcesVersionsAndLookup(t *testing.T) {
	s := newTestScheme(t)
	if got := s.Versions("toys.example.com"); !slices.Equal(got, []string{"v1", "v1alpha1"}) {
		t.Errorf("Versions = %v", got)
	}
	s.SetVersionPriority("toys.example.com", "v1alpha1", "v1")
	if got := s.PreferredVersion("toys.example.com"); got != "v1alpha1" {
		t.Errorf("PreferredVersion after SetVersionPriority = %q", got)
	}
	for _, name := range []string{"testkinds", "tk", "TestKind", "testkind"} {
		r, ok := s.LookupResource("toys.example.com", name)
		if !ok || r.Plural != "testkinds" {
			t.Errorf("LookupResource(%q) = %v, %v", name, r, ok)
		}
	}
	r, _ := s.Resource(GroupResource{Group: "toys.example.com", Resource: "testkinds"})
	if r.ListKind != "testKindList" || r.Singular != "testkind" || !r.Namespaced {
		t.Errorf("defaults not filled: %+v", r)
	}
	if got := s.ServedVersions(r); !slices.Equal(got, []string{"v1alpha1", "v1"}) {
		t.Errorf("ServedVersions = %v", got)
	}
	if got := s.StorageVersion(r); got != "v1alpha1" {
		t.Errorf("StorageVersion defaults to preferred, got %q", got)
	}
	if got := s.KindVersions(GroupKind{Group: "toys.example.com", Kind: "testKind"}); !slices.Equal(got, []string{"v1alpha1", "v1", InternalVersion}) {
		t.Errorf("KindVersions = %v", got)
	}
	if rr, ok := s.ResourceFor(GroupKind{Group: "cr.example.com", Kind: "Gadget"}); !ok || rr.Plural != "gadgets" || rr.Namespaced {
		t.Errorf("ResourceFor = %+v, %v", rr, ok)
	}
	if err := s.AddResource(Resource{Group: "toys.example.com", Kind: "Missing", Plural: "missings"}); err == nil {
		t.Error("AddResource of an unregistered kind succeeded")
	}
	if err := s.AddResource(Resource{Group: "toys.example.com", Kind: "testKind", Plural: "testkinds"}); err == nil {
		t.Error("AddResource twice succeeded")
	}
	if got := s.Groups(); !slices.Equal(got, []string{"cr.example.com", "toys.example.com"}) {
		t.Errorf("Groups = %v", got)
	}
}

func TestScheme_AddResourceSetsTheVerbsOnce(t *testing.T) {
	tests := []struct {
		name    string
		verbs   []string
		want    []string
		wantErr bool
	}{
		{name: "nil is every verb, sorted as kube lists them", want: AllVerbs},
		{name: "a create-only resource", verbs: []string{"create"}, want: []string{"create"}},
		{name: "the given order is kept", verbs: []string{"get", "create"}, want: []string{"get", "create"}},
		{name: "an unknown verb is refused", verbs: []string{"get", "proxy"}, wantErr: true},
		{name: "a verb listed twice is refused", verbs: []string{"get", "get"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			s.AddKnownTypes(testGV, &testKind{}, &testKindList{})
			given := slices.Clone(tt.verbs)
			err := s.AddResource(Resource{Group: testGV.Group, Kind: "testKind", Plural: "testkinds", Verbs: given})
			if (err != nil) != tt.wantErr {
				t.Fatalf("AddResource = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			r, _ := s.Resource(GroupResource{Group: testGV.Group, Resource: "testkinds"})
			if !slices.Equal(r.Verbs, tt.want) {
				t.Errorf("Verbs = %q, want %q", r.Verbs, tt.want)
			}
			for _, v := range AllVerbs {
				if r.Serves(v) != slices.Contains(tt.want, v) {
					t.Errorf("Serves(%q) = %v", v, r.Serves(v))
				}
			}
			if len(given) > 0 {
				given[0] = "delete" // the caller's slice is not the resource's
				if r.Verbs[0] == "delete" {
					t.Error("Verbs shares the caller's slice")
				}
			}
		})
	}
}

func TestScheme_AddKnownTypeWithNameConflictPanics(t *testing.T) {
	s := New()
	s.AddKnownTypeWithName(testGV.WithKind("K"), &testKind{})
	s.AddKnownTypeWithName(testGV.WithKind("K"), &testKind{}) // same type again is fine
	defer func() {
		if recover() == nil {
			t.Error("registering a kind with another type did not panic")
		}
	}()
	s.AddKnownTypeWithName(testGV.WithKind("K"), &testKindList{})
}

func TestScheme_ExtensionIsCreatedOnce(t *testing.T) {
	s := New()
	type key struct{}
	calls := 0
	init := func() any { calls++; return &calls }
	a := s.Extension(key{}, init)
	b := s.Extension(key{}, init)
	if a != b || calls != 1 {
		t.Errorf("Extension built %d times", calls)
	}
}

func TestExtractAndSetList(t *testing.T) {
	l := &testKindList{Items: []testKind{{ObjectMeta: ObjectMeta{Name: "a"}}, {ObjectMeta: ObjectMeta{Name: "b"}}}}
	objs, err := ExtractList(l)
	if err != nil || len(objs) != 2 || objs[1].GetName() != "b" {
		t.Fatalf("ExtractList = %v, %v", objs, err)
	}
	objs[0].SetName("changed")
	if l.Items[0].Name != "changed" {
		t.Error("ExtractList items do not point into the list")
	}
	if err := SetList(l, []Object{&testKind{ObjectMeta: ObjectMeta{Name: "z"}}}); err != nil || len(l.Items) != 1 || l.Items[0].Name != "z" {
		t.Errorf("SetList = %v, %+v", err, l.Items)
	}
	if err := SetList(l, []Object{&Unstructured{}}); err == nil {
		t.Error("SetList with the wrong item type succeeded")
	}
	if !IsList(l) || IsList(&testKind{}) {
		t.Error("IsList wrong")
	}
	item, err := NewListItem(l)
	if _, ok := item.(*testKind); !ok || err != nil {
		t.Errorf("NewListItem = %T, %v", item, err)
	}

	ul := &UnstructuredList{}
	if err := SetList(ul, []Object{&Unstructured{Object: map[string]any{"kind": "Gadget"}}}); err != nil {
		t.Fatal(err)
	}
	uobjs, _ := ExtractList(ul)
	if len(uobjs) != 1 || uobjs[0].(*Unstructured).GetKind() != "Gadget" {
		t.Errorf("unstructured ExtractList = %v", uobjs)
	}
	if err := SetList(ul, []Object{&testKind{}}); err == nil {
		t.Error("SetList of typed items into an UnstructuredList succeeded")
	}
}

func TestNewUID_IsARandomVersion4UUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := NewUID(), NewUID()
	if !re.MatchString(string(a)) || a == b {
		t.Errorf("NewUID = %q, %q; want two different version 4 UUIDs", a, b)
	}
}
