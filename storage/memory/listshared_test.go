package memory_test

import (
	"context"
	"fmt"
	"reflect"
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

func TestListShared_IsListWithoutTheCopies(t *testing.T) {
	ctx := context.Background()
	s := newSharedListStore(t, 10)
	prefix := storage.Prefix(sharedWidgets, "ns")
	first, err := s.List(ctx, prefix, storage.ListOptions{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	sel, err := storage.ParseLabelSelector("shard=1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts storage.ListOptions
	}{
		{"everything", storage.ListOptions{}},
		{"a first page", storage.ListOptions{Limit: 4}},
		{"the next page", storage.ListOptions{Limit: 4, Continue: first.Continue}},
		{"selected by label", storage.ListOptions{Predicate: storage.Predicate{Label: sel}}},
		{"at an exact older version", storage.ListOptions{ResourceVersion: "5", ResourceVersionMatch: storage.ResourceVersionMatchExact}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := func(list func(context.Context, string, storage.ListOptions) (*storage.ListResult, error)) *storage.ListResult {
				t.Helper()
				lr, err := list(ctx, prefix, tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				return lr
			}
			copies, shared := list(s.List), list(s.ListShared)
			if !reflect.DeepEqual(shared, copies) {
				t.Fatalf("ListShared = %+v, List = %+v", shared, copies)
			}
			if len(shared.Items) == 0 {
				t.Fatal("listed nothing")
			}
			again, copiesAgain := list(s.ListShared), list(s.List)
			for i := range shared.Items {
				if shared.Items[i] != again.Items[i] {
					t.Errorf("item %d: two shared lists hold different objects; want the stored one", i)
				}
				if copies.Items[i] == copiesAgain.Items[i] || copies.Items[i] == shared.Items[i] {
					t.Errorf("item %d: List handed out an object it had handed out before; want a copy", i)
				}
			}
		})
	}
}

// Sharing is safe because the store never changes an object once stored: a write
// stores a new object in its place. What an earlier ListShared handed out stays as it
// was through updates and deletes.
func TestListShared_ObjectsHandedOutStayAsTheyWereThroughWrites(t *testing.T) {
	ctx := context.Background()
	s := newSharedListStore(t, 3)
	prefix := storage.Prefix(sharedWidgets, "ns")
	shared, err := s.ListShared(ctx, prefix, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := make([]scheme.Object, len(shared.Items))
	for i, o := range shared.Items {
		before[i] = scheme.DeepCopy(o)
	}
	if _, err := s.GuaranteedUpdate(ctx, storage.Key(sharedWidgets, "ns", "w-000"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
		w := cur.(*storagetest.Widget)
		w.Spec.Size = 99
		w.Labels["shard"] = "changed"
		return w, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, storage.Key(sharedWidgets, "ns", "w-001"), storage.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, o := range shared.Items {
		if !reflect.DeepEqual(o, before[i]) {
			t.Errorf("item %d changed after the writes: %+v, want %+v", i, o, before[i])
		}
	}
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
