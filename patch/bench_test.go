package patch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/patch"
)

// widget50 is a Widget with 50 parts, as JSON.
func widget50(color string, count int) string {
	var ps []string
	for i := 0; i < 50; i++ {
		ps = append(ps, fmt.Sprintf(`{"name":"part-%02d","count":%d}`, i, count))
	}
	return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","labels":{"app":"bench"}},"spec":{"color":"` + color + `","replicas":3,"parts":[` + strings.Join(ps, ",") + `]}}`
}

func BenchmarkJSONPatch(b *testing.B) {
	b.ReportAllocs()
	doc := []byte(widget50("red", 1))
	p, err := patch.DecodeJSONPatch([]byte(`[{"op":"test","path":"/spec/color","value":"red"},{"op":"replace","path":"/spec/parts/10/count","value":7}]`))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := p.Apply(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMergePatch(b *testing.B) {
	b.ReportAllocs()
	doc := []byte(widget50("red", 1))
	p := []byte(`{"metadata":{"labels":{"tier":"gold"}},"spec":{"color":"blue"}}`)
	for b.Loop() {
		if _, err := patch.MergePatch(doc, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStrategicMerge(b *testing.B) {
	b.ReportAllocs()
	doc := []byte(widget50("red", 1))
	p := []byte(`{"spec":{"$setElementOrder/parts":[{"name":"part-00"},{"name":"part-01"}],"parts":[{"name":"part-01","count":9},{"name":"part-49","$patch":"delete"}]}}`)
	sch := widgetSchema(b)
	for b.Loop() {
		if _, err := patch.StrategicMerge(doc, p, sch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply50Parts applies a configuration that changes every part's count to a
// live Widget with 50 parts that the same manager applied before.
func BenchmarkApply50Parts(b *testing.B) {
	b.ReportAllocs()
	fm := newFieldManager(b, patch.Options{ResetFields: []string{"status"}})
	live, managed, err := fm.Apply(nil, obj(b, widget50("red", 1)), "bench", false)
	if err != nil {
		b.Fatal(err)
	}
	live = withManaged(b, live, managed)
	cfg := obj(b, widget50("red", 2))
	for b.Loop() {
		if _, _, err := fm.Apply(live, cfg, "bench", false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply50PartsCreate applies a Widget with 50 parts that does not exist yet.
func BenchmarkApply50PartsCreate(b *testing.B) {
	b.ReportAllocs()
	fm := newFieldManager(b, patch.Options{ResetFields: []string{"status"}})
	cfg := obj(b, widget50("red", 2))
	for b.Loop() {
		if _, _, err := fm.Apply(nil, cfg, "bench", false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateManagedFields50Parts records the managed fields of an update that
// changes one part of a Widget with 50 parts.
func BenchmarkUpdateManagedFields50Parts(b *testing.B) {
	b.ReportAllocs()
	fm := newFieldManager(b, patch.Options{ResetFields: []string{"status"}})
	zero := obj(b, `{"spec":{"color":""}}`)
	created := obj(b, widget50("red", 1))
	managed, err := fm.Update(zero, created, "creator")
	if err != nil {
		b.Fatal(err)
	}
	live := withManaged(b, created, managed)
	live["metadata"].(map[string]any)["uid"] = "u1"
	next := obj(b, widget50("red", 1))
	next["spec"].(map[string]any)["parts"].([]any)[7].(map[string]any)["count"] = int64(5)
	next["metadata"].(map[string]any)["uid"] = "u1"
	for b.Loop() {
		if _, err := fm.Update(live, next, "editor"); err != nil {
			b.Fatal(err)
		}
	}
}

// widgetWithParts is a Widget with n parts named as the REST limits test names them
// ("p00000", ..., "p99999", "p100000", ...: not in key order past 100,000).
func widgetWithParts(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"name":"p%05d","count":1}`, i)
	}
	return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"color":"red","parts":[` + strings.Join(parts, ",") + `]}}`
}

// widgetWithShuffledParts is a Widget with n parts in no key order.
func widgetWithShuffledParts(n int) string {
	parts := make([]string, n)
	for i := range parts {
		// 7919 is prime and coprime with every n benchmarked, so this visits each
		// index once in a scrambled order.
		parts[i] = fmt.Sprintf(`{"name":"p%d","count":1}`, (i*7919)%n)
	}
	return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"color":"red","parts":[` + strings.Join(parts, ",") + `]}}`
}

// BenchmarkUpdateManagedFieldsCreate150000Parts records the managed fields of the
// create the REST limits test refuses by default: 150,000 parts, out of key order from
// the 100,001st on.
func BenchmarkUpdateManagedFieldsCreate150000Parts(b *testing.B) {
	b.ReportAllocs()
	fm := newFieldManager(b, patch.Options{ResetFields: []string{"status"}})
	zero := obj(b, `{"spec":{"color":""}}`)
	created := obj(b, widgetWithParts(150000))
	for b.Loop() {
		if _, err := fm.Update(zero, created, "creator"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateManagedFieldsCreate records the managed fields of a create (live is
// the kind's zero object) of Widgets with many parts, in key order and not.
func BenchmarkUpdateManagedFieldsCreate(b *testing.B) {
	for _, tc := range []struct {
		name string
		js   func(int) string
	}{{"sorted", widgetWithParts}, {"shuffled", widgetWithShuffledParts}} {
		for _, n := range []int{1, 50, 5000, 20000} {
			b.Run(fmt.Sprintf("order=%s/parts=%d", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				fm := newFieldManager(b, patch.Options{ResetFields: []string{"status"}})
				zero := obj(b, `{"spec":{"color":""}}`)
				created := obj(b, tc.js(n))
				for b.Loop() {
					if _, err := fm.Update(zero, created, "creator"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
