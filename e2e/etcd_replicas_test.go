package e2e

import (
	"errors"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
	"github.com/apikit-dev/apikit/storage/storagetest"
	"github.com/apikit-dev/apikit/watch"
)

// etcdSafetyDeadline bounds every wait of these tests, so a broken store fails instead
// of hanging; it is never an assertion about speed.
const etcdSafetyDeadline = 30 * time.Second

func nextEtcdEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	timer := time.NewTimer(etcdSafetyDeadline)
	defer timer.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-timer.C:
		t.Fatal("no event before the safety deadline")
	}
	return watch.Event{}
}

func setWidgetSize(size int64) storage.UpdateFunc {
	return func(cur scheme.Object) (scheme.Object, error) {
		cur.(*storagetest.Widget).Spec.Size = size
		return cur, nil
	}
}

// TestEtcd_TwoReplicasShareOneCluster: two Stores on one prefix behave as one store:
// a write through either is seen by a watch on the other in order, optimistic
// concurrency holds across them and a name is created only once.
func TestEtcd_TwoReplicasShareOneCluster(t *testing.T) {
	e := startTestEtcd(t)
	a := newEtcdStore(t, e, etcdstore.Options{Prefix: "/replicas"})
	b := newEtcdStore(t, e, etcdstore.Options{Prefix: "/replicas"})
	ctx := t.Context()
	key := storage.Key(storagetest.Widgets, "ns1", "w")

	t.Run("writes through one are watched on the other in order", func(t *testing.T) {
		start, err := a.CurrentResourceVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.Watch(ctx, storage.Prefix(storagetest.Widgets, "ns1"), storage.WatchOptions{Recursive: true, ResourceVersion: storage.FormatResourceVersion(start)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		created, err := a.Create(ctx, key, storagetest.NewWidget("ns1", "w", nil, 1))
		if err != nil {
			t.Fatal(err)
		}
		updated, err := b.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, setWidgetSize(2))
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			typ watch.EventType
			rv  string
		}{{watch.Added, created.GetResourceVersion()}, {watch.Modified, updated.GetResourceVersion()}}
		for _, wnt := range want {
			ev := nextEtcdEvent(t, w)
			obj := ev.Object.(scheme.Object)
			if ev.Type != wnt.typ || obj.GetResourceVersion() != wnt.rv {
				t.Fatalf("event %s at %s, want %s at %s", ev.Type, obj.GetResourceVersion(), wnt.typ, wnt.rv)
			}
		}
	})

	t.Run("a stale update on one replica after a write on the other is a conflict", func(t *testing.T) {
		seen, err := a.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, setWidgetSize(3)); err != nil {
			t.Fatal(err)
		}
		_, err = a.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
			cur.(*storagetest.Widget).Spec.Size = 4
			cur.SetResourceVersion(seen.GetResourceVersion())
			return cur, nil
		})
		if !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("error = %v, want ErrConflict", err)
		}
	})

	t.Run("concurrent increments through both replicas lose nothing", func(t *testing.T) {
		before, err := a.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		base := before.(*storagetest.Widget).Spec.Size
		const each = 20
		var wg sync.WaitGroup
		for _, s := range []*etcdstore.Store{a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					if _, err := s.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
						cur.(*storagetest.Widget).Spec.Size++
						return cur, nil
					}); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		got, err := b.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if size := got.(*storagetest.Widget).Spec.Size; size != base+4*each {
			t.Errorf("size = %d, want %d: an update was lost between replicas", size, base+4*each)
		}
	})

	t.Run("one name is created once across replicas", func(t *testing.T) {
		const tries = 10
		for i := range tries {
			name := fmt.Sprintf("race%d", i)
			k := storage.Key(storagetest.Widgets, "ns1", name)
			errs := make(chan error, 2)
			for _, s := range []*etcdstore.Store{a, b} {
				go func() {
					_, err := s.Create(ctx, k, storagetest.NewWidget("ns1", name, nil, 1))
					errs <- err
				}()
			}
			e1, e2 := <-errs, <-errs
			won := 0
			for _, err := range []error{e1, e2} {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, storage.ErrAlreadyExists):
					t.Fatalf("create: %v", err)
				}
			}
			if won != 1 {
				t.Fatalf("%s was created %d times", name, won)
			}
		}
	})
}

// TestEtcd_CompactorsOfTwoReplicasCompact: replicas with a compactor each compact the
// shared history in rounds they claim through the compact key; a read below the
// compacted revision then fails with ErrGone.
func TestEtcd_CompactorsOfTwoReplicasCompact(t *testing.T) {
	e := startTestEtcd(t)
	opts := etcdstore.Options{Prefix: "/compacting", CompactionInterval: 20 * time.Millisecond}
	a := newEtcdStore(t, e, opts)
	newEtcdStore(t, e, opts)
	ctx := t.Context()
	key := storage.Key(storagetest.Widgets, "ns1", "w")
	created, err := a.Create(ctx, key, storagetest.NewWidget("ns1", "w", nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	prefix := storage.Prefix(storagetest.Widgets, "ns1")
	deadline := time.Now().Add(etcdSafetyDeadline)
	for i := int64(2); ; i++ {
		if _, err := a.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, setWidgetSize(i)); err != nil {
			t.Fatal(err)
		}
		_, err := a.List(ctx, prefix, storage.ListOptions{ResourceVersion: created.GetResourceVersion(), ResourceVersionMatch: storage.ResourceVersionMatchExact})
		if errors.Is(err, storage.ErrGone) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("no compaction before the safety deadline")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{e.Endpoint}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Get(ctx, "/compacting/compact_rev_key")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || resp.Kvs[0].Version < 2 {
		t.Errorf("compact key = %v, want one key written in at least two rounds", resp.Kvs)
	}
}

// TestEtcd_BookmarksComeFromProgressNotifications: a watch that allows bookmarks gets
// BOOKMARK events at the cluster's revision though nothing under its key changes.
func TestEtcd_BookmarksComeFromProgressNotifications(t *testing.T) {
	e := startTestEtcd(t)
	s := newEtcdStore(t, e, etcdstore.Options{BookmarkInterval: 20 * time.Millisecond})
	ctx := t.Context()
	other, err := s.Create(ctx, storage.Key(storagetest.Gadgets, "ns1", "g"), storagetest.NewGadget("ns1", "g", nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, storage.Prefix(storagetest.Widgets, ""), storage.WatchOptions{
		Recursive: true, Bookmarks: true, ResourceVersion: "1",
		NewBookmarkObject: func() scheme.Object { return &storagetest.Widget{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev := nextEtcdEvent(t, w)
	if ev.Type != watch.Bookmark {
		t.Fatalf("got %s, want BOOKMARK", ev.Type)
	}
	bm, ok := ev.Object.(*storagetest.Widget)
	if !ok || bm.ResourceVersion == "" {
		t.Fatalf("bookmark object %#v, want a Widget with a resourceVersion", ev.Object)
	}
	if rv, _ := storage.ParseResourceVersion(bm.ResourceVersion); rv < mustParseRV(t, other.GetResourceVersion()) {
		t.Errorf("bookmark at %d, before the write at %s that the cluster had made", rv, other.GetResourceVersion())
	}
}

func mustParseRV(t *testing.T, s string) uint64 {
	t.Helper()
	rv, err := storage.ParseResourceVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

// TestEtcd_CloseEndsWatches: closing a Store ends its watches, so no goroutine
// outlives it.
func TestEtcd_CloseEndsWatches(t *testing.T) {
	e := startTestEtcd(t)
	s := newEtcdStore(t, e, etcdstore.Options{})
	w, err := s.Watch(t.Context(), storage.Prefix(storagetest.Widgets, ""), storage.WatchOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	timer := time.NewTimer(etcdSafetyDeadline)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-timer.C:
			t.Fatal("watch still open after Close")
		}
	}
}

// TestEtcd_RecoversWhenEtcdReturns: while etcd is down requests fail with
// ErrUnavailable; once it is back on the same address the same Store serves again, and
// a watch opened before the outage delivers the writes made after it.
func TestEtcd_RecoversWhenEtcdReturns(t *testing.T) {
	dir := t.TempDir()
	e := startTestEtcdAt(t, dir, "127.0.0.1:0")
	addr := mustHost(t, e.Endpoint)
	s := newEtcdStore(t, e, etcdstore.Options{RequestTimeout: 300 * time.Millisecond})
	ctx := t.Context()
	key := storage.Key(storagetest.Widgets, "ns1", "w")
	created, err := s.Create(ctx, key, storagetest.NewWidget("ns1", "w", nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, key, storage.WatchOptions{ResourceVersion: created.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	e.Stop()
	if _, err := s.Get(ctx, key, storage.GetOptions{}); !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("Get with etcd down: %v, want ErrUnavailable", err)
	}
	startTestEtcdAt(t, dir, addr)
	var updated scheme.Object
	deadline := time.Now().Add(etcdSafetyDeadline)
	for {
		updated, err = s.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, setWidgetSize(2))
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrUnavailable) || time.Now().After(deadline) {
			t.Fatalf("update after etcd returned: %v", err)
		}
	}
	ev := nextEtcdEvent(t, w)
	if ev.Type != watch.Modified || ev.Object.(scheme.Object).GetResourceVersion() != updated.GetResourceVersion() {
		t.Errorf("watch after the outage got %s at %s, want MODIFIED at %s", ev.Type, ev.Object.(scheme.Object).GetResourceVersion(), updated.GetResourceVersion())
	}
}

func mustHost(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestEtcd_RequestWatchProgressBookmarksWatchesAtTheClusterRevision: after
// RequestWatchProgress, a watch that allows bookmarks gets a BOOKMARK at the revision of
// a write to another resource, without waiting for the bookmark interval; this is how a
// watch cache in front of the Store learns it is caught up.
func TestEtcd_RequestWatchProgressBookmarksWatchesAtTheClusterRevision(t *testing.T) {
	e := startTestEtcd(t)
	s := newEtcdStore(t, e, etcdstore.Options{BookmarkInterval: time.Hour})
	ctx := t.Context()
	start, err := s.CurrentResourceVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, storage.Prefix(storagetest.Widgets, ""), storage.WatchOptions{
		Recursive: true, Bookmarks: true, ResourceVersion: storage.FormatResourceVersion(start),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	other, err := s.Create(ctx, storage.Key(storagetest.Gadgets, "ns1", "g"), storagetest.NewGadget("ns1", "g", nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := mustParseRV(t, other.GetResourceVersion())
	// etcd answers a progress request only once the watch has caught up; a bounded
	// number of requests covers a watch that is still starting.
	for range 100 {
		if err := s.RequestWatchProgress(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch closed")
			}
			rv := mustParseRV(t, ev.Object.(scheme.Object).GetResourceVersion())
			if ev.Type != watch.Bookmark || rv < want {
				t.Fatalf("got %s at %d, want a BOOKMARK at %d or later", ev.Type, rv, want)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatal("no bookmark after 100 progress requests")
}
