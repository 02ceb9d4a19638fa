package cache_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/cache"
)

// sameObjects reports whether two pages hold the very same objects, item by item.
func sameObjects(a, b *storage.ListResult) bool {
	if len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Items {
		if a.Items[i] != b.Items[i] {
			return false
		}
	}
	return true
}

// A page the cache serves shares the objects it holds, without asking the backend;
// List still hands out copies. (storagetest's behaviours check the rest of ListShared.)
func TestListShared_CachedPagesHoldTheCachedObjects(t *testing.T) {
	ctx := context.Background()
	b := newCountingBackend(t)
	c := newCache(t, b, cache.Options{})
	for _, name := range []string{"a", "b", "c"} {
		createWidget(t, c, "ns1", name, 1)
	}
	prefix := storage.Prefix(widgets, "ns1")
	list := func(list func(context.Context, string, storage.ListOptions) (*storage.ListResult, error)) *storage.ListResult {
		t.Helper()
		lr, err := list(ctx, prefix, storage.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		return lr
	}
	copies, shared, again := list(c.List), list(c.ListShared), list(c.ListShared)
	if len(shared.Items) != 3 || !reflect.DeepEqual(shared, copies) {
		t.Fatalf("ListShared = %+v, List = %+v", shared, copies)
	}
	if !sameObjects(shared, again) {
		t.Error("two shared pages hold different objects; want the cached ones")
	}
	if sameObjects(copies, list(c.List)) {
		t.Error("List handed out the objects it had handed out before; want copies")
	}
	if n := b.lists.Load(); n != 0 {
		t.Errorf("%d lists went to the backend; want every page from the cache", n)
	}
}

// A shared page the backend serves (an Exact read no snapshot holds) is the backend's
// ListShared, not a List.
func TestListShared_BackendPagesAreTheBackendsShared(t *testing.T) {
	ctx := context.Background()
	b := newCountingBackend(t)
	c := newCache(t, b, cache.Options{})
	old := createWidget(t, c, "ns1", "a", 1)
	createWidget(t, c, "ns1", "b", 1)
	exact := storage.ListOptions{ResourceVersion: old.GetResourceVersion(), ResourceVersionMatch: storage.ResourceVersionMatchExact}
	prefix := storage.Prefix(widgets, "")
	shared, err := c.ListShared(ctx, prefix, exact)
	if err != nil {
		t.Fatal(err)
	}
	if n := b.lists.Load(); n != 0 {
		t.Errorf("the shared page cost %d backend Lists; want its ListShared", n)
	}
	direct, err := b.ListShared(ctx, prefix, exact)
	if err != nil {
		t.Fatal(err)
	}
	if len(shared.Items) != 1 || !sameObjects(shared, direct) {
		t.Errorf("shared page %+v, want the backend's shared objects %+v", shared.Items, direct.Items)
	}
	copies, err := c.List(ctx, prefix, exact)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(copies, shared) || b.lists.Load() != 1 {
		t.Errorf("List = %+v after %d backend lists, want %+v from one", copies, b.lists.Load(), shared)
	}
}
