package bolt

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// The durable store lists its engine's stored objects as the memory store does: the
// same page as List, without a copy of each item.
func TestListShared_IsListWithoutTheCopies(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "state.db"), Options{})
	gr := scheme.GroupResource{Group: "example.com", Resource: "widgets"}
	for i := range 3 {
		w := storagetest.NewWidget("ns", fmt.Sprintf("w-%d", i), nil, int64(i))
		if _, err := s.Create(ctx, storage.Key(gr, "ns", w.Name), w); err != nil {
			t.Fatal(err)
		}
	}
	prefix := storage.Prefix(gr, "ns")
	copies, err := s.List(ctx, prefix, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shared, err := s.ListShared(ctx, prefix, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.ListShared(ctx, prefix, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(shared.Items) != 3 || !reflect.DeepEqual(shared, copies) {
		t.Fatalf("ListShared = %+v, List = %+v", shared, copies)
	}
	for i := range shared.Items {
		if shared.Items[i] != again.Items[i] {
			t.Errorf("item %d: two shared lists hold different objects; want the stored one", i)
		}
	}
}
