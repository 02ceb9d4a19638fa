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

var sharedWidgets = scheme.GroupResource{Group: "example.com", Resource: "widgets"}

// newSharedListStore holds n widgets in namespace ns (w-000, w-001, ...; label
// shard = i mod 3), written at versions 1..n.
func newSharedListStore(t *testing.T, n int) *memory.Store {
	t.Helper()
	s := memory.New(memory.Options{})
	t.Cleanup(s.Close)
	for i := range n {
		w := storagetest.NewWidget("ns", fmt.Sprintf("w-%03d", i), map[string]string{"shard": fmt.Sprint(i % 3)}, int64(i))
		if _, err := s.Create(context.Background(), storage.Key(sharedWidgets, "ns", w.Name), w); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// A shared list allocates per page, not per item: nothing of an item is copied.
func TestListShared_AllocatesNothingPerItem(t *testing.T) {
	ctx := context.Background()
	const n = 200
	s := newSharedListStore(t, n)
	prefix := storage.Prefix(sharedWidgets, "ns")
	for _, tt := range []struct {
		name string
		list func(context.Context, string, storage.ListOptions) (*storage.ListResult, error)
		less bool
	}{
		{"ListShared", s.ListShared, true},
		{"List", s.List, false},
	} {
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := tt.list(ctx, prefix, storage.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		})
		if got := allocs < n; got != tt.less {
			t.Errorf("%s: %.0f allocations for %d items", tt.name, allocs, n)
		}
	}
}
