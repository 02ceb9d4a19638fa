package cache_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/cache"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// A host puts the cache in front of the backend it built and serves with the cache as
// its storage.Interface: watches of a resource share one backend watch and reads come
// from memory.
func Example() {
	ctx := context.Background()
	backend := memory.New(memory.Options{}) // or bolt.New, or an etcd backend
	defer backend.Close()
	c, err := cache.Start(ctx, backend, cache.Options{
		// Started with Start; other resources start on first use.
		Prefixes: []string{storage.Prefix(storagetest.Widgets, "")},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	w, err := c.Watch(ctx, storage.Prefix(storagetest.Widgets, "default"), storage.WatchOptions{Recursive: true, ResourceVersion: "0"})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Stop()
	key := storage.Key(storagetest.Widgets, "default", "web")
	if _, err := c.Create(ctx, key, storagetest.NewWidget("default", "web", nil, 3)); err != nil {
		log.Fatal(err)
	}
	ev := <-w.ResultChan()
	fmt.Println(ev.Type, ev.Object.(scheme.Object).GetName())

	// A write through the cache is in it when the write returns: a list at "0" sees it.
	list, err := c.List(ctx, storage.Prefix(storagetest.Widgets, ""), storage.ListOptions{ResourceVersion: "0"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(list.Items), list.Items[0].GetName())
	// Output:
	// ADDED web
	// 1 web
}
