package storagetest

import (
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// sharedListBehaviours run only for backends with ListShared.
var sharedListBehaviours = []behaviour{
	{"ListSharedIsListWithoutTheCopies", testListSharedIsListWithoutTheCopies},
	{"ListSharedObjectsStayAsTheyWereThroughWrites", testListSharedObjectsStayThroughWrites},
}

func (e env) sharedLister(t *testing.T) storage.SharedLister {
	t.Helper()
	sl, ok := e.s.(storage.SharedLister)
	if !ok {
		t.Skip("the backend has no ListShared")
	}
	return sl
}

func (e env) listShared(t *testing.T, sl storage.SharedLister, prefix string, opts storage.ListOptions) *storage.ListResult {
	t.Helper()
	res, err := sl.ListShared(e.ctx, prefix, opts)
	if err != nil {
		t.Fatalf("ListShared(%s, %+v): %v", prefix, opts, err)
	}
	return res
}

// ListShared gives the page List gives, for every kind of list; two shared pages hold
// the very same objects, where List hands out a copy each time.
func testListSharedIsListWithoutTheCopies(t *testing.T, e env) {
	sl := e.sharedLister(t)
	for i, name := range []string{"a", "b", "c", "d", "e"} {
		e.create(t, "ns1", name, map[string]string{"shard": string(rune('0' + i%2))}, int64(i))
	}
	old := e.currentRV(t)
	e.setSize(t, "ns1", "b", 42)
	prefix := e.k.prefix("ns1")
	first := e.list(t, prefix, storage.ListOptions{Limit: 2})
	type listCase struct {
		name string
		opts storage.ListOptions
		// mayDecode: the page may be read afresh rather than shared. A watch cache
		// serves an exact read older than its snapshots from its backend, and a backend
		// without ListShared (etcd) decodes new objects for every list.
		mayDecode bool
	}
	cases := []listCase{
		{name: "everything", opts: storage.ListOptions{}},
		{name: "at resourceVersion 0", opts: storage.ListOptions{ResourceVersion: "0"}},
		{name: "a first page", opts: storage.ListOptions{Limit: 2}},
		{name: "the next page", opts: storage.ListOptions{Limit: 2, Continue: first.Continue}},
		{name: "selected by label", opts: storage.ListOptions{Predicate: storage.Predicate{Label: mustLabels(t, "shard=1")}}},
	}
	if e.caps.ExactReads {
		cases = append(cases, listCase{name: "at an exact older version", mayDecode: true,
			opts: storage.ListOptions{ResourceVersion: storage.FormatResourceVersion(old), ResourceVersionMatch: storage.ResourceVersionMatchExact}})
	}
	for _, c := range cases {
		copies, shared := e.list(t, prefix, c.opts), e.listShared(t, sl, prefix, c.opts)
		if !reflect.DeepEqual(shared, copies) {
			t.Errorf("%s: ListShared = %+v, List = %+v", c.name, shared, copies)
			continue
		}
		if len(shared.Items) == 0 {
			t.Errorf("%s: listed nothing", c.name)
		}
		again, copiesAgain := e.listShared(t, sl, prefix, c.opts), e.list(t, prefix, c.opts)
		for i := range shared.Items {
			if shared.Items[i] != again.Items[i] && !c.mayDecode {
				t.Errorf("%s: item %d: two shared pages hold different objects; want the stored one", c.name, i)
			}
			if copies.Items[i] == copiesAgain.Items[i] || copies.Items[i] == shared.Items[i] {
				t.Errorf("%s: item %d: List handed out an object it had handed out before; want a copy", c.name, i)
			}
		}
	}
}

// Sharing is safe only if the backend never changes an object once stored: a write
// puts a new object in its place. What a shared page handed out stays as it was.
func testListSharedObjectsStayThroughWrites(t *testing.T, e env) {
	sl := e.sharedLister(t)
	for i, name := range []string{"a", "b", "c"} {
		e.create(t, "ns1", name, map[string]string{"app": "x"}, int64(i))
	}
	shared := e.listShared(t, sl, e.k.prefix("ns1"), storage.ListOptions{})
	before := make([]scheme.Object, len(shared.Items))
	for i, o := range shared.Items {
		before[i] = scheme.DeepCopy(o)
	}
	e.setSize(t, "ns1", "a", 99)
	if _, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "b"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
		cur.SetLabels(map[string]string{"app": "changed"})
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Delete(e.ctx, e.k.key("ns1", "c"), storage.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(shared.Items) != 3 {
		t.Fatalf("listed %v, want a, b and c", names(shared.Items))
	}
	for i, o := range shared.Items {
		if !reflect.DeepEqual(o, before[i]) {
			t.Errorf("item %d changed after the writes: %+v, want %+v", i, o, before[i])
		}
	}
}
