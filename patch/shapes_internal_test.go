package patch

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/scheme"
)

// TestWithoutCommonFields_CompareSeesTheSameChanges compares random pairs of Widgets
// (labels, annotations, finalizers, parts as a list-map with duplicates, nulls, empty
// objects, status conditions, unknown-typed values) as they are and without their
// common members: structured-merge-diff's Compare must find the same Added, Modified
// and Removed fields, and the arguments must stay as they were.
func TestWithoutCommonFields_CompareSeesTheSameChanges(t *testing.T) {
	pt, err := parserFor(testapi.NewScheme(), scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 16))
	compared, nontrivial := 0, 0
	for i := range 3000 {
		base := randomWidget(rng)
		a, b := mutate(rng, base), mutate(rng, base)
		if rng.IntN(4) == 0 {
			b = mutate(rng, a)
		}
		aTV, aErr := pt.FromUnstructured(a, typed.AllowDuplicates)
		bTV, bErr := pt.FromUnstructured(b, typed.AllowDuplicates)
		if aErr != nil || bErr != nil {
			continue // the field manager does not compare invalid objects
		}
		aBefore, bBefore := fmt.Sprint(a), fmt.Sprint(b)
		ap, bp, _ := withoutCommonFields(a, b)
		if fmt.Sprint(a) != aBefore || fmt.Sprint(b) != bBefore {
			t.Fatalf("case %d: withoutCommonFields changed its arguments", i)
		}
		apTV, err := pt.FromUnstructured(ap, typed.AllowDuplicates)
		if err != nil {
			t.Fatalf("case %d: the remains of a valid object are invalid: %v\n%v", i, err, ap)
		}
		bpTV, err := pt.FromUnstructured(bp, typed.AllowDuplicates)
		if err != nil {
			t.Fatalf("case %d: the remains of a valid object are invalid: %v\n%v", i, err, bp)
		}
		want, err := aTV.Compare(bTV)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got, err := apTV.Compare(bpTV)
		if err != nil {
			t.Fatalf("case %d: without common fields: %v", i, err)
		}
		if !got.Added.Equals(want.Added) || !got.Modified.Equals(want.Modified) || !got.Removed.Equals(want.Removed) {
			t.Fatalf("case %d: %v\nand %v\nwithout common fields compare as\n%v\nwant\n%v", i, a, b, got, want)
		}
		compared++
		if !want.IsSame() {
			nontrivial++
		}
	}
	if compared < 1000 || nontrivial < 500 {
		t.Fatalf("only %d of the random pairs were valid objects, %d of them different", compared, nontrivial)
	}
}

func randomWidget(rng *rand.Rand) map[string]any {
	md := map[string]any{"name": "w", "namespace": "default", "resourceVersion": fmt.Sprint(rng.IntN(5))}
	if rng.IntN(2) == 0 {
		md["labels"] = map[string]any{"a": "1", "b": fmt.Sprint(rng.IntN(3))}
	}
	if rng.IntN(2) == 0 {
		md["annotations"] = map[string]any{"note": "x"}
	}
	if rng.IntN(3) == 0 {
		md["finalizers"] = []any{"f1", "f2"}
	}
	spec := map[string]any{"color": []string{"red", "blue", ""}[rng.IntN(3)], "replicas": int64(rng.IntN(3))}
	if rng.IntN(4) > 0 {
		spec["parts"] = []any{
			map[string]any{"name": "wheel", "count": int64(rng.IntN(3))},
			map[string]any{"name": "axle", "count": int64(1)},
		}
	}
	w := map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget", "metadata": md, "spec": spec}
	if rng.IntN(2) == 0 {
		w["status"] = map[string]any{"phase": "Ready", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	}
	return w
}

// mutate returns a deep copy of w with a few random changes: scalars changed or
// nulled, members removed or added, objects emptied, list items changed, added,
// duplicated or reordered.
func mutate(rng *rand.Rand, w map[string]any) map[string]any {
	out := scheme.DeepCopyJSONValue(w).(map[string]any)
	for range rng.IntN(4) {
		mutateMap(rng, out, 0)
	}
	return out
}

func mutateMap(rng *rand.Rand, m map[string]any, depth int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if len(keys) == 0 || rng.IntN(6) == 0 {
		switch depth {
		case 0:
			m[[]string{"spec", "status", "metadata"}[rng.IntN(3)]] = map[string]any{}
		default:
			m[[]string{"labels", "color", "replicas", "phase", "x"}[rng.IntN(5)]] = randomScalar(rng)
		}
		return
	}
	// Map iteration order is random: sort for a reproducible choice.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	k := keys[rng.IntN(len(keys))]
	switch v := m[k].(type) {
	case map[string]any:
		switch rng.IntN(5) {
		case 0:
			m[k] = map[string]any{}
		case 1:
			m[k] = nil
		default:
			mutateMap(rng, v, depth+1)
		}
	case []any:
		mutateList(rng, m, k, v)
	default:
		switch rng.IntN(4) {
		case 0:
			delete(m, k)
		case 1:
			m[k] = nil
		default:
			m[k] = randomScalar(rng)
		}
	}
}

func mutateList(rng *rand.Rand, m map[string]any, k string, l []any) {
	if len(l) == 0 {
		delete(m, k)
		return
	}
	switch rng.IntN(6) {
	case 0:
		m[k] = []any{}
	case 1:
		m[k] = append(l, scheme.DeepCopyJSONValue(l[rng.IntN(len(l))])) // a duplicate
	case 2:
		m[k] = append([]any{l[len(l)-1]}, l[:len(l)-1]...) // reordered
	case 3:
		if item, ok := l[0].(map[string]any); ok {
			item["count"] = int64(rng.IntN(5))
		} else {
			l[0] = "f" + fmt.Sprint(rng.IntN(4))
		}
	case 4:
		if item, ok := l[0].(map[string]any); ok {
			if _, isCondition := item["type"]; isCondition {
				m[k] = append(l, map[string]any{"type": fmt.Sprint("T", rng.IntN(3)), "status": "True"})
			} else {
				m[k] = append(l, map[string]any{"name": fmt.Sprint("p", rng.IntN(3)), "count": int64(rng.IntN(2))})
			}
		} else {
			m[k] = append(l, "f9")
		}
	default:
		delete(m, k)
	}
}

func randomScalar(rng *rand.Rand) any {
	switch rng.IntN(4) {
	case 0:
		return fmt.Sprint("s", rng.IntN(3))
	case 1:
		return int64(rng.IntN(3))
	case 2:
		return nil
	default:
		return map[string]any{"k": fmt.Sprint(rng.IntN(2))}
	}
}

// newWidgetFieldManager is the field manager of v1 Widgets as package rest makes it:
// status reset, the typed zero object, and a fixed clock.
func newWidgetFieldManager(t *testing.T) *FieldManager {
	t.Helper()
	zero := map[string]any{"metadata": map[string]any{"creationTimestamp": nil}, "spec": map[string]any{"color": ""}, "status": map[string]any{}}
	fm, err := NewFieldManager(testapi.NewScheme(), scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}, Options{
		ResetFields: []string{"status"},
		Now:         func() scheme.Time { return scheme.Time{Time: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)} },
		Empty:       func() map[string]any { return zero },
	})
	if err != nil {
		t.Fatal(err)
	}
	return fm
}

// TestCreateShapes_CachedCreatesRecordWhatTheyCompute creates random Widgets (as
// TestWithoutCommonFields_CompareSeesTheSameChanges makes them, with random names and
// values, so that many share a shape) through the cache of creates and checks each
// entry against the one computed without it.
func TestCreateShapes_CachedCreatesRecordWhatTheyCompute(t *testing.T) {
	fm := newWidgetFieldManager(t)
	// Pairs that differ where the shape must tell them apart: a list item's key, a
	// scalar equal to the zero object's or not; and one where it must not.
	fixed := []string{
		`{"metadata":{"name":"a"},"spec":{"color":"red","parts":[{"name":"wheel"}]}}`,
		`{"metadata":{"name":"b"},"spec":{"color":"red","parts":[{"name":"axle"}]}}`,
		`{"metadata":{"name":"c"},"spec":{"color":"","parts":[{"name":"axle"}]}}`,
		`{"metadata":{"name":"d","labels":{"x":"1"}},"spec":{"color":"blue","parts":[{"name":"axle"}]}}`,
		`{"metadata":{"name":"e","labels":{"x":"2"}},"spec":{"color":"green","parts":[{"name":"axle"}]}}`,
	}
	rng := rand.New(rand.NewPCG(2, 16))
	const creates = 2000
	for i := range creates {
		obj := mutate(rng, randomWidget(rng))
		if i < len(fixed) {
			v, err := scheme.DecodeJSONValue([]byte(fixed[i]))
			if err != nil {
				t.Fatal(err)
			}
			obj = v.(map[string]any)
		}
		md, _ := obj["metadata"].(map[string]any)
		if md != nil {
			md["name"] = fmt.Sprint("w", i)
		}
		manager := []string{"kubectl", "Go-http-client"}[rng.IntN(2)]
		if i < len(fixed) {
			manager = "fixed"
		}
		got, gotErr := fm.Update(nil, obj, manager)
		want, wantErr := fm.update(nil, obj, manager)
		if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("create %d of %v: %v, %v; computed %v, %v", i, obj, got, gotErr, want, wantErr)
		}
	}
	if n := len(fm.creates.entries); n == 0 || n > creates/2 {
		t.Fatalf("%d shapes cached for %d creates: the cache is not exercised", n, creates)
	}
}

// TestUpdateShapes_CachedUpdatesRecordWhatTheyCompute runs random updates by a few
// managers on random Widgets through one field manager, whose cache of updates sees
// many shapes again, and checks each result against a fresh field manager's.
func TestUpdateShapes_CachedUpdatesRecordWhatTheyCompute(t *testing.T) {
	newFM := func() *FieldManager { return newWidgetFieldManager(t) }
	cached := newFM()
	// The same update of one object that changes nothing, then a value: their shapes
	// differ only where a scalar is equal on both sides or not.
	fixedLive := map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"color": "red", "replicas": int64(1)}}
	fixedEntries, err := cached.Update(nil, fixedLive, "creator")
	if err != nil {
		t.Fatal(err)
	}
	fixedLive["metadata"].(map[string]any)["uid"] = "u"
	fixedLive["metadata"].(map[string]any)["managedFields"] = fixedEntries
	for _, color := range []string{"red", "blue", "blue", "red"} {
		next := map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"color": color, "replicas": int64(1)}}
		got, gotErr := cached.Update(fixedLive, next, "editor")
		want, wantErr := newFM().Update(fixedLive, next, "editor")
		if gotErr != nil || wantErr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("update to color %s: %v, %v; computed %v, %v", color, got, gotErr, want, wantErr)
		}
	}
	rng := rand.New(rand.NewPCG(3, 16))
	managers := []string{"kubectl", "controller", "Go-http-client"}
	updates := 0
	for i := range 300 {
		live := randomWidget(rng)
		entries, err := cached.Update(nil, live, managers[rng.IntN(len(managers))])
		if err != nil {
			continue
		}
		live["metadata"].(map[string]any)["uid"] = fmt.Sprint("u", i)
		for range 8 {
			next := mutate(rng, live)
			if md, ok := next["metadata"].(map[string]any); ok && rng.IntN(2) == 0 {
				md["resourceVersion"] = fmt.Sprint(rng.IntN(9))
			}
			withEntries := scheme.DeepCopyJSONValue(live).(map[string]any)
			withEntries["metadata"].(map[string]any)["managedFields"] = entries
			manager := managers[rng.IntN(len(managers))]
			got, gotErr := cached.Update(withEntries, next, manager)
			want, wantErr := newFM().Update(withEntries, next, manager)
			if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("update of %v\nto %v by %s: %v, %v; computed %v, %v", withEntries, next, manager, got, gotErr, want, wantErr)
			}
			if gotErr != nil {
				continue
			}
			updates++
			if md, ok := next["metadata"].(map[string]any); ok {
				md["uid"] = fmt.Sprint("u", i)
				live, entries = next, got
			}
		}
	}
	if n := len(cached.updates.entries); updates < 1000 || n == 0 || n > updates*3/4 {
		t.Fatalf("%d shapes cached for %d updates: the cache is not exercised", n, updates)
	}
}
