package storagetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

var crudBehaviours = []behaviour{
	{"Create_StoresACopyAndReturnsItsArgumentWithTheNewResourceVersion", func(t *testing.T, e env) {
		in := e.k.new("ns1", "a", map[string]string{"app": "x"}, 1)
		out, err := e.s.Create(e.ctx, e.k.key("ns1", "a"), in)
		if err != nil {
			t.Fatal(err)
		}
		if out != in {
			t.Errorf("Create returned %p, not its argument %p", out, in)
		}
		rv := rvOf(t, in.GetResourceVersion())
		if cur := e.currentRV(t); cur != rv {
			t.Errorf("Create set resourceVersion %d; the store is at %d", rv, cur)
		}
		e.k.setSize(in, 100)
		in.SetLabels(map[string]string{"app": "changed"})
		got, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if e.k.size(got) != 1 || got.GetLabels()["app"] != "x" {
			t.Errorf("stored object changed with the caller's object: size %d labels %v", e.k.size(got), got.GetLabels())
		}
	}},
	{"Create_ExistingKeyFailsWithAlreadyExists", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		in := e.k.new("ns1", "a", nil, 2)
		_, err := e.s.Create(e.ctx, e.k.key("ns1", "a"), in)
		wantError(t, err, storage.ErrAlreadyExists, e.k.key("ns1", "a"))
		if rv := in.GetResourceVersion(); rv != "" {
			t.Errorf("a failed Create set its argument's resourceVersion to %q", rv)
		}
	}},
	{"Create_WithResourceVersionFailsWithInvalidObject", func(t *testing.T, e env) {
		obj := e.k.new("ns1", "a", nil, 1)
		obj.SetResourceVersion("5")
		_, err := e.s.Create(e.ctx, e.k.key("ns1", "a"), obj)
		wantError(t, err, storage.ErrInvalidObject, e.k.key("ns1", "a"))
	}},
	{"Create_ResourceVersionsIncreaseStrictly", func(t *testing.T, e env) {
		var last uint64
		for i := range 5 {
			rv := rvOf(t, e.create(t, "ns1", fmt.Sprintf("o%d", i), nil, 1).GetResourceVersion())
			if rv <= last {
				t.Fatalf("resourceVersion %d after %d", rv, last)
			}
			last = rv
		}
		if cur := e.currentRV(t); cur < last {
			t.Errorf("list resourceVersion %d is older than the last write %d", cur, last)
		}
	}},
	{"Get_MissingKeyFailsWithNotFound", func(t *testing.T, e env) {
		_, err := e.s.Get(e.ctx, e.k.key("ns1", "nope"), storage.GetOptions{})
		wantError(t, err, storage.ErrNotFound, e.k.key("ns1", "nope"))
	}},
	{"Get_ReturnsTheCallersOwnCopy", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", map[string]string{"app": "x"}, 1)
		first, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.k.setSize(first, 42)
		first.GetLabels()["app"] = "mutated"
		second, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if e.k.size(second) != 1 || second.GetLabels()["app"] != "x" {
			t.Errorf("a caller's change leaked into the store: size %d labels %v", e.k.size(second), second.GetLabels())
		}
	}},
	{"Get_ResourceVersionParameterFollowsTheSpec", func(t *testing.T, e env) {
		created := e.create(t, "ns1", "a", nil, 1)
		updated := e.setSize(t, "ns1", "a", 2)
		for _, tc := range []struct {
			name, rv string
			wantErr  error
		}{
			{"unset reads the most recent", "", nil},
			{"zero reads any", "0", nil},
			{"an older version reads one not older", created.GetResourceVersion(), nil},
			{"the current version reads it", updated.GetResourceVersion(), nil},
			{"a non-number is invalid", "abc", storage.ErrInvalidResourceVersion},
			{"a negative number is invalid", "-1", storage.ErrInvalidResourceVersion},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{ResourceVersion: tc.rv})
				if tc.wantErr != nil {
					wantError(t, err, tc.wantErr, e.k.key("ns1", "a"))
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if e.k.size(got) != 2 || got.GetResourceVersion() != updated.GetResourceVersion() {
					t.Errorf("got size %d at %s, want the latest (2 at %s)", e.k.size(got), got.GetResourceVersion(), updated.GetResourceVersion())
				}
			})
		}
	}},
	{"Get_TooLargeResourceVersionFails", func(t *testing.T, e env) {
		if !e.caps.TooLargeResourceVersion {
			t.Skip("backend does not report too large resource versions")
		}
		e.create(t, "ns1", "a", nil, 1)
		future := e.currentRV(t) + 1000
		_, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{ResourceVersion: storage.FormatResourceVersion(future)})
		wantErrorAt(t, err, storage.ErrTooLargeResourceVersion, e.k.key("ns1", "a"), future)
	}},
	{"Get_FutureResourceVersionIsServedOnceReached", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		want := e.currentRV(t) + 1
		done := make(chan error, 1)
		go func() {
			_, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{ResourceVersion: storage.FormatResourceVersion(want)})
			done <- err
		}()
		e.setSize(t, "ns1", "a", 2)
		if err := <-done; err != nil && !errors.Is(err, storage.ErrTooLargeResourceVersion) {
			t.Fatalf("Get at the next version: %v", err)
		}
	}},
	{"Count_CountsObjectsUnderAPrefix", func(t *testing.T, e env) {
		for i := range 3 {
			e.create(t, "ns1", fmt.Sprintf("o%d", i), nil, 1)
		}
		e.create(t, "ns10", "x", nil, 1)
		for _, tc := range []struct {
			prefix string
			want   int64
		}{
			{e.k.prefix("ns1"), 3},
			{e.k.prefix("ns10"), 1},
			{e.k.prefix(""), 4},
			{e.k.prefix("ns2"), 0},
		} {
			n, err := e.s.Count(e.ctx, tc.prefix)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.want {
				t.Errorf("Count(%s) = %d, want %d", tc.prefix, n, tc.want)
			}
		}
	}},
	{"Compact_ReadsBelowTheCompactedVersionFailWithGone", func(t *testing.T, e env) {
		c, ok := e.s.(storage.Compactor)
		if !e.caps.Compaction || !ok {
			t.Skip("backend does not compact")
		}
		if !e.caps.ExactReads {
			t.Skip("backend does not serve exact reads")
		}
		old := rvOf(t, e.create(t, "ns1", "a", nil, 1).GetResourceVersion())
		mid := rvOf(t, e.setSize(t, "ns1", "a", 2).GetResourceVersion())
		e.setSize(t, "ns1", "a", 3)
		if err := c.Compact(e.ctx, mid); err != nil {
			t.Fatal(err)
		}
		_, err := e.s.List(e.ctx, e.k.prefix("ns1"), storage.ListOptions{ResourceVersion: storage.FormatResourceVersion(old), ResourceVersionMatch: storage.ResourceVersionMatchExact})
		wantErrorAt(t, err, storage.ErrGone, e.k.prefix("ns1"), old)
		res := e.list(t, e.k.prefix("ns1"), storage.ListOptions{ResourceVersion: storage.FormatResourceVersion(mid), ResourceVersionMatch: storage.ResourceVersionMatchExact})
		if len(res.Items) != 1 || e.k.size(res.Items[0]) != 2 {
			t.Errorf("Exact read at the compacted version: %v", names(res.Items))
		}
	}},
}

var deleteBehaviours = []behaviour{
	{"Delete_ReturnsTheLastStateAndRemovesTheObject", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		last := e.setSize(t, "ns1", "a", 7)
		got, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if e.k.size(got) != 7 || got.GetResourceVersion() != last.GetResourceVersion() {
			t.Errorf("Delete returned size %d at %s, want 7 at %s", e.k.size(got), got.GetResourceVersion(), last.GetResourceVersion())
		}
		_, err = e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{})
		wantError(t, err, storage.ErrNotFound, e.k.key("ns1", "a"))
		if cur := e.currentRV(t); cur <= rvOf(t, last.GetResourceVersion()) {
			t.Errorf("the deletion did not advance the resourceVersion: %d", cur)
		}
	}},
	{"Delete_MissingKeyFailsWithNotFound", func(t *testing.T, e env) {
		_, err := e.s.Delete(e.ctx, e.k.key("ns1", "nope"), storage.DeleteOptions{})
		wantError(t, err, storage.ErrNotFound, e.k.key("ns1", "nope"))
	}},
	{"Delete_PreconditionMismatchFailsWithConflictAndKeepsTheObject", func(t *testing.T, e env) {
		obj := e.create(t, "ns1", "a", nil, 1)
		for _, tc := range []struct {
			name string
			pre  storage.Preconditions
		}{
			{"uid", storage.Preconditions{UID: ptr(scheme.UID("other"))}},
			{"resourceVersion", storage.Preconditions{ResourceVersion: ptr("1" + obj.GetResourceVersion())}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{Preconditions: &tc.pre})
				wantError(t, err, storage.ErrConflict, e.k.key("ns1", "a"))
				if _, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{}); err != nil {
					t.Fatalf("object gone after a failed delete: %v", err)
				}
			})
		}
		uid := obj.GetUID()
		rv := obj.GetResourceVersion()
		if _, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{Preconditions: &storage.Preconditions{UID: &uid, ResourceVersion: &rv}}); err != nil {
			t.Fatalf("Delete with matching preconditions: %v", err)
		}
	}},
	{"Delete_ValidationHookSeesTheCurrentObjectAndCanRefuse", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		e.setSize(t, "ns1", "a", 5)
		refuse := errors.New("refused by hook")
		var seen int64
		_, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{Validate: func(_ context.Context, cur scheme.Object) error {
			seen = e.k.size(cur)
			return refuse
		}})
		if !errors.Is(err, refuse) {
			t.Fatalf("error = %v, want the hook's", err)
		}
		if seen != 5 {
			t.Errorf("hook saw size %d, want the current 5", seen)
		}
		if _, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{}); err != nil {
			t.Fatalf("object gone after a refused delete: %v", err)
		}
		if _, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{Validate: func(context.Context, scheme.Object) error { return nil }}); err != nil {
			t.Fatalf("Delete with an accepting hook: %v", err)
		}
	}},
}

var updateBehaviours = []behaviour{
	{"Update_WritesTheResultWithANewResourceVersion", func(t *testing.T, e env) {
		before := e.create(t, "ns1", "a", nil, 1)
		after := e.setSize(t, "ns1", "a", 2)
		if rvOf(t, after.GetResourceVersion()) <= rvOf(t, before.GetResourceVersion()) {
			t.Errorf("resourceVersion %s after %s", after.GetResourceVersion(), before.GetResourceVersion())
		}
		got, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if e.k.size(got) != 2 || got.GetResourceVersion() != after.GetResourceVersion() {
			t.Errorf("stored size %d at %s, want 2 at %s", e.k.size(got), got.GetResourceVersion(), after.GetResourceVersion())
		}
		e.k.setSize(after, 99)
		if got, _ := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{}); e.k.size(got) != 2 {
			t.Errorf("the returned object is shared with the store")
		}
	}},
	{"Update_UnchangedResultSkipsTheWrite", func(t *testing.T, e env) {
		before := e.create(t, "ns1", "a", nil, 1)
		w := e.watch(t, e.k.key("ns1", "a"), storage.WatchOptions{ResourceVersion: before.GetResourceVersion()})
		out, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
			e.k.setSize(cur, 1)
			return cur, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if out.GetResourceVersion() != before.GetResourceVersion() {
			t.Errorf("a no-op update wrote: resourceVersion %s, was %s", out.GetResourceVersion(), before.GetResourceVersion())
		}
		after := e.setSize(t, "ns1", "a", 2)
		ev := nextChange(t, w)
		if got := eventObject(t, ev); got.GetResourceVersion() != after.GetResourceVersion() {
			t.Errorf("first event after the no-op is at %s, want the real write at %s", got.GetResourceVersion(), after.GetResourceVersion())
		}
	}},
	{"Update_PreconditionMismatchFailsWithConflict", func(t *testing.T, e env) {
		obj := e.create(t, "ns1", "a", nil, 1)
		called := false
		for _, pre := range []storage.Preconditions{
			{UID: ptr(scheme.UID("other"))},
			{ResourceVersion: ptr("1" + obj.GetResourceVersion())},
		} {
			_, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{Preconditions: &pre}, func(cur scheme.Object) (scheme.Object, error) {
				called = true
				return cur, nil
			})
			wantError(t, err, storage.ErrConflict, e.k.key("ns1", "a"))
		}
		if called {
			t.Error("tryUpdate ran although the preconditions failed")
		}
	}},
	{"Update_StaleResourceVersionInTheResultFailsWithConflict", func(t *testing.T, e env) {
		old := e.create(t, "ns1", "a", nil, 1)
		e.setSize(t, "ns1", "a", 2)
		_, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
			e.k.setSize(cur, 3)
			cur.SetResourceVersion(old.GetResourceVersion())
			return cur, nil
		})
		wantError(t, err, storage.ErrConflict, e.k.key("ns1", "a"))
		if got, _ := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{}); e.k.size(got) != 2 {
			t.Errorf("a conflicting update was written: size %d", e.k.size(got))
		}
	}},
	{"Update_MissingKeyFailsWithNotFoundUnlessIgnored", func(t *testing.T, e env) {
		_, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
			return cur, nil
		})
		wantError(t, err, storage.ErrNotFound, e.k.key("ns1", "a"))
		var sawNil bool
		out, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{IgnoreNotFound: true}, func(cur scheme.Object) (scheme.Object, error) {
			sawNil = cur == nil
			return e.k.new("ns1", "a", nil, 9), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !sawNil || e.k.size(out) != 9 {
			t.Errorf("create-on-update: tryUpdate got nil %v, stored size %d", sawNil, e.k.size(out))
		}
		rvOf(t, out.GetResourceVersion())
	}},
	{"Update_ErrorFromTryUpdateIsReturnedAsIs", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		boom := errors.New("boom")
		_, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{}, func(scheme.Object) (scheme.Object, error) {
			return nil, boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("error = %v, want boom", err)
		}
	}},
	{"Update_ConcurrentIncrementsLoseNoUpdate", func(t *testing.T, e env) {
		e.create(t, "ns1", "counter", nil, 0)
		const workers, each = 8, 25
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					_, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "counter"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
						e.k.setSize(cur, e.k.size(cur)+1)
						return cur, nil
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		got, err := e.s.Get(e.ctx, e.k.key("ns1", "counter"), storage.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if e.k.size(got) != workers*each {
			t.Errorf("counter = %d, want %d: updates were lost", e.k.size(got), workers*each)
		}
	}},
	{"Update_PreconditionsAreCheckedAgainstEachFreshRead", func(t *testing.T, e env) {
		obj := e.create(t, "ns1", "a", nil, 1)
		rv := obj.GetResourceVersion()
		first := true
		_, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{Preconditions: &storage.Preconditions{ResourceVersion: &rv}},
			func(cur scheme.Object) (scheme.Object, error) {
				if first {
					first = false
					e.setSize(t, "ns1", "a", 50) // a concurrent writer wins the race
				}
				e.k.setSize(cur, e.k.size(cur)+1)
				return cur, nil
			})
		wantError(t, err, storage.ErrConflict, e.k.key("ns1", "a"))
		got, _ := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{})
		if e.k.size(got) != 50 {
			t.Errorf("size = %d, want the concurrent writer's 50", e.k.size(got))
		}
	}},
}
