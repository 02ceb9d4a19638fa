package watch_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

func newConfig(name, rv string) *scheme.Unstructured {
	return &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "default", "resourceVersion": rv},
	}}
}

// A storage backend publishes each committed write; a watch from a past resourceVersion
// replays the history window and continues live. Encodings are shared per change.
func Example() {
	b := watch.NewBroadcaster(watch.Options{})
	defer b.Stop()

	_ = b.Publish(watch.Change{Type: watch.Added, Object: newConfig("a", "1"), ResourceVersion: 1, Key: "/configmaps/default/a"})
	_ = b.Publish(watch.Change{Type: watch.Added, Object: newConfig("b", "2"), ResourceVersion: 2, Key: "/configmaps/default/b"})

	w, err := b.Watch(context.Background(), 1, watch.WatchOptions{Key: "/configmaps/default/", Recursive: true})
	if err != nil {
		panic(err)
	}
	defer w.Stop()
	_ = b.Publish(watch.Change{Type: watch.Deleted, Object: newConfig("b", "3"), ResourceVersion: 3, Key: "/configmaps/default/b"})

	var jsonKey any = "application/json" // boxed once, so Encoded does not allocate for it
	for range 2 {
		ev := <-w.ResultChan()
		data, _ := ev.Encoded(jsonKey, func(o scheme.Kinded) ([]byte, error) { return json.Marshal(o) })
		fmt.Printf("%s %s\n", ev.Type, data)
	}
	// Output:
	// ADDED {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"default","resourceVersion":"2"}}
	// DELETED {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"default","resourceVersion":"3"}}
}
