package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// benchWidget is a Widget of roughly 1.5 KB of JSON: labels, annotations, tags.
func benchWidget(ns, name string, i int) *storagetest.Widget {
	w := storagetest.NewWidget(ns, name, map[string]string{
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

// populate fills a store with n widgets spread over namespaces of perNS objects each.
func populate(b *testing.B, n, perNS int) *memory.Store {
	b.Helper()
	s := memory.New(memory.Options{})
	b.Cleanup(s.Close)
	ctx := context.Background()
	for i := range n {
		ns := fmt.Sprintf("ns-%04d", i/perNS)
		name := fmt.Sprintf("w-%06d", i)
		if _, err := s.Create(ctx, storage.Key(storagetest.Widgets, ns, name), benchWidget(ns, name, i)); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

func BenchmarkWrites(b *testing.B) {
	ctx := context.Background()
	s := populate(b, 10000, 1000)
	b.Run("Create", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			name := fmt.Sprintf("new-%d", i)
			if _, err := s.Create(ctx, storage.Key(storagetest.Widgets, "bench", name), benchWidget("bench", name, i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	key := storage.Key(storagetest.Widgets, "ns-0001", "w-001500")
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
				cur.(*storagetest.Widget).Spec.Size++
				return cur, nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	list := func(s *memory.Store, prefix string, opts storage.ListOptions, want int) func(b *testing.B) {
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
	all := storage.Prefix(storagetest.Widgets, "")
	small := populate(b, 10000, 3000)
	b.Run("All/10k", list(small, all, storage.ListOptions{}, 10000))

	big := populate(b, 100000, 3000)
	b.Run("All/100k", list(big, all, storage.ListOptions{}, 100000))
	b.Run("Namespace/3k-of-100k", list(big, storage.Prefix(storagetest.Widgets, "ns-0010"), storage.ListOptions{}, 3000))
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
		if _, err := big.Create(ctx, storage.Key(storagetest.Widgets, ns, name), benchWidget(ns, name, i)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("ContinuedPage/500-of-100k", list(big, all, storage.ListOptions{Limit: 500, Continue: first.Continue}, 500))
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
}
