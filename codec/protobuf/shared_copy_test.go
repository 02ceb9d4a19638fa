package protobuf

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/scheme"
)

// An ObjectMeta's strings and its managedFields' field sets share one copy of the
// input. These tests hold the sharing to what a caller may do with the values: change
// a field set in place or append to it, keep one item of a list, and find every value
// as decoded.

// metaWithFieldSets is an ObjectMeta whose managedFields carry field sets beside
// strings on both sides of them.
func metaWithFieldSets() scheme.ObjectMeta {
	m := fullMeta()
	m.ManagedFields = append(m.ManagedFields, scheme.ManagedFieldsEntry{Manager: "controller", Operation: scheme.ManagedFieldsOperationUpdate,
		APIVersion: "v2", Time: &t0, FieldsType: "FieldsV1", FieldsV1: &scheme.FieldsV1{Raw: []byte(`{"f:status":{".":{}}}`)}, Subresource: "status"},
		scheme.ManagedFieldsEntry{Manager: "empty-set", FieldsType: "FieldsV1", FieldsV1: &scheme.FieldsV1{Raw: []byte{}}})
	return m
}

func TestDecodeObjectMeta_FieldSetsChangedInPlaceLeaveEveryOtherValueAsDecoded(t *testing.T) {
	want := metaWithFieldSets()
	data := appendObjectMeta(nil, &want)
	var got scheme.ObjectMeta
	if err := decodeObjectMeta(data, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("decoded (-want +got):\n%s", diff)
	}
	if raw := got.ManagedFields[2].FieldsV1.Raw; raw == nil || len(raw) != 0 {
		t.Errorf("empty field set decoded as %#v, want a non-nil empty slice", raw)
	}
	for i := range got.ManagedFields {
		raw := got.ManagedFields[i].FieldsV1.Raw
		if cap(raw) != len(raw) {
			t.Errorf("field set %d has room for %d more bytes: an append would write past it", i, cap(raw)-len(raw))
		}
		for j := range raw {
			raw[j] = '#'
		}
		got.ManagedFields[i].FieldsV1.Raw = append(raw, "appended"...)
	}
	for i := range data { // the input may be reused by the caller, too
		data[i] = 0
	}
	for i := range want.ManagedFields {
		raw := want.ManagedFields[i].FieldsV1.Raw
		want.ManagedFields[i].FieldsV1.Raw = append([]byte(strings.Repeat("#", len(raw))), "appended"...)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after the field sets changed in place (-want +got):\n%s", diff)
	}
}

func TestDecodePartialObjectMetadataList_ItemsDecodeAsAlone(t *testing.T) {
	tests := []struct {
		name  string
		items int
		note  int // bytes of an annotation per item
	}{
		{"small items", 200, 40},
		{"items of long strings", 3, 10000},
		{"one item", 1, 0},
		{"no items", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := scheme.PartialObjectMetadataList{ListMeta: scheme.ListMeta{ResourceVersion: "7", Continue: "c"}}
			for i := range tt.items {
				m := metaWithFieldSets()
				m.Name = fmt.Sprintf("item-%d", i)
				m.Annotations = map[string]string{"note": strings.Repeat(string(rune('a'+i%26)), tt.note)}
				want.Items = append(want.Items, scheme.PartialObjectMetadata{ObjectMeta: m})
			}
			data := appendPartialObjectMetadataList(nil, &want)
			var got scheme.PartialObjectMetadataList
			if err := decodePartialObjectMetadataList(data, &got); err != nil {
				t.Fatal(err)
			}
			for i := range got.Items { // a field set changed in place touches no neighbour
				for _, e := range got.Items[i].ManagedFields {
					for j := range e.FieldsV1.Raw {
						e.FieldsV1.Raw[j] = '#'
					}
				}
			}
			for i := range want.Items {
				for _, e := range want.Items[i].ManagedFields {
					e.FieldsV1.Raw = []byte(strings.Repeat("#", len(e.FieldsV1.Raw)))
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decoded list (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeObjectMeta_RepeatedAndPointerFieldsTakeOneAllocationEach(t *testing.T) {
	two := func(m scheme.ObjectMeta) scheme.ObjectMeta {
		m.Labels, m.Annotations = nil, nil // maps allocate as the runtime does
		m.OwnerReferences = append(m.OwnerReferences, scheme.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "q", UID: "v", Controller: ptr(false)})
		m.Finalizers = append(m.Finalizers, "f3")
		m.ManagedFields = append(m.ManagedFields, m.ManagedFields[0])
		return m
	}
	tests := []struct {
		name   string
		meta   scheme.ObjectMeta
		allocs float64
	}{
		// the strings' copy, owner references, finalizers, managedFields and the one
		// block of deletion, owner bools, managed times and field sets
		{"two or more of each", two(fullMeta()), 5},
		{"names only: the strings' copy", scheme.ObjectMeta{Name: "n", Namespace: "ns", UID: "u"}, 1},
		{"deletion only", scheme.ObjectMeta{Name: "n", DeletionTimestamp: &t0, DeletionGracePeriodSeconds: ptr(int64(3))}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := appendObjectMeta(nil, &tt.meta)
			var got scheme.ObjectMeta
			allocs := testing.AllocsPerRun(50, func() {
				got = scheme.ObjectMeta{}
				if err := decodeObjectMeta(data, &got); err != nil {
					t.Fatal(err)
				}
			})
			if diff := cmp.Diff(tt.meta, got); diff != "" {
				t.Fatalf("decoded (-want +got):\n%s", diff)
			}
			if allocs != tt.allocs {
				t.Errorf("%v allocations per decode, want %v", allocs, tt.allocs)
			}
		})
	}
}

// metaList wraps ObjectMeta bodies as the items of a PartialObjectMetadataList body.
func metaList(metas ...[]byte) []byte {
	var b []byte
	for _, m := range metas {
		item := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), m)
		b = protowire.AppendBytes(protowire.AppendTag(b, 2, protowire.BytesType), item)
	}
	return b
}

func TestDecodePartialObjectMetadataList_MapsLikeTheItemBeforeAreItsOwn(t *testing.T) {
	name := func(n string) []byte { return appendString(nil, 1, n) }
	join := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	web := map[string]string{"app": "demo", "tier": "web"}
	tests := []struct {
		name  string
		items [][]byte
		want  []scheme.ObjectMeta
	}{
		{"same labels and annotations",
			[][]byte{join(name("a"), wireMap(11, web), wireMap(12, map[string]string{"n": "1"})), join(name("b"), wireMap(11, web), wireMap(12, map[string]string{"n": "1"}))},
			[]scheme.ObjectMeta{{Name: "a", Labels: web, Annotations: map[string]string{"n": "1"}}, {Name: "b", Labels: web, Annotations: map[string]string{"n": "1"}}}},
		{"same labels, then more entries after the annotations",
			[][]byte{join(name("a"), wireMap(11, web)), join(name("b"), wireMap(11, web), wireMap(12, map[string]string{"n": "1"}), wireMap(11, map[string]string{"z": "last"}))},
			[]scheme.ObjectMeta{{Name: "a", Labels: web}, {Name: "b", Labels: map[string]string{"app": "demo", "tier": "web", "z": "last"}, Annotations: map[string]string{"n": "1"}}}},
		{"labels split around annotations are not taken for the next item",
			[][]byte{join(name("a"), wireMap(11, map[string]string{"app": "demo"}), wireMap(12, map[string]string{"n": "1"}), wireMap(11, map[string]string{"tier": "web"})),
				join(name("b"), wireMap(11, map[string]string{"app": "demo"}))},
			[]scheme.ObjectMeta{{Name: "a", Labels: web, Annotations: map[string]string{"n": "1"}}, {Name: "b", Labels: map[string]string{"app": "demo"}}}},
		{"a longer run that begins alike",
			[][]byte{join(name("a"), wireMap(11, map[string]string{"app": "demo"})), join(name("b"), wireMap(11, web))},
			[]scheme.ObjectMeta{{Name: "a", Labels: map[string]string{"app": "demo"}}, {Name: "b", Labels: web}}},
		{"an item without labels between two with",
			[][]byte{join(name("a"), wireMap(11, web)), name("b"), join(name("c"), wireMap(11, web))},
			[]scheme.ObjectMeta{{Name: "a", Labels: web}, {Name: "b"}, {Name: "c", Labels: web}}},
		{"a first entry too long to step over, first in the metadata",
			[][]byte{join(wireMap(11, map[string]string{"big": strings.Repeat("v", 20000)}), wireMap(11, map[string]string{"z": "1"})), wireMap(11, map[string]string{"z": "1"})},
			[]scheme.ObjectMeta{{Labels: map[string]string{"big": strings.Repeat("v", 20000), "z": "1"}}, {Labels: map[string]string{"z": "1"}}}},
		{"an entry repeating a key",
			[][]byte{join(name("a"), wireMap(11, web), wireMap(11, map[string]string{"app": "again"})), join(name("b"), wireMap(11, web), wireMap(11, map[string]string{"app": "again"}))},
			[]scheme.ObjectMeta{{Name: "a", Labels: map[string]string{"app": "again", "tier": "web"}}, {Name: "b", Labels: map[string]string{"app": "again", "tier": "web"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got scheme.PartialObjectMetadataList
			if err := decodePartialObjectMetadataList(metaList(tt.items...), &got); err != nil {
				t.Fatal(err)
			}
			var metas []scheme.ObjectMeta
			for _, it := range got.Items {
				metas = append(metas, it.ObjectMeta)
			}
			if diff := cmp.Diff(tt.want, metas); diff != "" {
				t.Fatalf("decoded items (-want +got):\n%s", diff)
			}
			for i := range got.Items { // each item's maps are its own
				if got.Items[i].Labels != nil {
					got.Items[i].Labels["changed"] = fmt.Sprint(i)
				}
				if got.Items[i].Annotations != nil {
					got.Items[i].Annotations["changed"] = fmt.Sprint(i)
				}
			}
			for i := range got.Items {
				for _, m := range []map[string]string{got.Items[i].Labels, got.Items[i].Annotations} {
					if m != nil && m["changed"] != fmt.Sprint(i) {
						t.Errorf("item %d shares a map with item %s", i, m["changed"])
					}
				}
			}
		})
	}
}

// A list's items decode as each item does alone, whatever the bytes: nothing of one
// item (its string copy, its maps) leaks into the next.
func FuzzDecodePartialObjectMetadataList_ItemsAsAlone(f *testing.F) {
	web := map[string]string{"app": "demo", "tier": "web"}
	full := fullMeta()
	for _, items := range [][]scheme.ObjectMeta{
		{{Name: "a", Labels: web, Annotations: map[string]string{"n": "1"}}, {Name: "b", Labels: web, Annotations: map[string]string{"n": "1"}}, {Name: "c", Labels: web}},
		{full, full, {Name: "c", Labels: full.Labels}},
	} {
		l := scheme.PartialObjectMetadataList{}
		for _, m := range items {
			l.Items = append(l.Items, scheme.PartialObjectMetadata{ObjectMeta: m})
		}
		f.Add(appendPartialObjectMetadataList(nil, &l))
	}
	f.Add(metaList(slices.Concat(wireMap(11, web), wireMap(12, web), wireMap(11, map[string]string{"z": "1"})), wireMap(11, web)))
	f.Fuzz(func(t *testing.T, data []byte) {
		var list scheme.PartialObjectMetadataList
		if err := decodePartialObjectMetadataList(data, &list); err != nil {
			return
		}
		r := reader{b: data, msg: "list"}
		i := 0
		for r.field() {
			if r.num != 2 {
				r.skip()
				continue
			}
			var alone scheme.PartialObjectMetadata
			if err := decodePartialObjectMetadata(r.raw(), &alone); err != nil {
				t.Fatalf("item %d fails alone: %v", i, err)
			}
			if diff := cmp.Diff(alone, list.Items[i]); diff != "" {
				t.Fatalf("item %d in the list (-alone +list):\n%s", i, diff)
			}
			i++
		}
		if r.err != nil || i != len(list.Items) {
			t.Fatalf("%d items read again (%v), %d decoded", i, r.err, len(list.Items))
		}
	})
}
