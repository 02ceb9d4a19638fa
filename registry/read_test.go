package registry_test

import (
	"context"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// readShape is what a read of either kind must show of a stored object: a Gadget's
// spec.shape as its schema defaults it on read, a Widget's color.
func readShape(k kind) string {
	if k.name == "typed" {
		return "blue"
	}
	return "round"
}

func TestGetAndList_ReadAsAGETAnswers(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t, registry.Options{})
			ctx := context.Background()
			for _, name := range []string{"a", "b"} {
				f.seed(t, k.res, k.object("default", name))
			}
			rq := registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}
			got, err := f.reg.Get(ctx, rq, "a", storage.GetOptions{})
			if err != nil || got.GetName() != "a" || spec(got) != readShape(k) {
				t.Fatalf("Get: %v (spec %q), %v; want a with %q", got, spec(got), err, readShape(k))
			}
			if _, err := f.reg.Get(ctx, rq, "missing", storage.GetOptions{}); statusOf(t, err).Code != 404 {
				t.Errorf("Get of a missing object: %v, want 404", err)
			}
			lr, err := f.reg.List(ctx, rq, storage.ListOptions{})
			if err != nil || len(lr.Items) != 2 || lr.ResourceVersion == "" {
				t.Fatalf("List: %v, %v", lr, err)
			}
			for _, item := range lr.Items {
				if spec(item) != readShape(k) || item.GetObjectKind().GroupVersionKind().Version != "v1" {
					t.Errorf("listed %s: spec %q at %v", item.GetName(), spec(item), item.GetObjectKind().GroupVersionKind())
				}
			}
		})
	}
}

func TestGet_ConvertsToTheRequestsVersion(t *testing.T) {
	k := kinds()[0]
	f := newFixture(t, registry.Options{})
	f.seed(t, k.res, k.object("default", "a"))
	got, err := f.reg.Get(context.Background(), registry.Request{Resource: &k.res, Namespace: "default", Version: "v1alpha1"}, "a", storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, ok := got.(*toys.WidgetV1alpha1)
	if !ok || w.Spec.Paint != "blue" {
		t.Errorf("Get at v1alpha1: %T %+v, want a WidgetV1alpha1 painted blue", got, got)
	}
}

func TestWatch_EventsAreReadAtTheRequestsVersion(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t, registry.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			rq := registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}
			w, err := f.reg.Watch(ctx, rq, "", storage.WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			f.seed(t, k.res, k.object("default", "a"))
			f.seed(t, k.res, k.object("other", "b")) // another namespace: not seen
			if _, _, err := f.reg.Delete(ctx, rq, "a", nil); err != nil {
				t.Fatal(err)
			}
			var got []watch.EventType
			for len(got) < 2 {
				select {
				case e, ok := <-w.ResultChan():
					if !ok {
						t.Fatalf("the watch ended after %v", got)
					}
					obj := e.Object.(scheme.Object)
					if obj.GetName() != "a" || spec(obj) != readShape(k) || obj.GetObjectKind().GroupVersionKind().Version != "v1" {
						t.Errorf("%s event: %s with spec %q at %v", e.Type, obj.GetName(), spec(obj), obj.GetObjectKind().GroupVersionKind())
					}
					got = append(got, e.Type)
				case <-ctx.Done():
					t.Fatalf("events %v, then none", got)
				}
			}
			if got[0] != watch.Added || got[1] != watch.Deleted {
				t.Errorf("events %v, want ADDED then DELETED", got)
			}
			w.Stop()
			w.Stop() // twice is fine
			select {
			case _, ok := <-w.ResultChan():
				for ok {
					_, ok = <-w.ResultChan()
				}
			case <-ctx.Done():
				t.Fatal("the channel stays open after Stop")
			}
		})
	}
}
