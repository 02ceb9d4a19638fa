package strategies

import (
	"reflect"

	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

var (
	quantityType = reflect.TypeFor[quantity.Quantity]()
	timeType     = reflect.TypeFor[scheme.Time]()
)

// semanticEqual is apimachinery's equality.Semantic.DeepEqual on apikit's types, what
// kube's workload strategies compare specs with to decide a generation bump: deep
// equality, except that quantities compare by amount (not notation), times by instant,
// and a nil slice or map equals an empty one.
func semanticEqual(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() {
		return va.IsValid() == vb.IsValid()
	}
	return va.Type() == vb.Type() && semanticValueEqual(va, vb)
}

func semanticValueEqual(a, b reflect.Value) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	switch a.Type() {
	case quantityType:
		qa, qb := quantityOf(a), quantityOf(b)
		return qa.Cmp(qb) == 0
	case timeType:
		ta, tb := timeOf(a), timeOf(b)
		return ta.UTC() == tb.UTC()
	}
	switch a.Kind() {
	case reflect.Array:
		for i := range a.Len() {
			if !semanticValueEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !semanticValueEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for it := a.MapRange(); it.Next(); {
			if !semanticValueEqual(it.Value(), b.MapIndex(it.Key())) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		ea, eb := a.Elem(), b.Elem()
		return ea.Type() == eb.Type() && semanticValueEqual(ea, eb)
	case reflect.Struct:
		for i := range a.NumField() {
			if !semanticValueEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.String:
		return a.String() == b.String()
	}
	// Channels and functions do not occur in API types; compare them as == would.
	return a.Equal(b)
}

// quantityOf and timeOf read the value of an API type's field: API types keep
// quantities and times in exported fields, so Interface is allowed.
func quantityOf(v reflect.Value) quantity.Quantity { return v.Interface().(quantity.Quantity) }

func timeOf(v reflect.Value) scheme.Time { return v.Interface().(scheme.Time) }
