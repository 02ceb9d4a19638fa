package storagetest_test

import (
	"context"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// A backend's test file runs the whole suite from one test function: testConformance
// below is what storage/memory's TestConformance does. Run needs the *testing.T of a
// running test, which an Example does not have, so the runnable part shows what each of
// the suite's behaviours starts from: a fresh store from the constructor, and the
// suite's two kinds, typed Widgets and unstructured Gadgets.
func ExampleRun() {
	newStore := func() *memory.Store {
		// A short wait for future resourceVersions keeps the suite's too-large checks quick.
		return memory.New(memory.Options{FutureWait: 50 * time.Millisecond})
	}
	testConformance := func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Interface {
			s := newStore()
			t.Cleanup(s.Close)
			return s
		}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
	}
	_ = testConformance

	s := newStore()
	defer s.Close()
	ctx := context.Background()
	widget, err := s.Create(ctx, storage.Key(storagetest.Widgets, "default", "w1"), storagetest.NewWidget("default", "w1", nil, 3))
	if err != nil {
		log.Fatal(err)
	}
	gadget, err := s.Create(ctx, storage.Key(storagetest.Gadgets, "default", "g1"), storagetest.NewGadget("default", "g1", nil, 5))
	if err != nil {
		log.Fatal(err)
	}
	for _, obj := range []scheme.Object{widget, gadget} {
		fmt.Printf("%T %s at %s\n", obj, obj.GetName(), obj.GetResourceVersion())
	}
	// Output:
	// *storagetest.Widget w1 at 1
	// *scheme.Unstructured g1 at 2
}
