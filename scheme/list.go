package scheme

import (
	"fmt"
	"reflect"
)

// IsList reports whether obj is a list kind: an UnstructuredList or a struct with an
// Items slice field.
func IsList(obj Kinded) bool {
	if _, ok := obj.(*UnstructuredList); ok {
		return true
	}
	_, err := itemsField(obj)
	return err == nil
}

// ExtractList returns the members of a list as Objects. For typed lists whose Items hold
// values, the returned pointers point into the list's slice: changing them changes the list.
func ExtractList(list Kinded) ([]Object, error) {
	if l, ok := list.(*UnstructuredList); ok {
		out := make([]Object, len(l.Items))
		for i := range l.Items {
			out[i] = &l.Items[i]
		}
		return out, nil
	}
	items, err := itemsField(list)
	if err != nil {
		return nil, err
	}
	out := make([]Object, items.Len())
	for i := range out {
		v := items.Index(i)
		if v.Kind() != reflect.Pointer {
			v = v.Addr()
		}
		obj, ok := v.Interface().(Object)
		if !ok {
			return nil, fmt.Errorf("list item type %v does not implement scheme.Object", v.Type())
		}
		out[i] = obj
	}
	return out, nil
}

// SetList replaces the members of a list. For a typed list each object must be a pointer
// to the Items element type (or that pointer type itself when Items holds pointers); for
// an UnstructuredList each must be an *Unstructured.
func SetList(list Kinded, objs []Object) error {
	if l, ok := list.(*UnstructuredList); ok {
		l.Items = make([]Unstructured, len(objs))
		for i, o := range objs {
			u, ok := o.(*Unstructured)
			if !ok {
				return fmt.Errorf("an UnstructuredList holds *Unstructured items, got %T", o)
			}
			l.Items[i] = *u
		}
		return nil
	}
	items, err := itemsField(list)
	if err != nil {
		return err
	}
	et := items.Type().Elem()
	slice := reflect.MakeSlice(items.Type(), len(objs), len(objs))
	for i, o := range objs {
		v := reflect.ValueOf(o)
		switch {
		case v.Type() == et:
			slice.Index(i).Set(v)
		case v.Kind() == reflect.Pointer && v.Type().Elem() == et:
			if v.IsNil() {
				return fmt.Errorf("list item %d is nil", i)
			}
			slice.Index(i).Set(v.Elem())
		default:
			return fmt.Errorf("list items are %v, got %T", et, o)
		}
	}
	items.Set(slice)
	return nil
}

// NewListItem returns a new zero member of the list's item type.
func NewListItem(list Kinded) (Object, error) {
	if _, ok := list.(*UnstructuredList); ok {
		return &Unstructured{}, nil
	}
	items, err := itemsField(list)
	if err != nil {
		return nil, err
	}
	et := items.Type().Elem()
	if et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	obj, ok := reflect.New(et).Interface().(Object)
	if !ok {
		return nil, fmt.Errorf("list item type %v does not implement scheme.Object", et)
	}
	return obj, nil
}

func itemsField(list Kinded) (reflect.Value, error) {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("%T is not a pointer to a list struct", list)
	}
	items := v.Elem().FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice {
		return reflect.Value{}, fmt.Errorf("%T has no Items slice field", list)
	}
	return items, nil
}
