package storage

import (
	"errors"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

func TestPreconditions_CheckUIDAndResourceVersion(t *testing.T) {
	obj := &scheme.Unstructured{Object: map[string]any{}}
	obj.SetResourceVersion("5")
	obj.SetUID("uid-a")
	uid, other := obj.GetUID(), scheme.UID("other")
	rv, stale := "5", "4"
	for _, tc := range []struct {
		name     string
		pre      *Preconditions
		conflict bool
	}{
		{"none", nil, false},
		{"matching", &Preconditions{UID: &uid, ResourceVersion: &rv}, false},
		{"uid differs", &Preconditions{UID: &other}, true},
		{"resourceVersion differs", &Preconditions{ResourceVersion: &stale}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.pre.Check("/k", obj)
			if got := errors.Is(err, ErrConflict); got != tc.conflict {
				t.Errorf("error = %v, want conflict %v", err, tc.conflict)
			}
		})
	}
}
