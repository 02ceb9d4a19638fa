package controllers_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// failingStore fails the controllers' next writes (updates and deletes) of the keys
// that contain a string, a given number of times, with an error that is no conflict.
type failingStore struct {
	storage.Interface
	mu    sync.Mutex
	match string
	left  int
}

var errInjected = errors.New("injected write failure")

// failNext makes the next n writes of keys containing match fail.
func (s *failingStore) failNext(match string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.match, s.left = match, n
}

func (s *failingStore) fail(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left == 0 || !strings.Contains(key, s.match) {
		return false
	}
	s.left--
	return true
}

func (s *failingStore) GuaranteedUpdate(ctx context.Context, key string, opts storage.UpdateOptions, tryUpdate storage.UpdateFunc) (scheme.Object, error) {
	if s.fail(key) {
		return nil, errInjected
	}
	return s.Interface.GuaranteedUpdate(ctx, key, opts, tryUpdate)
}

func (s *failingStore) Delete(ctx context.Context, key string, opts storage.DeleteOptions) (scheme.Object, error) {
	if s.fail(key) {
		return nil, errInjected
	}
	return s.Interface.Delete(ctx, key, opts)
}

// TestControllers_RetryWhatFailedWithoutAnotherEvent holds the retry of the work a pass
// could not do, when nothing else is written meanwhile: the failed node stays to be
// processed by the next pass, the retry timer's. Each write fails three times: after the
// first failure no event says anything changed.
func TestControllers_RetryWhatFailedWithoutAnotherEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(e *env, fs *failingStore)
		// plural, ns, object name the object that must go.
		plural, ns, object string
	}{
		{"TheDeleteOfADependentOfADeletedOwner", func(e *env, fs *failingStore) {
			d := e.create("deployments", "default", "web", nil)
			e.create("replicasets", "default", "web-1", nil, ref{owner: d})
			e.idle()
			fs.failNext("/replicasets/default/web-1", 3)
			e.deleteWith("deployments", "default", "web", "Background")
		}, "replicasets", "default", "web-1"},
		{"TheRemovalOfAnOrphaningOwnersFinalizer", func(e *env, fs *failingStore) {
			d := e.create("deployments", "default", "web", nil)
			e.create("replicasets", "default", "web-1", nil, ref{owner: d})
			e.idle()
			fs.failNext("/deployments/default/web", 3)
			e.deleteWith("deployments", "default", "web", "Orphan")
		}, "deployments", "default", "web"},
		{"TheDeleteOfADeletingNamespacesContent", func(e *env, fs *failingStore) {
			e.create("namespaces", "", "team", nil)
			e.create("pods", "team", "p", nil)
			e.idle()
			fs.failNext("/pods/team/p", 3)
			e.deleteWith("namespaces", "", "team", "")
		}, "namespaces", "", "team"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fs *failingStore
			e := newEnvWith(t, envOptions{wrap: func(s storage.Interface) storage.Interface {
				fs = &failingStore{Interface: s}
				return fs
			}})
			tc.run(e, fs)
			if gone, took := e.waitGone(tc.plural, tc.ns, tc.object); !gone {
				t.Fatalf("%s %s/%s stays %s after its writes failed", tc.plural, tc.ns, tc.object, took)
			}
			fs.mu.Lock()
			left := fs.left
			fs.mu.Unlock()
			if left != 0 {
				t.Errorf("%d injected failures left: the work did not meet them", left)
			}
		})
	}
}
