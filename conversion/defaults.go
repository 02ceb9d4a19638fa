package conversion

import (
	"reflect"

	"github.com/apikit-dev/apikit/scheme"
)

// defaultFunc applies the defaulters reachable in a value; v is addressable.
type defaultFunc func(v reflect.Value)

// RegisterDefaults adds the defaulting function of a (versioned) Go type to the scheme.
// Default runs it wherever a T occurs: at the top level, as a list item, or nested in a
// field, slice, map or pointer. Registering a type again replaces the earlier function.
func RegisterDefaults[T any](s *scheme.Scheme, fn func(obj *T)) {
	r := registryOf(s)
	t := reflect.TypeFor[T]()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defaulters[t] = func(v reflect.Value) { fn(v.Addr().Interface().(*T)) }
	r.defaultPlans.Clear()
}

// Default applies the registered defaulters to obj, a pointer, in place. Defaults are
// applied after decoding a versioned object and before converting it to the internal
// version. The defaulter of obj's own type runs first, then those of the values it holds
// (outer before inner), so a typed list defaults each of its items with the item type's
// defaulter. A type without reachable defaulters costs one cached lookup. Unstructured
// objects and nil pointers are left alone.
func Default(s *scheme.Scheme, obj any) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	if f := registryOf(s).defaulter(v.Type().Elem()); f != nil {
		f(v.Elem())
	}
}

func (r *registry) defaulter(t reflect.Type) defaultFunc {
	if f, ok := r.defaultPlans.Load(t); ok {
		return f.(defaultFunc)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.defaulterLocked(t)
}

func (r *registry) defaulterLocked(t reflect.Type) defaultFunc {
	if f, ok := r.defaultPlans.Load(t); ok {
		return f.(defaultFunc)
	}
	if p, ok := r.defaultBuilding[t]; ok {
		// A recursive type: defer to the plan once it is complete.
		return func(v reflect.Value) {
			if *p != nil {
				(*p)(v)
			}
		}
	}
	var f defaultFunc
	r.defaultBuilding[t] = &f
	f = r.compileDefaulter(t)
	delete(r.defaultBuilding, t)
	r.defaultPlans.Store(t, f)
	return f
}

func (r *registry) compileDefaulter(t reflect.Type) defaultFunc {
	own := r.defaulters[t]
	var inner defaultFunc
	switch t.Kind() {
	case reflect.Pointer:
		if e := r.defaulterLocked(t.Elem()); e != nil {
			inner = func(v reflect.Value) {
				if !v.IsNil() {
					e(v.Elem())
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if e := r.defaulterLocked(t.Elem()); e != nil {
			inner = func(v reflect.Value) {
				for i := 0; i < v.Len(); i++ {
					e(v.Index(i))
				}
			}
		}
	case reflect.Map:
		if e := r.defaulterLocked(t.Elem()); e != nil {
			et := t.Elem()
			inner = func(v reflect.Value) {
				it := v.MapRange()
				for it.Next() {
					tmp := reflect.New(et).Elem()
					tmp.Set(it.Value())
					e(tmp)
					v.SetMapIndex(it.Key(), tmp)
				}
			}
		}
	case reflect.Struct:
		type fieldDefaulter struct {
			index int
			f     defaultFunc
		}
		var fields []fieldDefaulter
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			if e := r.defaulterLocked(t.Field(i).Type); e != nil {
				fields = append(fields, fieldDefaulter{i, e})
			}
		}
		if len(fields) > 0 {
			inner = func(v reflect.Value) {
				for _, fd := range fields {
					fd.f(v.Field(fd.index))
				}
			}
		}
	}
	switch {
	case own == nil:
		return inner
	case inner == nil:
		return own
	}
	return func(v reflect.Value) {
		own(v)
		inner(v)
	}
}
