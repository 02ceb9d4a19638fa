package etcd

import (
	"errors"
	"testing"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
	"github.com/apikit-dev/apikit/watch"
)

// TestWatchConvert_SelectorTransitionsAndDeletions checks how etcd events become watch
// events under a label selector, without a server: the conversion reads only the
// event's current and previous values.
func TestWatchConvert_SelectorTransitionsAndDeletions(t *testing.T) {
	codec := NewCodec(testScheme(t))
	s := &Store{opts: Options{Prefix: "/registry"}, codec: codec}
	sel, err := storage.ParseLabelSelector("env=prod")
	if err != nil {
		t.Fatal(err)
	}
	key := storage.Key(storagetest.Widgets, "ns1", "a")
	kv := func(env string, size, create, mod int64) *mvccpb.KeyValue {
		data, err := codec.Encode(storagetest.NewWidget("ns1", "a", map[string]string{"env": env}, size))
		if err != nil {
			t.Fatal(err)
		}
		return &mvccpb.KeyValue{Key: []byte(s.etcdKey(key)), Value: data, CreateRevision: create, ModRevision: mod}
	}
	put := func(cur, prev *mvccpb.KeyValue) *clientv3.Event {
		return &clientv3.Event{Type: mvccpb.PUT, Kv: cur, PrevKv: prev}
	}
	del := func(rev int64, prev *mvccpb.KeyValue) *clientv3.Event {
		return &clientv3.Event{Type: mvccpb.DELETE, Kv: &mvccpb.KeyValue{Key: []byte(s.etcdKey(key)), ModRevision: rev}, PrevKv: prev}
	}
	for _, tc := range []struct {
		name     string
		ev       *clientv3.Event
		wantType watch.EventType // "" when the event is hidden
		wantSize int64
		wantRV   string
		wantErr  error
	}{
		{"a matching create is ADDED", put(kv("prod", 1, 5, 5), nil), watch.Added, 1, "5", nil},
		{"a create that does not match is hidden", put(kv("dev", 1, 5, 5), nil), "", 0, "", nil},
		{"an update that keeps matching is MODIFIED", put(kv("prod", 2, 5, 6), kv("prod", 1, 5, 5)), watch.Modified, 2, "6", nil},
		{"an update into the selector is ADDED", put(kv("prod", 2, 5, 6), kv("dev", 1, 5, 5)), watch.Added, 2, "6", nil},
		{"an update out of the selector is DELETED with the last matching state at the update's version", put(kv("dev", 2, 5, 6), kv("prod", 1, 5, 5)), watch.Deleted, 1, "6", nil},
		{"an update outside the selector is hidden", put(kv("dev", 2, 5, 6), kv("dev", 1, 5, 5)), "", 0, "", nil},
		{"a deletion carries the last state at the deletion's version", del(7, kv("prod", 3, 5, 6)), watch.Deleted, 3, "7", nil},
		{"a deletion of an object outside the selector is hidden", del(7, kv("dev", 3, 5, 6)), "", 0, "", nil},
		{"a deletion whose previous value was compacted ends the watch", del(7, nil), "", 0, "", errPrevCompacted},
		{"an update whose previous value was compacted ends the watch", put(kv("prod", 2, 5, 6), nil), "", 0, "", errPrevCompacted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &etcdWatch{s: s, opts: storage.WatchOptions{Predicate: storage.Predicate{Label: sel}}}
			got, ok, err := w.convert(tc.ev)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				return
			}
			if tc.wantType == "" {
				if ok {
					t.Errorf("sent %s, want the event hidden", got.Type)
				}
				return
			}
			obj, _ := got.Object.(*storagetest.Widget)
			if !ok || got.Type != tc.wantType || obj == nil || obj.Spec.Size != tc.wantSize || obj.ResourceVersion != tc.wantRV {
				t.Errorf("got %s (sent %v) %#v, want %s of size %d at %s", got.Type, ok, got.Object, tc.wantType, tc.wantSize, tc.wantRV)
			}
		})
	}
}
