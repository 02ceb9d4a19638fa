package storage_test

import (
	"errors"
	"fmt"

	"github.com/apikit-dev/apikit/storage"
)

func ExampleParseLabelSelector() {
	sel, err := storage.ParseLabelSelector("env in (prod,staging),!canary")
	if err != nil {
		panic(err)
	}
	fmt.Println(sel.Matches(map[string]string{"env": "prod"}))
	fmt.Println(sel.Matches(map[string]string{"env": "prod", "canary": "true"}))
	_, err = storage.ParseLabelSelector("env in prod")
	fmt.Println(errors.Is(err, storage.ErrInvalidSelector))
	// Output:
	// true
	// false
	// true
}
