package protobuf

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/scheme"
)

// Typed Go values are encoded by a plan compiled once per (Go struct type, message)
// that maps each registered field to the struct field with the same JSON name.

type structPlan struct {
	fields []fieldPlan // ascending by number
	byNum  map[protowire.Number]int
}

type fieldPlan struct {
	f     *field
	index []int
	sub   *structPlan // TypeMessage: plan of the element struct
	val   *fieldPlan  // TypeMap: plan of the entry's value (its index unused)
}

type planKey struct {
	t reflect.Type
	m *message
}

var plans sync.Map // planKey -> *structPlan or error

var (
	timeType       = reflect.TypeFor[scheme.Time]()
	objectMetaType = reflect.TypeFor[scheme.ObjectMeta]()
	listMetaType   = reflect.TypeFor[scheme.ListMeta]()
	conditionType  = reflect.TypeFor[scheme.Condition]()
)

// planFor returns the cached plan of a struct type for a message.
func planFor(t reflect.Type, m *message) (*structPlan, error) {
	k := planKey{t, m}
	if v, ok := plans.Load(k); ok {
		if err, bad := v.(error); bad {
			return nil, err
		}
		return v.(*structPlan), nil
	}
	p, err := compilePlan(t, m, m.name)
	if err != nil {
		plans.Store(k, err)
		return nil, err
	}
	plans.Store(k, p)
	return p, nil
}

// jsonFields lists the JSON-named fields of a struct, walking into embedded structs
// that have no JSON name (TypeMeta, inline structs) as encoding/json does.
func jsonFields(t reflect.Type, prefix []int, out map[string][]int) error {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		idx := append(slices.Clone(prefix), i)
		if _, tagged := sf.Tag.Lookup("protobuf"); tagged && sf.Anonymous && name == "" {
			// A message of its own on the wire (see field.inline).
			out[inlineName(sf.Name)] = idx
			continue
		}
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() != reflect.Struct {
				return fmt.Errorf("embedded field %s of %v: only embedded structs are supported", sf.Name, t)
			}
			if err := jsonFields(ft, idx, out); err != nil {
				return err
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, dup := out[name]; !dup {
			out[name] = idx
		}
	}
	return nil
}

// compilePlan compiles the plan of a struct type for a message and of the structs it
// reaches, which it caches with it.
func compilePlan(t reflect.Type, m *message, path string) (*structPlan, error) {
	memo := map[planKey]*structPlan{}
	p, err := compileInto(t, m, path, memo)
	if err != nil {
		return nil, err
	}
	for k, sp := range memo {
		plans.LoadOrStore(k, sp)
	}
	return p, nil
}

// compileInto compiles a plan, reusing the cached plans and those of memo, where a
// plan is put before its fields are compiled so that a recursive type (through a
// pointer, slice or map) refers to itself.
func compileInto(t reflect.Type, m *message, path string, memo map[planKey]*structPlan) (*structPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s: Go type %v is not a struct", path, t)
	}
	k := planKey{t, m}
	if v, ok := plans.Load(k); ok {
		if p, ok := v.(*structPlan); ok {
			return p, nil
		}
	}
	if p := memo[k]; p != nil {
		return p, nil
	}
	names := map[string][]int{}
	if err := jsonFields(t, nil, names); err != nil {
		return nil, err
	}
	p := &structPlan{byNum: map[protowire.Number]int{}}
	memo[k] = p
	for _, f := range m.fields {
		idx, ok := names[f.name]
		if !ok {
			return nil, fmt.Errorf("%s.%s: %v has no field with that JSON name", path, f.name, t)
		}
		delete(names, f.name)
		ft := t.FieldByIndex(idx).Type
		fp := fieldPlan{f: f, index: idx}
		et := ft
		if f.repeated {
			if ft.Kind() != reflect.Slice {
				return nil, fmt.Errorf("%s.%s: repeated field needs a slice, %v has %v", path, f.name, t, ft)
			}
			et = ft.Elem()
		}
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if err := planValue(&fp, et, path+"."+f.name, memo); err != nil {
			return nil, err
		}
		p.byNum[f.num] = len(p.fields)
		p.fields = append(p.fields, fp)
	}
	delete(names, "apiVersion")
	delete(names, "kind")
	for n := range names {
		return nil, fmt.Errorf("%s: JSON field %q of %v has no protobuf field number", path, n, t)
	}
	return p, nil
}

// planValue checks that the Go type et (a slice's element, a pointer's target) can
// hold the field of fp and plans its messages: a TypeMessage's struct, a TypeMap's
// value.
func planValue(fp *fieldPlan, et reflect.Type, path string, memo map[planKey]*structPlan) error {
	f := fp.f
	if err := checkGoType(f.typ, et); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	switch f.typ {
	case TypeMessage:
		sub, err := compileInto(et, f.msg, path, memo)
		if err != nil {
			return err
		}
		fp.sub = sub
	case TypeMap:
		if f.key == nil || f.val == nil {
			return fmt.Errorf("%s: map field without key and value", path)
		}
		if err := checkGoType(f.key.typ, et.Key()); err != nil || f.key.typ != TypeString {
			return fmt.Errorf("%s: map key: Go type %v is not a string kind", path, et.Key())
		}
		fp.val = &fieldPlan{f: f.val}
		return planValue(fp.val, et.Elem(), path+"[value]", memo)
	}
	return nil
}

// checkGoType says whether a Go type can hold a field of a protobuf type.
func checkGoType(typ Type, t reflect.Type) error {
	ok := false
	switch typ {
	case TypeString:
		ok = t.Kind() == reflect.String
	case TypeBytes:
		ok = t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
	case TypeBool:
		ok = t.Kind() == reflect.Bool
	case TypeInt32, TypeInt64:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			ok = true
		}
	case TypeDouble:
		ok = t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32
	case TypeMessage:
		ok = t.Kind() == reflect.Struct
	case TypeStringMap:
		ok = isStringMapType(t)
	case TypeTime:
		ok = isTimeType(t)
	case TypeMicroTime:
		ok = t == microTimeType
	case TypeMap:
		ok = t.Kind() == reflect.Map
	case TypeQuantity:
		ok = t == quantityType
	case TypeIntOrString:
		ok = t == intOrStringType
	case TypeRawExtension:
		ok = t == rawExtensionType
	case TypeObjectMeta:
		ok = t == objectMetaType
	case TypeListMeta:
		ok = t == listMetaType
	case TypeCondition:
		ok = t == conditionType
	case TypeStringList:
		ok = t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String
	}
	if !ok {
		return fmt.Errorf("Go type %v cannot hold protobuf type %d", t, typ)
	}
	return nil
}

// appendStruct appends the fields of the struct v (addressable) by plan p.
func appendStruct(b []byte, v reflect.Value, p *structPlan) []byte {
	for i := range p.fields {
		fp := &p.fields[i]
		fv := v.FieldByIndex(fp.index)
		switch {
		case fp.f.repeated:
			for j := 0; j < fv.Len(); j++ {
				ev := fv.Index(j)
				if ev.Kind() == reflect.Pointer {
					if ev.IsNil() {
						continue
					}
					ev = ev.Elem()
				}
				b = appendValue(b, fp, ev)
			}
		case fv.Kind() == reflect.Pointer:
			if !fv.IsNil() {
				b = appendValue(b, fp, fv.Elem())
			}
		default:
			b = appendValue(b, fp, fv)
		}
	}
	return b
}

// appendValue appends one value of a field.
func appendValue(b []byte, fp *fieldPlan, v reflect.Value) []byte {
	num := fp.f.num
	switch fp.f.typ {
	case TypeString:
		return appendString(b, num, v.String())
	case TypeBytes:
		if v.IsNil() {
			return b
		}
		return appendBytesField(b, num, v.Bytes())
	case TypeBool:
		return appendBoolField(b, num, v.Bool())
	case TypeInt32, TypeInt64:
		if v.CanInt() {
			return appendVarintField(b, num, uint64(v.Int()))
		}
		return appendVarintField(b, num, v.Uint())
	case TypeDouble:
		b = appendTag(b, num, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.Float()))
	case TypeMessage:
		b, start := beginMessage(b, num)
		return endMessage(appendStruct(b, v, fp.sub), start)
	case TypeStringMap:
		if v.Len() == 0 {
			return b
		}
		if m, ok := v.Interface().(map[string]string); ok {
			return appendStringMap(b, num, m)
		}
		if v.Type().Elem().Kind() != reflect.String {
			return appendGenericMap(b, num, v)
		}
		m := make(map[string]string, v.Len())
		for it := v.MapRange(); it.Next(); {
			m[it.Key().String()] = it.Value().String()
		}
		return appendStringMap(b, num, m)
	case TypeTime, TypeMicroTime:
		return appendTimeValue(b, num, v)
	case TypeMap:
		return appendMapField(b, fp, v)
	case TypeQuantity, TypeIntOrString, TypeRawExtension:
		return appendValueType(b, fp.f.typ, num, v)
	case TypeObjectMeta:
		b, start := beginMessage(b, num)
		return endMessage(appendObjectMeta(b, v.Addr().Interface().(*scheme.ObjectMeta)), start)
	case TypeListMeta:
		b, start := beginMessage(b, num)
		return endMessage(appendListMeta(b, v.Addr().Interface().(*scheme.ListMeta)), start)
	case TypeCondition:
		b, start := beginMessage(b, num)
		return endMessage(appendCondition(b, v.Addr().Interface().(*scheme.Condition)), start)
	case TypeStringList:
		if v.IsNil() {
			return b
		}
		b, start := beginMessage(b, num)
		for j := 0; j < v.Len(); j++ {
			b = appendString(b, 1, v.Index(j).String())
		}
		return endMessage(b, start)
	}
	return b
}

// decodeStruct reads a message body into the struct v (addressable) by plan p.
func decodeStruct(data []byte, v reflect.Value, p *structPlan, name string, depth int) error {
	r, err := nested(data, name, depth)
	if err != nil {
		return err
	}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		i, known := p.byNum[r.num]
		if !known {
			if err := r.skip(); err != nil {
				return err
			}
			continue
		}
		fp := &p.fields[i]
		fv := v.FieldByIndex(fp.index)
		if fp.f.repeated {
			if isPackable(fp.f.typ) && r.typ == protowire.BytesType {
				err = decodePacked(&r, fp, fv)
			} else {
				n := fv.Len()
				fv.Grow(1)
				fv.SetLen(n + 1)
				ev := fv.Index(n)
				ev.SetZero()
				err = decodeValue(&r, fp, settable(ev))
			}
		} else {
			err = decodeValue(&r, fp, settable(fv))
		}
		if err != nil {
			return err
		}
	}
}

// settable follows (allocating) a pointer to the value to decode into.
func settable(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return v.Elem()
	}
	return v
}

func isPackable(t Type) bool {
	return t == TypeBool || t == TypeInt32 || t == TypeInt64 || t == TypeDouble
}

// decodePacked reads a packed repeated scalar field.
func decodePacked(r *reader, fp *fieldPlan, fv reflect.Value) error {
	data, err := r.bytes()
	if err != nil {
		return err
	}
	et := fv.Type().Elem()
	for len(data) > 0 {
		var n int
		ev := reflect.New(et).Elem()
		target := settable(ev)
		if fp.f.typ == TypeDouble {
			var x uint64
			x, n = protowire.ConsumeFixed64(data)
			if n >= 0 {
				target.SetFloat(math.Float64frombits(x))
			}
		} else {
			var x uint64
			x, n = protowire.ConsumeVarint(data)
			if n >= 0 {
				setInt(target, fp.f.typ, x)
			}
		}
		if n < 0 {
			return wireError(r.msg, r.num, "packed: %v", protowire.ParseError(n))
		}
		data = data[n:]
		fv.Set(reflect.Append(fv, ev))
	}
	return nil
}

func setInt(v reflect.Value, typ Type, x uint64) {
	switch {
	case v.Kind() == reflect.Bool:
		v.SetBool(x != 0)
	case v.CanInt():
		if typ == TypeInt32 {
			v.SetInt(int64(int32(x)))
		} else {
			v.SetInt(int64(x))
		}
	default:
		v.SetUint(x)
	}
}

// decodeValue reads one value of a field into v.
func decodeValue(r *reader, fp *fieldPlan, v reflect.Value) error {
	switch fp.f.typ {
	case TypeString:
		s, err := r.string()
		v.SetString(s)
		return err
	case TypeBool, TypeInt32, TypeInt64:
		x, err := r.varint()
		setInt(v, fp.f.typ, x)
		return err
	case TypeDouble:
		x, err := r.double()
		v.SetFloat(x)
		return err
	}
	data, err := r.bytes()
	if err != nil {
		return err
	}
	switch fp.f.typ {
	case TypeBytes:
		v.SetBytes(append([]byte{}, data...))
	case TypeMessage:
		return decodeStruct(data, v, fp.sub, fp.f.msg.name, r.depth+1)
	case TypeStringMap:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		if m, ok := v.Interface().(map[string]string); ok {
			return decodeMapEntry(data, m)
		}
		if v.Type().Elem().Kind() != reflect.String {
			return decodeGenericMapEntry(data, v)
		}
		m := map[string]string{}
		if err := decodeMapEntry(data, m); err != nil {
			return err
		}
		for k, x := range m {
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), reflect.ValueOf(x).Convert(v.Type().Elem()))
		}
	case TypeTime, TypeMicroTime:
		return decodeTimeValue(data, v)
	case TypeMap:
		return decodeMapField(data, fp, v, r.depth+1)
	case TypeQuantity, TypeIntOrString, TypeRawExtension:
		return decodeValueType(data, fp.f.typ, v)
	case TypeObjectMeta:
		return decodeObjectMeta(data, v.Addr().Interface().(*scheme.ObjectMeta))
	case TypeListMeta:
		return decodeListMeta(data, v.Addr().Interface().(*scheme.ListMeta))
	case TypeCondition:
		return decodeCondition(data, v.Addr().Interface().(*scheme.Condition))
	case TypeStringList:
		items, err := decodeStringList(data)
		if err != nil {
			return err
		}
		s := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, x := range items {
			s.Index(i).SetString(x)
		}
		v.Set(s)
	}
	return nil
}

// appendMapField appends the entries of a map as gogo-generated code writes them:
// one {key=1, value=2} message per entry, sorted by key; the key always, the value
// as a field of its type is written (bytes only when not nil), except that a string
// list value (ExtraValue) is written even when nil.
func appendMapField(b []byte, fp *fieldPlan, v reflect.Value) []byte {
	if v.Len() == 0 {
		return b
	}
	keys := make([]reflect.Value, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		keys = append(keys, it.Key())
	}
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	val := reflect.New(v.Type().Elem()).Elem() // addressable, as the meta appenders need
	for _, k := range keys {
		val.Set(v.MapIndex(k))
		var start int
		b, start = beginMessage(b, fp.f.num)
		b = appendString(b, 1, k.String())
		if fp.val.f.typ == TypeStringList && val.IsNil() {
			b = append(appendTag(b, 2, protowire.BytesType), 0)
		} else {
			b = appendValue(b, fp.val, val)
		}
		b = endMessage(b, start)
	}
	return b
}

// decodeMapField reads one map entry into the map v, which it makes when nil; an
// entry without a value sets the key to the zero value, or to an empty (not nil)
// bytes or string list, as gogo-generated code does.
func decodeMapField(data []byte, fp *fieldPlan, v reflect.Value, depth int) error {
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	key := reflect.New(v.Type().Key()).Elem()
	val := reflect.New(v.Type().Elem()).Elem()
	if val.Kind() == reflect.Slice {
		val.Set(reflect.MakeSlice(val.Type(), 0, 0))
	}
	r, err := nested(data, fp.f.name+" entry", depth)
	if err != nil {
		return err
	}
	for {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch r.num {
		case 1:
			var s string
			s, err = r.string()
			key.SetString(s)
		case 2:
			val.SetZero()
			err = decodeValue(&r, fp.val, val)
		default:
			err = r.skip()
		}
		if err != nil {
			return err
		}
	}
	v.SetMapIndex(key, val)
	return nil
}

// decodeStringList reads a message of repeated string items=1.
func decodeStringList(data []byte) ([]string, error) {
	items := []string{}
	r := reader{b: data, msg: "string list"}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return items, err
		}
		if r.num == 1 {
			var s string
			s, err = r.string()
			items = append(items, s)
		} else {
			err = r.skip()
		}
		if err != nil {
			return nil, err
		}
	}
}
