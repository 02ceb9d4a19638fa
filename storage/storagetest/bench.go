package storagetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// BenchWidget returns a Widget of roughly 1.5 KB of JSON (labels, annotations, tags), the
// object of the backend benchmarks. Its "app" label is "app-<i mod 100>".
func BenchWidget(ns, name string, i int) *Widget {
	w := NewWidget(ns, name, map[string]string{
		"app": fmt.Sprintf("app-%d", i%100), "tier": "backend", "team": "storage", "env": "prod",
	}, int64(i))
	w.Annotations = map[string]string{
		"description": strings.Repeat("d", 600),
		"owner":       "someone@example.com",
	}
	for j := range 20 {
		w.Spec.Tags = append(w.Spec.Tags, fmt.Sprintf("tag-%02d-%s", j, strings.Repeat("t", 20)))
	}
	return w
}

// Populate creates n BenchWidgets in s, named "w-%06d" and spread over namespaces
// "ns-%04d" of perNS objects each.
func Populate(tb testing.TB, s storage.Interface, n, perNS int) {
	tb.Helper()
	ctx := context.Background()
	for i := range n {
		ns := fmt.Sprintf("ns-%04d", i/perNS)
		name := fmt.Sprintf("w-%06d", i)
		if _, err := s.Create(ctx, storage.Key(Widgets, ns, name), BenchWidget(ns, name, i)); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkWrites measures Create, Get and GuaranteedUpdate of one BenchWidget in a
// backend holding 10,000 of them. newBackend returns an empty backend (and registers its
// cleanup). Backends call it from their own Benchmark functions, so that every backend
// is measured on the same shapes.
func BenchmarkWrites(b *testing.B, newBackend func(b *testing.B) storage.Interface) {
	ctx := context.Background()
	s := newBackend(b)
	Populate(b, s, 10000, 1000)
	// The objects to create are made before the clock runs: the benchmark measures the
	// backend, not the fixture.
	created := 0 // across the runs of the sub-benchmark: names stay unique
	b.Run("Create", func(b *testing.B) {
		const batch = 1000
		objs := make([]*Widget, batch)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%batch == 0 {
				b.StopTimer()
				for j := range objs {
					name := fmt.Sprintf("new-%d", created+j)
					objs[j] = BenchWidget("bench", name, created+j)
				}
				created += batch
				b.StartTimer()
			}
			w := objs[i%batch]
			if _, err := s.Create(ctx, storage.Key(Widgets, "bench", w.Name), w); err != nil {
				b.Fatal(err)
			}
		}
	})
	key := storage.Key(Widgets, "ns-0001", "w-001500")
	b.Run("Get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Get(ctx, key, storage.GetOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GuaranteedUpdate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := s.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.(*Widget).Spec.Size++
				return cur, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkList measures lists over 10,000 and 100,000 BenchWidgets in namespaces of
// 3,000: everything, one namespace, a label-selected tenth, pages of 500 (the first, a
// continued one read at an older snapshot, and all pages of 10,000). With -short the
// 100,000-object cases are skipped.
func BenchmarkList(b *testing.B, newBackend func(b *testing.B) storage.Interface) {
	ctx := context.Background()
	list := func(s storage.Interface, prefix string, opts storage.ListOptions, want int) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := s.List(ctx, prefix, opts)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Items) != want {
					b.Fatalf("got %d items, want %d", len(res.Items), want)
				}
			}
		}
	}
	all := storage.Prefix(Widgets, "")
	small := newBackend(b)
	Populate(b, small, 10000, 3000)
	b.Run("All/10k", list(small, all, storage.ListOptions{}, 10000))
	b.Run("AllPages/500s-of-10k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			opts := storage.ListOptions{Limit: 500}
			n := 0
			for {
				res, err := small.List(ctx, all, opts)
				if err != nil {
					b.Fatal(err)
				}
				n += len(res.Items)
				if res.Continue == "" {
					break
				}
				opts.Continue = res.Continue
			}
			if n != 10000 {
				b.Fatalf("got %d items", n)
			}
		}
	})
	if testing.Short() {
		b.Log("-short: skipping the 100k cases")
		return
	}
	big := newBackend(b)
	Populate(b, big, 100000, 3000)
	b.Run("All/100k", list(big, all, storage.ListOptions{}, 100000))
	b.Run("Namespace/3k-of-100k", list(big, storage.Prefix(Widgets, "ns-0010"), storage.ListOptions{}, 3000))
	sel, err := storage.ParseLabelSelector("app=app-7")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("LabelSelected/1k-of-100k", list(big, all, storage.ListOptions{Predicate: storage.Predicate{Label: sel}}, 1000))
	b.Run("FirstPage/500-of-100k", list(big, all, storage.ListOptions{Limit: 500}, 500))
	first, err := big.List(ctx, all, storage.ListOptions{Limit: 500})
	if err != nil {
		b.Fatal(err)
	}
	// Writes after the first page: the continued page reads an older snapshot.
	for i := range 100 {
		ns := "ns-0001"
		name := fmt.Sprintf("late-%d", i)
		if _, err := big.Create(ctx, storage.Key(Widgets, ns, name), BenchWidget(ns, name, i)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("ContinuedPage/500-of-100k", list(big, all, storage.ListOptions{Limit: 500, Continue: first.Continue}, 500))
}
