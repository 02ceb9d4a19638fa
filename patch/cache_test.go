package patch_test

import (
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/patch"
)

// TestFieldManager_ConcurrentWritesAgreeWithSerialOnes runs updates and applies through
// one field manager, whose caches of identifiers, field sets and the empty object all
// goroutines share, and checks each result against the serial one (run with -race).
func TestFieldManager_ConcurrentWritesAgreeWithSerialOnes(t *testing.T) {
	fm := newFieldManager(t, patch.Options{ResetFields: []string{"status"}})
	created, managed, err := fm.Apply(nil, obj(t, widget("red", "a", "b")), "creator", false)
	if err != nil {
		t.Fatal(err)
	}
	live := withManaged(t, created, managed)
	live["metadata"].(map[string]any)["uid"] = "u1"
	next := obj(t, widget("blue", "a", "b", "c"))
	next["metadata"].(map[string]any)["uid"] = "u1"
	cfg := obj(t, widget("green", "a"))

	update := func() (string, error) {
		entries, err := fm.Update(live, next, "editor")
		return summary(entries), err
	}
	apply := func() (string, error) {
		_, entries, err := fm.Apply(live, cfg, "applier", true)
		return summary(entries), err
	}
	wantUpdate, err := update()
	if err != nil {
		t.Fatal(err)
	}
	wantApply, err := apply()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*20)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				write, want := update, wantUpdate
				if g%2 == 1 {
					write, want = apply, wantApply
				}
				if got, err := write(); err != nil || got != want {
					errs <- got
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Fatalf("a concurrent write recorded\n%s\nwant\n%s or\n%s", got, wantUpdate, wantApply)
	}
}
