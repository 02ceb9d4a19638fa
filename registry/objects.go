package registry

import (
	"crypto/rand"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"unicode/utf8"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// specEqual reports whether two objects are equal in everything but metadata, type
// information and, when withStatus is false, status: the content whose changes bump
// metadata.generation. withStatus is true for a resource without a status subresource,
// whose status is written like any other field (apiextensions-apiserver's strategy
// compares everything but metadata then). They are compared in their unstructured (JSON)
// form.
func specEqual(a, b scheme.Object, withStatus bool) (bool, error) {
	if ca, cb, ok := withoutMetaAndStatus(a, b, withStatus); ok {
		// Equal Go values have equal JSON forms: only values that differ are converted,
		// and without their metadata (managedFields' fieldsV1 go through JSON text).
		if reflect.DeepEqual(ca, cb) {
			return true, nil
		}
		if specDiffers(reflect.ValueOf(ca).Elem(), reflect.ValueOf(cb).Elem(), withStatus) {
			return false, nil
		}
		a, b = ca, cb
	}
	am, err := conversion.ObjectMap(a)
	if err != nil {
		return false, err
	}
	bm, err := conversion.ObjectMap(b)
	if err != nil {
		return false, err
	}
	return specMapsEqual(am, bm, withStatus), nil
}

// notSpec reports whether a top-level member is left out of specEqual's comparison.
func notSpec(member string, withStatus bool) bool {
	switch member {
	case "metadata", "apiVersion", "kind":
		return true
	case "status":
		return !withStatus
	}
	return false
}

// specMapsEqual is specEqual on the unstructured forms of the objects.
func specMapsEqual(am, bm map[string]any, withStatus bool) bool {
	for k, av := range am {
		if notSpec(k, withStatus) {
			continue
		}
		if !reflect.DeepEqual(av, bm[k]) {
			return false
		}
	}
	for k := range bm {
		if notSpec(k, withStatus) {
			continue
		}
		if _, ok := am[k]; !ok {
			return false
		}
	}
	return true
}

// withoutMetaAndStatus returns shallow copies of two typed objects of the same Go type
// with the fields serialized as "metadata" (and "status" unless withStatus) zeroed: what
// specEqual compares. ok is false for objects that marshal themselves (unstructured
// ones: their one Go field holds metadata and status too), objects of different types,
// and types whose metadata or status is promoted through an embedded pointer (zeroing
// it there would change the original).
func withoutMetaAndStatus(a, b scheme.Object, withStatus bool) (ca, cb scheme.Object, ok bool) {
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	t := av.Type()
	if t != bv.Type() || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || av.IsNil() || bv.IsNil() ||
		t.Implements(jsonMarshalerType) || t.Elem().Implements(jsonMarshalerType) {
		return nil, nil, false
	}
	fields := scheme.JSONFields(t.Elem())
	zeroed := func(f scheme.JSONField) bool {
		return f.Name == "metadata" || f.Name == "status" && !withStatus
	}
	for _, f := range fields {
		if zeroed(f) && f.ViaPointer {
			return nil, nil, false
		}
	}
	copyOf := func(v reflect.Value) (scheme.Object, bool) {
		c := reflect.New(t.Elem())
		c.Elem().Set(v.Elem())
		for _, f := range fields {
			if zeroed(f) {
				c.Elem().FieldByIndex(f.Index).SetZero()
			}
		}
		obj, ok := c.Interface().(scheme.Object)
		return obj, ok
	}
	if ca, ok = copyOf(av); !ok {
		return nil, nil, false
	}
	if cb, ok = copyOf(bv); !ok {
		return nil, nil, false
	}
	return ca, cb, true
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// specDiffers reports that two typed objects (structs of one type) certainly differ
// in a member specEqual compares (jsonDiffers).
func specDiffers(a, b reflect.Value, withStatus bool) bool {
	for _, f := range scheme.JSONFields(a.Type()) {
		if notSpec(f.Name, withStatus) {
			continue
		}
		fa, errA := a.FieldByIndexErr(f.Index)
		fb, errB := b.FieldByIndexErr(f.Index)
		if errA == nil && errB == nil && jsonDiffers(fa, fb) {
			return true
		}
	}
	return false
}

// jsonDiffers reports that two values of one Go type certainly have different JSON
// (and unstructured) forms: it finds, through struct members, pointers, slices, arrays,
// string-keyed maps and interfaces, two different booleans, integers, floats or valid
// UTF-8 strings at the same place, or two lists of different lengths. false means not
// known. Types that marshal themselves are not looked into.
func jsonDiffers(a, b reflect.Value) bool {
	t := a.Type()
	if t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return false
	}
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() != b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() != b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() != b.Uint()
	case reflect.Float32, reflect.Float64:
		// -0 and 0 read back alike; NaN and infinities do not encode.
		x, y := a.Float(), b.Float()
		return x != y && !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0)
	case reflect.String:
		x, y := a.String(), b.String()
		return x != y && utf8.ValidString(x) && utf8.ValidString(y)
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return false
		}
		a, b = a.Elem(), b.Elem()
		return a.Type() == b.Type() && jsonDiffers(a, b)
	case reflect.Struct:
		for _, f := range scheme.JSONFields(t) {
			fa, errA := a.FieldByIndexErr(f.Index)
			fb, errB := b.FieldByIndexErr(f.Index)
			if errA == nil && errB == nil && jsonDiffers(fa, fb) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return true
		}
		for i := range a.Len() {
			if jsonDiffers(a.Index(i), b.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key() != reflect.TypeFor[string]() {
			return false
		}
		for it := a.MapRange(); it.Next(); {
			if vb := b.MapIndex(it.Key()); vb.IsValid() && utf8.ValidString(it.Key().String()) && jsonDiffers(it.Value(), vb) {
				return true
			}
		}
	}
	return false
}

// statusValue finds the field serialized as "status" of a typed object.
func statusValue(obj scheme.Object) (reflect.Value, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	v = v.Elem()
	for _, f := range scheme.JSONFields(v.Type()) {
		if f.Name == "status" {
			fv, err := v.FieldByIndexErr(f.Index)
			return fv, err == nil
		}
	}
	return reflect.Value{}, false
}

// copyStatus sets dst's status to a copy of src's (nil src: clears it).
func copyStatus(dst, src scheme.Object) {
	if du, ok := dst.(*scheme.Unstructured); ok {
		var st any
		found := false
		if su, ok := src.(*scheme.Unstructured); ok && su != nil {
			st, found = su.Object["status"]
		}
		if found {
			du.Object["status"] = scheme.DeepCopyJSONValue(st)
		} else {
			delete(du.Object, "status")
		}
		return
	}
	dv, ok := statusValue(dst)
	if !ok {
		return
	}
	if src == nil {
		dv.SetZero()
		return
	}
	sv, ok := statusValue(src)
	if !ok || sv.Type() != dv.Type() {
		dv.SetZero()
		return
	}
	dv.Set(reflect.ValueOf(scheme.DeepCopy(sv.Interface())))
}

// copyAllButStatus makes dst equal to src except for dst's status: the rule of writes to
// the status subresource. dst and src are of the same kind and version.
func copyAllButStatus(dst, src scheme.Object) scheme.Object {
	out := scheme.DeepCopy(src)
	copyStatus(out, dst)
	return out
}

// The alphabet and length of generated name suffixes, as kube's SimpleNameGenerator.
const (
	nameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"
	nameSuffixLength   = 5
	maxNameLength      = 63
	maxGeneratedBase   = maxNameLength - nameSuffixLength
)

// generateName returns base followed by five random characters, base cut to 58.
func generateName(base string) string {
	if len(base) > maxGeneratedBase {
		base = base[:maxGeneratedBase]
	}
	var rnd [nameSuffixLength]byte
	_, _ = rand.Read(rnd[:])
	b := []byte(base)
	for _, r := range rnd {
		b = append(b, nameSuffixAlphabet[int(r)%len(nameSuffixAlphabet)])
	}
	return string(b)
}
