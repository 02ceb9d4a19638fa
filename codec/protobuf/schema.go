package protobuf

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/scheme"
)

// Type is the protobuf type of a registered field.
type Type uint8

// The field types a registration can use. Scalars map to the proto2 types of the same
// name; the meta types are the messages of k8s.io/apimachinery's meta/v1.
const (
	// TypeString is a string (Go string kinds).
	TypeString Type = iota + 1
	// TypeBytes is bytes ([]byte); written only when not nil.
	TypeBytes
	// TypeBool is a bool.
	TypeBool
	// TypeInt32 is an int32 varint (any Go integer kind).
	TypeInt32
	// TypeInt64 is an int64 varint (any Go integer kind).
	TypeInt64
	// TypeDouble is a double (float32 or float64).
	TypeDouble
	// TypeMessage is an embedded message whose fields are registered under longer
	// paths ("spec" is TypeMessage, "spec.color" one of its fields).
	TypeMessage
	// TypeStringMap is map<string, string>.
	TypeStringMap
	// TypeTime is meta/v1 Time ({seconds=1, nanos=2}) for a scheme.Time.
	TypeTime
	// TypeObjectMeta is meta/v1 ObjectMeta for a scheme.ObjectMeta.
	TypeObjectMeta
	// TypeListMeta is meta/v1 ListMeta for a scheme.ListMeta.
	TypeListMeta
	// TypeCondition is meta/v1 Condition for a scheme.Condition.
	TypeCondition
	// TypeStringList is a message holding repeated string items=1 for a []string,
	// like meta/v1 Verbs; written only when not nil.
	TypeStringList
	// TypeMicroTime is meta/v1 MicroTime ({seconds=1, nanos=2}, microseconds kept)
	// for a scheme.MicroTime.
	TypeMicroTime
	// TypeMap is a protobuf map of any key and value type (map<string, Quantity> for a
	// ResourceList, map<string, bytes>): entries {key=1, value=2} sorted by key. Only
	// [RegisterType] derives it; [RegisterFields] refuses it and describes string
	// maps with TypeStringMap.
	TypeMap
	// TypeQuantity is resource.Quantity ({string=1}, the canonical form) for a
	// quantity.Quantity; unstructured, a string (or a JSON number).
	TypeQuantity
	// TypeIntOrString is intstr.IntOrString ({type=1, intVal=2, strVal=3}, all
	// always written) for a scheme.IntOrString; unstructured, an integer or a string.
	TypeIntOrString
	// TypeRawExtension is runtime.RawExtension ({raw=1}, the JSON bytes, written when
	// not nil) for a scheme.RawExtension; unstructured, the JSON value.
	TypeRawExtension
)

// Field maps one JSON path of a kind to a protobuf field number. Path is dotted JSON
// field names from the object's root ("metadata", "spec.parts.name": elements of a
// repeated message are described by the list's path). A field is written the way
// gogo-generated Kubernetes types write proto2 fields: scalars and messages always
// (zero included), Go pointers only when set, repeated fields and maps when not empty.
type Field struct {
	Path   string
	Number int32
	Type   Type
	// Repeated marks a list (a Go slice, a JSON array).
	Repeated bool
	// Optional marks a field written only when present: a Go pointer, or a key
	// present in an unstructured object. Non-optional fields absent from an
	// unstructured object are written as zero, as for a Go struct.
	Optional bool
}

// message is a compiled protobuf message: its fields by JSON name and by number.
type message struct {
	name   string
	fields []*field // ascending by number
	byNum  map[protowire.Number]*field
	byName map[string]*field
	// inlines are the inline fields, whose messages' JSON fields are this message's.
	inlines []*field
	// typeMeta marks the message of a Go struct embedding scheme.TypeMeta below an
	// object's root (a StatefulSet's volumeClaimTemplates): its apiVersion and kind,
	// which k8s.io/api does not number, are not written.
	typeMeta bool
}

// knows says whether a JSON field name belongs to the message: one of its own fields
// or one of an inline field's message.
func (m *message) knows(name string) bool {
	if f := m.byName[name]; f != nil && !f.inline {
		return true
	}
	for _, f := range m.inlines {
		if f.msg.knows(name) {
			return true
		}
	}
	return false
}

// field is one field of a message; msg is set for TypeMessage.
type field struct {
	name     string
	num      protowire.Number
	typ      Type
	repeated bool
	optional bool
	// inline marks a Go struct embedded without a JSON name but with a protobuf field
	// number (core/v1 Volume's VolumeSource): on the wire a message of its own, in
	// JSON its fields are its parent's. Its name is inlineName of the Go field.
	inline bool
	// keepZero marks a JSON field without omitempty: decoded into an unstructured
	// object, its zero value is kept, as encoding/json writes it for a Go struct.
	keepZero bool
	msg      *message
	// key and val are the entry fields (numbers 1 and 2) of a TypeMap.
	key, val *field
}

func newMessage(name string) *message {
	return &message{name: name, byNum: map[protowire.Number]*field{}, byName: map[string]*field{}}
}

func (m *message) add(f *field) error {
	if f.num < 1 || f.num > protowire.MaxValidNumber || (f.num >= protowire.FirstReservedNumber && f.num <= protowire.LastReservedNumber) {
		return fmt.Errorf("%s.%s: invalid field number %d", m.name, f.name, f.num)
	}
	if o := m.byNum[f.num]; o != nil {
		return fmt.Errorf("%s: field number %d used by %q and %q", m.name, f.num, o.name, f.name)
	}
	if m.byName[f.name] != nil || (!f.inline && m.knows(f.name)) {
		return fmt.Errorf("%s: field %q registered twice", m.name, f.name)
	}
	m.byNum[f.num], m.byName[f.name] = f, f
	if f.inline {
		m.inlines = append(m.inlines, f)
	}
	i, _ := slices.BinarySearchFunc(m.fields, f.num, func(a *field, n protowire.Number) int { return int(a.num - n) })
	m.fields = slices.Insert(m.fields, i, f)
	return nil
}

// compile builds the message tree of a kind from its field paths.
func compile(name string, fields []Field) (*message, error) {
	root := newMessage(name)
	sorted := slices.Clone(fields)
	// Parents before children: shorter paths first.
	slices.SortStableFunc(sorted, func(a, b Field) int {
		return strings.Count(a.Path, ".") - strings.Count(b.Path, ".")
	})
	for _, f := range sorted {
		if f.Type < TypeString || f.Type > TypeRawExtension || f.Type == TypeMap {
			return nil, fmt.Errorf("%s: field %q has unknown type %d", name, f.Path, f.Type)
		}
		parts := strings.Split(f.Path, ".")
		m := root
		for _, p := range parts[:len(parts)-1] {
			pf := m.byName[p]
			if pf == nil || pf.typ != TypeMessage {
				return nil, fmt.Errorf("%s: field %q: %q is not a registered TypeMessage field", name, f.Path, p)
			}
			m = pf.msg
		}
		nf := &field{name: parts[len(parts)-1], num: protowire.Number(f.Number), typ: f.Type, repeated: f.Repeated, optional: f.Optional}
		if nf.name == "" {
			return nil, fmt.Errorf("%s: empty name in path %q", name, f.Path)
		}
		if f.Type == TypeMessage {
			nf.msg = newMessage(m.name + "." + nf.name)
		}
		if err := m.add(nf); err != nil {
			return nil, err
		}
	}
	return root, nil
}

// listMessage is the message of a list kind: metadata=1, items=2, as every
// Kubernetes list type is numbered.
func listMessage(name string, item *message) *message {
	l := newMessage(name)
	_ = l.add(&field{name: "metadata", num: 1, typ: TypeListMeta})
	_ = l.add(&field{name: "items", num: 2, typ: TypeMessage, repeated: true, msg: item})
	return l
}

// registry holds the messages of one scheme's kinds.
type registry struct {
	mu    sync.RWMutex
	kinds map[scheme.GroupVersionKind]*message
}

type registryKey struct{}

func registryOf(s *scheme.Scheme) *registry {
	return s.Extension(registryKey{}, func() any {
		return &registry{kinds: map[scheme.GroupVersionKind]*message{}}
	}).(*registry)
}

// CloneExtension copies the registered messages for a cloned scheme
// (scheme.Scheme.Clone); compiled messages are immutable and shared.
func (r *registry) CloneExtension() any {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return &registry{kinds: maps.Clone(r.kinds)}
}

// RegisterFields describes the protobuf encoding of a kind by its JSON paths and
// field numbers, and with it that of its list kind (Kind+"List": metadata=1 ListMeta,
// items=2), so that the [Serializer] of s encodes and decodes the kind, typed or
// unstructured, without generated code. Register before serving. A kind's Go struct
// must have a registered field for every JSON field it has (besides apiVersion and
// kind), so that nothing is silently lost; Encode fails otherwise.
func RegisterFields(s *scheme.Scheme, gvk scheme.GroupVersionKind, fields ...Field) error {
	m, err := compile(gvk.Kind, fields)
	if err != nil {
		return fmt.Errorf("protobuf: registering %s: %w", gvk, err)
	}
	r := registryOf(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds[gvk] = m
	lk := gvk
	lk.Kind += "List"
	r.kinds[lk] = listMessage(lk.Kind, m)
	return nil
}

// lookup returns the message of a kind: registered on the scheme, else built in.
func (r *registry) lookup(gvk scheme.GroupVersionKind) *message {
	r.mu.RLock()
	m := r.kinds[gvk]
	r.mu.RUnlock()
	if m != nil {
		return m
	}
	if m := builtin[gvk]; m != nil {
		return m
	}
	if gvk.Kind == "DeleteOptions" {
		// Clients send meta/v1 DeleteOptions under the group version they talk to.
		return deleteOptions
	}
	return nil
}

// deleteOptions is meta/v1 DeleteOptions, the body of a delete from a client whose
// content type is protobuf (client-go's typed clients configured for it).
var deleteOptions = func() *message {
	m, err := compile("DeleteOptions", []Field{
		{Path: "gracePeriodSeconds", Number: 1, Type: TypeInt64, Optional: true},
		{Path: "preconditions", Number: 2, Type: TypeMessage, Optional: true},
		{Path: "preconditions.uid", Number: 1, Type: TypeString, Optional: true},
		{Path: "preconditions.resourceVersion", Number: 2, Type: TypeString, Optional: true},
		{Path: "orphanDependents", Number: 3, Type: TypeBool, Optional: true},
		{Path: "propagationPolicy", Number: 4, Type: TypeString, Optional: true},
		{Path: "dryRun", Number: 5, Type: TypeString, Repeated: true},
		{Path: "ignoreStoreReadErrorWithClusterBreakingPotential", Number: 6, Type: TypeBool, Optional: true},
	})
	if err != nil {
		panic(err)
	}
	return m
}()

// builtin holds the kinds every server may serve besides its own: discovery's
// APIResourceList and the scale subresource's autoscaling/v1 Scale.
var builtin = func() map[scheme.GroupVersionKind]*message {
	must := func(m *message, err error) *message {
		if err != nil {
			panic(err)
		}
		return m
	}
	out := map[scheme.GroupVersionKind]*message{}
	// meta/v1 APIResourceList and APIResource.
	out[scheme.GroupVersionKind{Version: "v1", Kind: "APIResourceList"}] = must(compile("APIResourceList", []Field{
		{Path: "groupVersion", Number: 1, Type: TypeString},
		{Path: "resources", Number: 2, Type: TypeMessage, Repeated: true},
		{Path: "resources.name", Number: 1, Type: TypeString},
		{Path: "resources.namespaced", Number: 2, Type: TypeBool},
		{Path: "resources.kind", Number: 3, Type: TypeString},
		{Path: "resources.verbs", Number: 4, Type: TypeStringList},
		{Path: "resources.shortNames", Number: 5, Type: TypeString, Repeated: true},
		{Path: "resources.singularName", Number: 6, Type: TypeString},
		{Path: "resources.categories", Number: 7, Type: TypeString, Repeated: true},
		{Path: "resources.group", Number: 8, Type: TypeString},
		{Path: "resources.version", Number: 9, Type: TypeString},
		{Path: "resources.storageVersionHash", Number: 10, Type: TypeString},
	}))
	// autoscaling/v1 Scale.
	out[scheme.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}] = must(compile("Scale", []Field{
		{Path: "metadata", Number: 1, Type: TypeObjectMeta},
		{Path: "spec", Number: 2, Type: TypeMessage},
		{Path: "spec.replicas", Number: 1, Type: TypeInt32},
		{Path: "status", Number: 3, Type: TypeMessage},
		{Path: "status.replicas", Number: 1, Type: TypeInt32},
		{Path: "status.selector", Number: 2, Type: TypeString},
	}))
	return out
}()
