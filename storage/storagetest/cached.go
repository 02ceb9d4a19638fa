package storagetest

import (
	"context"
	"errors"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// cachedExistingBehaviours check UpdateOptions.CachedExisting and
// DeleteOptions.CachedExisting: a backend may start from the caller's cached state, but
// whatever it decides must hold on the current one. Each test hands the backend a stale
// state (the object before a later write) and checks the outcome is the one the current
// state gives; backends that ignore the option pass them as they are.
var cachedExistingBehaviours = []behaviour{
	{"CachedExisting_StaleUpdateComputesOnTheCurrentState", func(t *testing.T, e env) {
		stale := e.create(t, "ns1", "a", nil, 1)
		staleRV := stale.GetResourceVersion()
		after := e.setSize(t, "ns1", "a", 2)
		out, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{CachedExisting: stale}, func(cur scheme.Object) (scheme.Object, error) {
			e.k.setSize(cur, e.k.size(cur)+10)
			return cur, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if e.k.size(out) != 12 || rvOf(t, out.GetResourceVersion()) <= rvOf(t, after.GetResourceVersion()) {
			t.Errorf("update from a stale cached state = size %d at %s, want 12 after %s", e.k.size(out), out.GetResourceVersion(), after.GetResourceVersion())
		}
		if got, _ := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{}); got == nil || e.k.size(got) != 12 {
			t.Errorf("stored %v, want size 12", got)
		}
		if e.k.size(stale) != 1 || stale.GetResourceVersion() != staleRV {
			t.Errorf("the cached object was modified: size %d at %q, was 1 at %q", e.k.size(stale), stale.GetResourceVersion(), staleRV)
		}
	}},
	{"CachedExisting_FailuresOnlyTheStaleStateHasAreNotReported", func(t *testing.T, e env) {
		stale := e.create(t, "ns1", "a", nil, 1)
		after := e.setSize(t, "ns1", "a", 2)
		currentRV := after.GetResourceVersion()
		errStale := errors.New("computed on the stale state")
		out, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{
			CachedExisting: stale,
			Preconditions:  &storage.Preconditions{ResourceVersion: &currentRV},
		}, func(cur scheme.Object) (scheme.Object, error) {
			if e.k.size(cur) != 2 {
				return nil, errStale
			}
			e.k.setSize(cur, 3)
			cur.SetResourceVersion(currentRV) // an update that names the version it read
			return cur, nil
		})
		if err != nil {
			t.Fatalf("update whose precondition and function hold on the current state: %v", err)
		}
		if e.k.size(out) != 3 {
			t.Errorf("size %d, want 3", e.k.size(out))
		}
	}},
	{"CachedExisting_NoOpOnlyOnTheStaleStateStillWrites", func(t *testing.T, e env) {
		stale := e.create(t, "ns1", "a", nil, 1)
		after := e.setSize(t, "ns1", "a", 2)
		out, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{CachedExisting: stale}, func(cur scheme.Object) (scheme.Object, error) {
			e.k.setSize(cur, 1) // what the stale state already holds
			return cur, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if rvOf(t, out.GetResourceVersion()) <= rvOf(t, after.GetResourceVersion()) {
			t.Errorf("the update was skipped as a no-op: resourceVersion %s, current was %s", out.GetResourceVersion(), after.GetResourceVersion())
		}
		if got, _ := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{}); got == nil || e.k.size(got) != 1 {
			t.Errorf("stored %v, want size 1", got)
		}
	}},
	{"CachedExisting_CurrentStateNoOpSkipsTheWrite", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		current := e.setSize(t, "ns1", "a", 2)
		out, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{CachedExisting: current}, func(cur scheme.Object) (scheme.Object, error) {
			e.k.setSize(cur, 2)
			return cur, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if out.GetResourceVersion() != current.GetResourceVersion() {
			t.Errorf("a no-op update from the current cached state wrote: %s, was %s", out.GetResourceVersion(), current.GetResourceVersion())
		}
		if out == current {
			t.Errorf("the update returned the cached object itself")
		}
	}},
	{"CachedExisting_RealFailuresAreStillReported", func(t *testing.T, e env) {
		stale := e.create(t, "ns1", "a", nil, 1)
		e.setSize(t, "ns1", "a", 2)
		wrongRV := stale.GetResourceVersion()
		_, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{
			CachedExisting: stale,
			Preconditions:  &storage.Preconditions{ResourceVersion: &wrongRV},
		}, func(cur scheme.Object) (scheme.Object, error) { return cur, nil })
		wantError(t, err, storage.ErrConflict, e.k.key("ns1", "a"))
		_, err = e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{CachedExisting: stale}, func(cur scheme.Object) (scheme.Object, error) {
			cur.SetResourceVersion(wrongRV) // a client's update from the stale read
			e.k.setSize(cur, 5)
			return cur, nil
		})
		wantError(t, err, storage.ErrConflict, e.k.key("ns1", "a"))
		if got, _ := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{}); got == nil || e.k.size(got) != 2 {
			t.Errorf("stored %v after refused updates, want size 2", got)
		}
	}},
	{"CachedExisting_ObjectDeletedSinceIsNotFound", func(t *testing.T, e env) {
		stale := e.create(t, "ns1", "a", nil, 1)
		if _, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{CachedExisting: stale}, func(cur scheme.Object) (scheme.Object, error) {
			e.k.setSize(cur, 9)
			return cur, nil
		})
		wantError(t, err, storage.ErrNotFound, e.k.key("ns1", "a"))
		_, err = e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{CachedExisting: stale})
		wantError(t, err, storage.ErrNotFound, e.k.key("ns1", "a"))
	}},
	{"CachedExisting_StaleDeleteChecksAndReturnsTheCurrentState", func(t *testing.T, e env) {
		stale := e.create(t, "ns1", "a", nil, 1)
		after := e.setSize(t, "ns1", "a", 2)
		currentRV := after.GetResourceVersion()
		var validated int64
		got, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{
			CachedExisting: stale,
			Preconditions:  &storage.Preconditions{ResourceVersion: &currentRV},
			Validate: func(_ context.Context, cur scheme.Object) error {
				validated = e.k.size(cur)
				if validated != 2 {
					return errors.New("validated the stale state")
				}
				return nil
			},
		})
		if err != nil {
			t.Fatalf("delete whose checks hold on the current state: %v (validated size %d)", err, validated)
		}
		if e.k.size(got) != 2 || got.GetResourceVersion() != currentRV {
			t.Errorf("Delete returned size %d at %s, want the current 2 at %s", e.k.size(got), got.GetResourceVersion(), currentRV)
		}
		if _, err := e.s.Get(e.ctx, e.k.key("ns1", "a"), storage.GetOptions{}); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get after the delete = %v, want not found", err)
		}
	}},
}
