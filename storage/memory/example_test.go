package memory_test

import (
	"context"
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

func Example() {
	ctx := context.Background()
	s := memory.New(memory.Options{})
	defer s.Close()

	for _, name := range []string{"b", "a", "c"} {
		key := storage.Key(storagetest.Widgets, "default", name)
		if _, err := s.Create(ctx, key, storagetest.NewWidget("default", name, nil, 1)); err != nil {
			panic(err)
		}
	}
	page, _ := s.List(ctx, storage.Prefix(storagetest.Widgets, "default"), storage.ListOptions{Limit: 2})
	for _, obj := range page.Items {
		fmt.Println(obj.GetName(), obj.GetResourceVersion())
	}
	fmt.Println("list at", page.ResourceVersion, "remaining", *page.RemainingItemCount)

	updated, _ := s.GuaranteedUpdate(ctx, storage.Key(storagetest.Widgets, "default", "a"), storage.UpdateOptions{},
		func(cur scheme.Object) (scheme.Object, error) {
			cur.(*storagetest.Widget).Spec.Size = 2
			return cur, nil
		})
	fmt.Println("a now at", updated.GetResourceVersion())
	// Output:
	// a 2
	// b 1
	// list at 3 remaining 1
	// a now at 4
}
