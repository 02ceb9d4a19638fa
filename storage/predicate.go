package storage

import (
	"github.com/apikit-dev/apikit/scheme"
)

// AttrFunc returns the labels and the selectable field values of an object. The REST
// layer supplies one per kind (for example adding "status.phase"); fields absent from the
// map read as "".
type AttrFunc func(obj scheme.Object) (labels map[string]string, fields map[string]string, err error)

// DefaultAttrs gives an object's labels and the two fields every kind supports:
// "metadata.name" and "metadata.namespace".
func DefaultAttrs(obj scheme.Object) (map[string]string, map[string]string, error) {
	return obj.GetLabels(), map[string]string{
		"metadata.name":      obj.GetName(),
		"metadata.namespace": obj.GetNamespace(),
	}, nil
}

// Predicate selects objects by label and field selectors. The zero value selects every
// object.
type Predicate struct {
	// Label is the label selector.
	Label LabelSelector
	// Field is the field selector.
	Field FieldSelector
	// GetAttrs gives an object's labels and fields; nil means DefaultAttrs.
	GetAttrs AttrFunc
}

// Empty reports whether the predicate selects every object.
func (p Predicate) Empty() bool { return p.Label.Empty() && p.Field.Empty() }

// Matches reports whether obj satisfies both selectors.
func (p Predicate) Matches(obj scheme.Object) (bool, error) {
	if p.Empty() {
		return true, nil
	}
	if p.Field.Empty() && p.GetAttrs == nil {
		return p.Label.Matches(obj.GetLabels()), nil
	}
	get := p.GetAttrs
	if get == nil {
		get = DefaultAttrs
	}
	labels, fields, err := get(obj)
	if err != nil {
		return false, err
	}
	return p.Label.Matches(labels) && p.Field.Matches(fields), nil
}
