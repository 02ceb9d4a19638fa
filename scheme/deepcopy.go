package scheme

import (
	"reflect"
	"sync"
	"time"
)

// DeepCopier is implemented by types that copy themselves; DeepCopy uses the method instead
// of reflection. Unstructured and UnstructuredList implement it.
type DeepCopier interface {
	DeepCopyObject() Kinded
}

// DeepCopy returns a copy of v that shares no mutable memory with it: pointers, slices,
// maps and interfaces are copied recursively. No code generator is needed: a copy plan
// is built by reflection once per type and cached. A value whose type implements
// DeepCopier is copied with its own method. Structs with unexported fields (time.Time,
// sync types) are copied as plain values; give such a type a DeepCopyObject method if it
// holds mutable state behind unexported pointers.
func DeepCopy[T any](v T) T {
	if c, ok := any(v).(DeepCopier); ok && !isNilPointer(v) {
		if out, ok := c.DeepCopyObject().(T); ok {
			return out
		}
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		// The common case, a pointer (possibly held in an interface such as Object): copy
		// into a new value without boxing v.
		if rv.IsNil() {
			return v
		}
		out := reflect.New(rv.Type().Elem())
		copierFor(rv.Type().Elem())(out.Elem(), rv.Elem())
		return out.Interface().(T)
	}
	var out T
	src := reflect.ValueOf(&v).Elem()
	copierFor(src.Type())(reflect.ValueOf(&out).Elem(), src)
	return out
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// copier copies src into dst; both have the same type and dst is settable.
type copier func(dst, src reflect.Value)

var (
	copiers      sync.Map // reflect.Type -> copier
	buildMu      sync.Mutex
	copiersBuild = map[reflect.Type]*copier{} // under buildMu: plans being built, for recursive types
)

func copierFor(t reflect.Type) copier {
	if c, ok := copiers.Load(t); ok {
		return c.(copier)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	return buildCopierLocked(t)
}

func buildCopierLocked(t reflect.Type) copier {
	if c, ok := copiers.Load(t); ok {
		return c.(copier)
	}
	if p, ok := copiersBuild[t]; ok {
		// A recursive type: defer to the plan once it is complete.
		return func(dst, src reflect.Value) { (*p)(dst, src) }
	}
	var c copier
	copiersBuild[t] = &c
	c = newCopier(t)
	delete(copiersBuild, t)
	copiers.Store(t, c)
	return c
}

func assign(dst, src reflect.Value) { dst.Set(src) }

var (
	timeType      = reflect.TypeOf(time.Time{})
	stringMapType = reflect.TypeOf(map[string]string(nil))
	deepCopierTyp = reflect.TypeOf((*DeepCopier)(nil)).Elem()
)

// isPlain reports whether a plain assignment is a deep copy: no pointers, slices, maps or
// interfaces reachable (strings are immutable; functions and channels are shared).
func isPlain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return false
	case reflect.Array:
		return isPlain(t.Elem())
	case reflect.Struct:
		if t == timeType {
			return true
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				return true // copied as a value; see DeepCopy
			}
		}
		for i := 0; i < t.NumField(); i++ {
			if !isPlain(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

func newCopier(t reflect.Type) copier {
	if isPlain(t) {
		return assign
	}
	switch t.Kind() {
	case reflect.Pointer:
		return pointerCopier(t)
	case reflect.Slice:
		return sliceCopier(t)
	case reflect.Map:
		return mapCopier(t)
	case reflect.Interface:
		return interfaceCopier
	case reflect.Array:
		elem := buildCopierLocked(t.Elem())
		return func(dst, src reflect.Value) {
			for i := 0; i < src.Len(); i++ {
				elem(dst.Index(i), src.Index(i))
			}
		}
	case reflect.Struct:
		return structCopier(t)
	}
	return assign
}

func pointerCopier(t reflect.Type) copier {
	et := t.Elem()
	if t.Implements(deepCopierTyp) {
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			dst.Set(reflect.ValueOf(src.Interface().(DeepCopier).DeepCopyObject()))
		}
	}
	elem := buildCopierLocked(et)
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			dst.SetZero()
			return
		}
		p := reflect.New(et)
		elem(p.Elem(), src.Elem())
		dst.Set(p)
	}
}

func sliceCopier(t reflect.Type) copier {
	if isPlain(t.Elem()) {
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			if src.Len() == 0 {
				dst.Set(reflect.MakeSlice(t, 0, 0)) // empty, not nil
				return
			}
			// Grow and SetLen fill dst in place: MakeSlice would allocate a header too.
			dst.SetZero()
			dst.Grow(src.Len())
			dst.SetLen(src.Len())
			reflect.Copy(dst, src)
		}
	}
	elem := buildCopierLocked(t.Elem())
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			dst.SetZero()
			return
		}
		l := src.Len()
		if l == 0 {
			dst.Set(reflect.MakeSlice(t, 0, 0)) // empty, not nil
			return
		}
		dst.SetZero()
		dst.Grow(l)
		dst.SetLen(l)
		for i := 0; i < l; i++ {
			elem(dst.Index(i), src.Index(i))
		}
	}
}

func mapCopier(t reflect.Type) copier {
	if t == stringMapType {
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			in := src.Interface().(map[string]string)
			out := make(map[string]string, len(in))
			for k, v := range in {
				out[k] = v
			}
			dst.Set(reflect.ValueOf(out))
		}
	}
	kt, vt := t.Key(), t.Elem()
	kc, vc := buildCopierLocked(kt), buildCopierLocked(vt)
	plainKey, plainVal := isPlain(kt), isPlain(vt)
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			dst.SetZero()
			return
		}
		m := reflect.MakeMapWithSize(t, src.Len())
		it := src.MapRange()
		for it.Next() {
			k, v := it.Key(), it.Value()
			if !plainKey {
				nk := reflect.New(kt).Elem()
				kc(nk, k)
				k = nk
			}
			if !plainVal {
				nv := reflect.New(vt).Elem()
				vc(nv, v)
				v = nv
			}
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
	}
}

func interfaceCopier(dst, src reflect.Value) {
	if src.IsNil() {
		dst.SetZero()
		return
	}
	v := src.Interface()
	if c, ok := v.(DeepCopier); ok && !isNilPointer(v) {
		dst.Set(reflect.ValueOf(c.DeepCopyObject()))
		return
	}
	switch v.(type) {
	case map[string]any, []any:
		dst.Set(reflect.ValueOf(DeepCopyJSONValue(v)))
		return
	}
	e := src.Elem()
	n := reflect.New(e.Type()).Elem()
	copierFor(e.Type())(n, e)
	dst.Set(n)
}

func structCopier(t reflect.Type) copier {
	type fieldCopy struct {
		index int
		copy  copier
	}
	var deep []fieldCopy
	for i := 0; i < t.NumField(); i++ {
		ft := t.Field(i).Type
		if !isPlain(ft) {
			deep = append(deep, fieldCopy{i, buildCopierLocked(ft)})
		}
	}
	return func(dst, src reflect.Value) {
		dst.Set(src) // plain fields in one move; the others are replaced below
		for _, f := range deep {
			f.copy(dst.Field(f.index), src.Field(f.index))
		}
	}
}

// DeepCopyJSONValue copies a JSON-shaped value (map[string]any, []any, string, bool,
// int64, float64, nil and the other scalars unstructured objects may hold).
func DeepCopyJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = DeepCopyJSONValue(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = DeepCopyJSONValue(e)
		}
		return s
	case nil, string, bool, int64, float64, int, int32, float32:
		return x
	default:
		return DeepCopy(v)
	}
}

// DeepCopyObject copies the object's map.
func (u *Unstructured) DeepCopyObject() Kinded {
	if u == nil {
		return (*Unstructured)(nil)
	}
	return u.DeepCopy()
}

// DeepCopy copies the object's map.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	out := &Unstructured{}
	if u.Object != nil {
		out.Object = DeepCopyJSONValue(u.Object).(map[string]any)
	}
	return out
}

// DeepCopyObject copies the list and its items.
func (l *UnstructuredList) DeepCopyObject() Kinded {
	if l == nil {
		return (*UnstructuredList)(nil)
	}
	out := &UnstructuredList{}
	if l.Object != nil {
		out.Object = DeepCopyJSONValue(l.Object).(map[string]any)
	}
	if l.Items != nil {
		out.Items = make([]Unstructured, len(l.Items))
		for i := range l.Items {
			out.Items[i] = *l.Items[i].DeepCopy()
		}
	}
	return out
}
