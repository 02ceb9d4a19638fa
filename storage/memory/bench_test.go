package memory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// The shared backend benchmarks of storagetest, on the memory backend:
//
//	go test ./storage/memory -run '^$' -bench . -benchtime=2000x
func newBenchStore(b *testing.B) storage.Interface {
	s := memory.New(memory.Options{})
	b.Cleanup(s.Close)
	return s
}

func BenchmarkWrites(b *testing.B) { storagetest.BenchmarkWrites(b, newBenchStore) }

func BenchmarkList(b *testing.B) { storagetest.BenchmarkList(b, newBenchStore) }

func BenchmarkWatchFanOut(b *testing.B) { storagetest.BenchmarkWatchFanOut(b, newBenchStore) }

// BenchmarkExactListRebuild lists one object at an old version that no cache holds: the
// cost of rebuilding a past state by undoing 1,000 writes on a store of 10,000 objects.
func BenchmarkExactListRebuild(b *testing.B) {
	ctx := context.Background()
	s := memory.New(memory.Options{})
	b.Cleanup(s.Close)
	storagetest.Populate(b, s, 10000, 1000)
	// Eight old versions, 1,000 writes apart: more than the cache of rebuilt states holds.
	var versions []string
	for i := range 8000 {
		if i%1000 == 0 {
			rv, err := s.CurrentResourceVersion(ctx)
			if err != nil {
				b.Fatal(err)
			}
			versions = append(versions, storage.FormatResourceVersion(rv))
		}
		key := storage.Key(storagetest.Widgets, "ns-0001", fmt.Sprintf("w-%06d", 1000+i%1000))
		if _, err := s.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
			cur.(*storagetest.Widget).Spec.Size++
			return cur, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		opts := storage.ListOptions{ResourceVersion: versions[i%len(versions)], ResourceVersionMatch: storage.ResourceVersionMatchExact, Limit: 1}
		if res, err := s.List(ctx, storage.Prefix(storagetest.Widgets, ""), opts); err != nil || len(res.Items) != 1 {
			b.Fatalf("list: %v", err)
		}
	}
}
