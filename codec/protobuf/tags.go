package protobuf

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/scheme"
)

// Messages derived from the `protobuf` struct tags of Go types, as k8s.io/api's types
// carry them (`protobuf:"varint,1,opt,name=replicas"`, and protobuf_key and protobuf_val
// on maps), so that a built-in kind needs no table of field numbers: its Go type is
// the table.

// RegisterType describes the protobuf encoding of a kind by the `protobuf` struct
// tags of obj's Go type (a pointer to a struct), as k8s.io/api's generated.proto
// numbers them, and with it that of its list kind (Kind+"List": the list's own Go type
// when s knows it, else metadata=1 ListMeta, items=2), so that the [Serializer] of s
// encodes and decodes the kind, typed or unstructured, byte for byte as k8s.io/api's
// gogo-generated Marshal does. The messages are derived once per Go type and shared
// by every scheme and kind that uses it.
//
// The tags give the field numbers; the Go types map to the wire as gogo writes proto2
// fields: a pointer is optional (written only when set), any other field is always
// written (zero included); a slice is a repeated field (written per element, scalars
// unpacked), a named slice type a message of repeated items=1 (meta/v1 Verbs,
// authentication/v1 ExtraValue); a map is a map (entries sorted by key;
// protobuf_key and protobuf_val, when present, must say key=1 and value=2); []byte
// is bytes, written when not nil; a struct is a
// message, derived from its own tags; an embedded struct with a protobuf tag and no
// JSON name (core/v1 Volume's VolumeSource) is a message on the wire whose fields are
// its parent's in JSON. scheme.Time, MicroTime, ObjectMeta, ListMeta and Condition are
// the meta/v1 messages; quantity.Quantity, scheme.IntOrString and scheme.RawExtension
// those of resource.Quantity, intstr.IntOrString and runtime.RawExtension. A field with a JSON name but no protobuf tag is refused, as is
// a wire type other than varint, bytes and fixed64, so that nothing is silently lost.
// The Go type, not the tag's wire type or label, decides how a value is written, as
// go-to-protobuf derives generated.proto from it: k8s.io/api tags a few fields
// otherwise (core/v1 SecretVolumeSource's int32 defaultMode "bytes", which the wire
// has as an int32 varint).
func RegisterType(s *scheme.Scheme, gvk scheme.GroupVersionKind, obj scheme.Kinded) error {
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("protobuf: registering %s: %T is not a pointer to a struct", gvk, obj)
	}
	m, err := messageOf(t.Elem())
	if err == nil {
		_, err = planFor(t.Elem(), m)
	}
	if err != nil {
		return fmt.Errorf("protobuf: registering %s: %w", gvk, err)
	}
	lk := gvk
	lk.Kind += "List"
	var lm *message
	if lt, ok := s.TypeFor(lk); ok {
		if lm, err = messageOf(lt); err == nil {
			_, err = planFor(lt, lm)
		}
		if err == nil && (lm.byName["items"] == nil || lm.byName["items"].msg != m || !lm.byName["items"].repeated) {
			err = fmt.Errorf("%v: items is not a repeated %v", lt, t.Elem())
		}
		if err != nil {
			return fmt.Errorf("protobuf: registering %s: %w", lk, err)
		}
	} else {
		lm = listMessage(lk.Kind, m)
	}
	r := registryOf(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds[gvk] = m
	r.kinds[lk] = lm
	return nil
}

// RegisterTypes registers with [RegisterType] each object of gv under the kind named
// by its Go type, as scheme.Scheme.AddKnownTypes names them; list types (whose name
// ends in "List" after a registered kind's) come with their kinds and are skipped.
func RegisterTypes(s *scheme.Scheme, gv scheme.GroupVersion, objs ...scheme.Kinded) error {
	kinds := map[string]bool{}
	for _, obj := range objs {
		if t := reflect.TypeOf(obj); t != nil && t.Kind() == reflect.Pointer {
			kinds[t.Elem().Name()] = true
		}
	}
	for _, obj := range objs {
		t := reflect.TypeOf(obj)
		if t == nil || t.Kind() != reflect.Pointer {
			return fmt.Errorf("protobuf: registering %T in %s: not a pointer to a struct", obj, gv)
		}
		name := t.Elem().Name()
		if base, isList := strings.CutSuffix(name, "List"); isList && kinds[base] {
			continue
		}
		if err := RegisterType(s, gv.WithKind(name), obj); err != nil {
			return err
		}
	}
	return nil
}

// inlineName is the name of an inline field in its message: never a JSON name,
// which cannot hold a comma.
func inlineName(goField string) string { return ",inline," + goField }

// derived caches the message of each Go struct type (reflect.Type -> derivedMessage).
var (
	derived  sync.Map
	deriveMu sync.Mutex // one derivation at a time: types in progress are shared
)

type derivedMessage struct {
	m   *message
	err error
}

// messageOf returns the message derived from the protobuf tags of the struct type t.
func messageOf(t reflect.Type) (*message, error) {
	if d, ok := derived.Load(t); ok {
		return d.(derivedMessage).m, d.(derivedMessage).err
	}
	deriveMu.Lock()
	defer deriveMu.Unlock()
	if d, ok := derived.Load(t); ok {
		return d.(derivedMessage).m, d.(derivedMessage).err
	}
	d := deriver{seen: map[reflect.Type]*message{}}
	m, err := d.message(t)
	if err != nil {
		// Only t's error is kept: the messages begun on the way may be incomplete.
		derived.Store(t, derivedMessage{err: err})
		return nil, err
	}
	for st, sm := range d.seen {
		derived.Store(st, derivedMessage{m: sm})
	}
	return m, nil
}

// deriver derives the messages of one Go type and of the types it reaches; seen holds
// each message from the moment it is begun, so that a recursive type refers to itself.
type deriver struct {
	seen map[reflect.Type]*message
}

var typeMetaType = reflect.TypeFor[scheme.TypeMeta]()

func (d *deriver) message(t reflect.Type) (*message, error) {
	if v, ok := derived.Load(t); ok {
		dm := v.(derivedMessage)
		return dm.m, dm.err
	}
	if m := d.seen[t]; m != nil {
		return m, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("Go type %v is not a struct", t)
	}
	m := newMessage(t.String())
	d.seen[t] = m
	if err := d.fields(t, m); err != nil {
		return nil, err
	}
	return m, nil
}

// fields adds the fields of struct t to m, walking into embedded structs without a
// JSON name or protobuf tag as encoding/json does.
func (d *deriver) fields(t reflect.Type, m *message) error {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		jtag := sf.Tag.Get("json")
		if jtag == "-" {
			continue
		}
		jname, jopts, _ := strings.Cut(jtag, ",")
		ptag, tagged := sf.Tag.Lookup("protobuf")
		if sf.Anonymous && jname == "" {
			switch {
			case tagged:
				if sf.Type.Kind() != reflect.Struct {
					return fmt.Errorf("%v.%s: an inline protobuf field must be a struct, not %v", t, sf.Name, sf.Type)
				}
				wire, num, _, err := parseTag(ptag)
				if err == nil && wire != "bytes" {
					err = fmt.Errorf("wire type %q, want bytes", wire)
				}
				if err != nil {
					return fmt.Errorf("%v.%s: protobuf tag %q: %w", t, sf.Name, ptag, err)
				}
				sub, err := d.message(sf.Type)
				if err != nil {
					return err
				}
				if err := m.add(&field{name: inlineName(sf.Name), num: num, typ: TypeMessage, inline: true, msg: sub}); err != nil {
					return err
				}
			case sf.Type == typeMetaType:
				// apiVersion and kind travel in the envelope, or not at all.
				m.typeMeta = true
			case sf.Type.Kind() == reflect.Struct:
				if err := d.fields(sf.Type, m); err != nil {
					return err
				}
			default:
				return fmt.Errorf("%v.%s: embedded %v without a JSON name: only structs are supported", t, sf.Name, sf.Type)
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if jname == "" {
			jname = sf.Name
		}
		if !tagged {
			return fmt.Errorf("%v.%s: JSON field %q has no protobuf tag", t, sf.Name, jname)
		}
		f, err := d.field(jname, sf)
		if err != nil {
			return fmt.Errorf("%v.%s: protobuf tag %q: %w", t, sf.Name, ptag, err)
		}
		f.keepZero = !hasOption(jopts, "omitempty") && !hasOption(jopts, "omitzero")
		if err := m.add(f); err != nil {
			return err
		}
	}
	return nil
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// parseTag reads the wire type, field number and label of a protobuf tag
// ("varint,1,opt,name=replicas,casttype=..."); a few of k8s.io/api's tags have no
// label ("bytes,2,name=spec"), which the Go type makes up for.
func parseTag(tag string) (wire string, num protowire.Number, label string, err error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return "", 0, "", fmt.Errorf("want a wire type and a field number")
	}
	n, err := strconv.ParseInt(parts[1], 10, 32)
	if err != nil || !protowire.Number(n).IsValid() {
		return "", 0, "", fmt.Errorf("invalid field number %q", parts[1])
	}
	if len(parts) > 2 {
		switch parts[2] {
		case "opt", "req", "rep":
			label = parts[2]
		default:
			if !strings.Contains(parts[2], "=") {
				return "", 0, "", fmt.Errorf("unknown label %q", parts[2])
			}
		}
	}
	return parts[0], protowire.Number(n), label, nil
}

// field derives one field from its struct field's tags.
func (d *deriver) field(name string, sf reflect.StructField) (*field, error) {
	wire, num, _, err := parseTag(sf.Tag.Get("protobuf"))
	if err != nil {
		return nil, err
	}
	f := &field{name: name, num: num}
	t := sf.Type
	if t.Kind() == reflect.Pointer {
		f.optional = true
		t = t.Elem()
	}
	// The Go type, not the tag's label, decides between singular, repeated and map,
	// as go-to-protobuf does: k8s.io/api's tags mislabel a few (core/v1
	// ServiceAccountTokenProjection's audience string "rep", certificates/v1 usages
	// "opt"; generated.proto has them as the Go type says).
	switch {
	case t.Kind() == reflect.Map:
		return f, d.mapField(f, wire, t, sf.Tag)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		if t.Name() != "" {
			// A named list type is a message of repeated items=1 (meta/v1 Verbs).
			if t.Elem().Kind() != reflect.String {
				return nil, fmt.Errorf("named list type %v: only string lists travel as a message", t)
			}
			f.typ = TypeStringList
			return f, nil
		}
		f.repeated = true
		et := t.Elem()
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		f.typ, f.msg, err = d.value(wire, et)
		return f, err
	}
	f.typ, f.msg, err = d.value(wire, t)
	return f, err
}

// mapField derives the entry of a map field: key=1, value=2, checked against
// protobuf_key and protobuf_val when the struct field has them.
func (d *deriver) mapField(f *field, wire string, t reflect.Type, tag reflect.StructTag) error {
	if wire != "bytes" {
		return fmt.Errorf("map with wire type %q, want bytes", wire)
	}
	if t.Key().Kind() != reflect.String {
		return fmt.Errorf("map key of Go type %v: only string keys are supported", t.Key())
	}
	keyWire, valWire := "bytes", defaultWire(t.Elem())
	for _, e := range []struct {
		name string
		num  protowire.Number
		wire *string
	}{{"protobuf_key", 1, &keyWire}, {"protobuf_val", 2, &valWire}} {
		pt, ok := tag.Lookup(e.name)
		if !ok {
			continue
		}
		w, n, _, err := parseTag(pt)
		if err != nil {
			return fmt.Errorf("%s %q: %w", e.name, pt, err)
		}
		if n != e.num {
			return fmt.Errorf("%s %q: field number %d, want %d", e.name, pt, n, e.num)
		}
		*e.wire = w
	}
	if keyWire != "bytes" {
		return fmt.Errorf("map key with wire type %q, want bytes", keyWire)
	}
	f.key = &field{name: "key", num: 1, typ: TypeString}
	f.val = &field{name: "value", num: 2}
	vt := t.Elem()
	if vt.Kind() == reflect.Slice && vt.Elem().Kind() == reflect.String && valWire == "bytes" {
		f.val.typ = TypeStringList // authentication/v1 ExtraValue
	} else {
		var err error
		if f.val.typ, f.val.msg, err = d.value(valWire, vt); err != nil {
			return fmt.Errorf("map value: %w", err)
		}
	}
	f.typ = TypeMap
	if vt.Kind() == reflect.String {
		f.typ = TypeStringMap // the fast path of labels and annotations
	}
	return nil
}

// defaultWire is the wire type of a Go type's values, for maps without protobuf_val.
func defaultWire(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "varint"
	case reflect.Float64:
		return "fixed64"
	}
	return "bytes"
}

// value derives the type of a singular value (a field, a list element, a map value)
// of Go type t (not a pointer) with the tag's wire type.
func (d *deriver) value(wire string, t reflect.Type) (Type, *message, error) {
	typ := TypeMessage
	switch t {
	case timeType:
		typ = TypeTime
	case microTimeType:
		typ = TypeMicroTime
	case objectMetaType:
		typ = TypeObjectMeta
	case listMetaType:
		typ = TypeListMeta
	case conditionType:
		typ = TypeCondition
	case quantityType:
		typ = TypeQuantity
	case intOrStringType:
		typ = TypeIntOrString
	case rawExtensionType:
		typ = TypeRawExtension
	default:
		switch t.Kind() {
		case reflect.String:
			typ = TypeString
		case reflect.Bool:
			typ = TypeBool
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16, reflect.Uint32:
			typ = TypeInt32
		case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
			typ = TypeInt64
		case reflect.Float64:
			typ = TypeDouble
		case reflect.Slice:
			if t.Elem().Kind() != reflect.Uint8 {
				return 0, nil, fmt.Errorf("Go type %v: a list of lists has no protobuf encoding", t)
			}
			typ = TypeBytes
		case reflect.Struct:
		default:
			return 0, nil, fmt.Errorf("Go type %v has no protobuf encoding", t)
		}
	}
	// The Go type decides the wire type, as go-to-protobuf derives generated.proto
	// from it: a few of k8s.io/api's tags name another (core/v1
	// SecretVolumeSource.defaultMode, an int32 tagged bytes, is a varint on the wire).
	switch wire {
	case "varint", "bytes", "fixed64":
	default:
		return 0, nil, fmt.Errorf("wire type %q: only varint, bytes and fixed64 are supported", wire)
	}
	if typ != TypeMessage {
		return typ, nil, nil
	}
	m, err := d.message(t)
	return typ, m, err
}
