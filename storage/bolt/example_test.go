package bolt_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/bolt"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// A store commits every write to the log before it acknowledges it, and on restart
// reloads the current state and continues its resource version counter.
func Example() {
	dir, err := os.MkdirTemp("", "apikit-bolt-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state.db")
	ctx := context.Background()

	l, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	err = l.Commit(ctx,
		bolt.Record{Key: "/apps/deployments/default/web", Value: []byte(`{"replicas":1}`), ResourceVersion: 1},
		bolt.Record{Key: "/core/configmaps/default/settings", Value: []byte(`{"mode":"a"}`), ResourceVersion: 2},
	)
	if err != nil {
		log.Fatal(err)
	}
	// A delete is a record without a value.
	if err := l.Commit(ctx, bolt.Record{Key: "/core/configmaps/default/settings", ResourceVersion: 3}); err != nil {
		log.Fatal(err)
	}
	if err := l.Close(); err != nil {
		log.Fatal(err)
	}

	// After a restart (or a crash), Load restores what was acknowledged.
	l, err = bolt.Open(path, bolt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	last, err := l.Load(func(key string, value []byte, rv uint64) error {
		fmt.Printf("%s = %s (version %d)\n", key, value, rv)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("next version:", last+1)
	// Output:
	// /apps/deployments/default/web = {"replicas":1} (version 1)
	// next version: 4
}

// A Store is a storage.Interface that keeps its objects across restarts.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "apikit-bolt-store-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state.db")
	ctx := context.Background()

	s := scheme.New()
	if err := storagetest.AddToScheme(s); err != nil {
		log.Fatal(err)
	}
	opts := bolt.Options{Codec: bolt.SerializerCodec(codec.NewJSON(s))}

	store, err := bolt.New(path, opts)
	if err != nil {
		log.Fatal(err)
	}
	key := storage.Key(storagetest.Widgets, "default", "web")
	created, err := store.Create(ctx, key, storagetest.NewWidget("default", "web", nil, 3))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created at", created.GetResourceVersion())
	if err := store.Close(); err != nil {
		log.Fatal(err)
	}

	// After a restart (or a crash), every acknowledged object is back.
	store, err = bolt.New(path, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	got, err := store.Get(ctx, key, storage.GetOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.GetName(), "at", got.GetResourceVersion(), "size", got.(*storagetest.Widget).Spec.Size)
	// Output:
	// created at 1
	// web at 1 size 3
}

// A caller that assigns resource versions queues its records under its own lock and
// waits outside it. TryCommit, just before the wait, writes them on the caller's
// goroutine when nothing else is being written.
func ExampleLog_Enqueue() {
	dir, err := os.MkdirTemp("", "apikit-bolt-enqueue")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := bolt.Open(filepath.Join(dir, "state.db"), bolt.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	var mu sync.Mutex // the caller's: versions are assigned and queued in one order
	next := uint64(0)
	mu.Lock()
	next++
	p, err := l.Enqueue(bolt.Record{Key: "/core/configmaps/default/settings", Value: []byte(`{"mode":"b"}`), ResourceVersion: next})
	mu.Unlock()
	if err != nil {
		log.Fatal(err)
	}
	p.TryCommit()
	if err := p.Wait(context.Background()); err != nil {
		log.Fatal(err)
	}
	fmt.Println("durable at version", l.LastResourceVersion())
	// Output:
	// durable at version 1
}
