package strategies

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// internalForm is a value of a generated API type as kube's validation messages print
// the internal type it validates: kube's internal types have no json tags, so
// encoding/json writes their fields by Go name, in order, none omitted; the
// apimachinery types they hold (ObjectMeta, LabelSelector, Time, Quantity, IntOrString)
// keep their JSON form, and an embedded ObjectMeta or TypeMeta has its fields inlined.
// It is the bad value of an error whose value is such a struct (a StatefulSet's
// volumeClaimTemplates that may not change).
type internalForm struct{ v any }

// MarshalJSON writes the internal form.
func (f internalForm) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeInternal(&b, reflect.ValueOf(f.v)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// generatedPackages are the packages of the types kube has an internal twin of.
var generatedPackages = []string{"github.com/apikit-dev/apikit/builtin/core/", "github.com/apikit-dev/apikit/builtin/apps/"}

func isGenerated(t reflect.Type) bool {
	return slices.ContainsFunc(generatedPackages, func(p string) bool { return strings.HasPrefix(t.PkgPath(), p) })
}

var (
	objectMetaType = reflect.TypeFor[scheme.ObjectMeta]()
	typeMetaType   = reflect.TypeFor[scheme.TypeMeta]()
)

func writeInternal(b *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		b.WriteString("null")
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return writeInternal(b, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			break // []byte is base64, as json writes it
		}
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeInternal(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		if v.Type().Key().Kind() != reflect.String {
			break
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, c reflect.Value) int { return strings.Compare(a.String(), c.String()) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			name, _ := json.Marshal(k.String())
			b.Write(name)
			b.WriteByte(':')
			if err := writeInternal(b, v.MapIndex(k)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case reflect.Struct:
		if isGenerated(v.Type()) {
			return writeInternalStruct(b, v)
		}
	}
	out, err := json.Marshal(v.Interface())
	if err != nil {
		return err
	}
	b.Write(out)
	return nil
}

func writeInternalStruct(b *bytes.Buffer, v reflect.Value) error {
	t := v.Type()
	b.WriteByte('{')
	first := true
	sep := func() {
		if !first {
			b.WriteByte(',')
		}
		first = false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && (f.Type == objectMetaType || f.Type == typeMetaType) {
			// The embedded struct's JSON members, promoted as encoding/json promotes them.
			out, err := json.Marshal(v.Field(i).Interface())
			if err != nil {
				return err
			}
			if members := bytes.TrimSpace(out[1 : len(out)-1]); len(members) > 0 {
				sep()
				b.Write(members)
			}
			continue
		}
		sep()
		name, _ := json.Marshal(f.Name)
		b.Write(name)
		b.WriteByte(':')
		if err := writeInternal(b, v.Field(i)); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}
