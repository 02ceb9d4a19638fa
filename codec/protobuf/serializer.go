package protobuf

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// Marshaler is what a Go type implements to encode itself, as the gogo-generated
// types of Kubernetes do: Marshal returns the message (without envelope).
type Marshaler interface {
	Marshal() ([]byte, error)
}

// Unmarshaler is what a Go type implements to decode itself from a message (without
// envelope), replacing its contents, as gogo-generated Kubernetes types do.
type Unmarshaler interface {
	Unmarshal([]byte) error
}

// ErrNotProtobuf says a kind has no protobuf encoding: it is none of the meta kinds,
// implements neither [Marshaler] nor proto.Message, and has no fields registered
// with [RegisterFields]. The REST layer answers 406 to a protobuf-only Accept (or
// falls back to JSON when the client accepts it) and 415 to a protobuf request body.
var ErrNotProtobuf = errors.New("kind has no protobuf encoding")

// NotProtobufError is the error of an Encode or Decode of a kind without protobuf
// encoding; it wraps [ErrNotProtobuf] and, when a registration did not fit the Go
// type, the reason.
type NotProtobufError struct {
	GVK  scheme.GroupVersionKind
	Type reflect.Type
	Err  error
}

// Error names the kind and Go type, like apimachinery's "does not implement the
// protobuf marshalling interface".
func (e *NotProtobufError) Error() string {
	msg := fmt.Sprintf("object %v (%s) cannot be encoded as a protobuf message", e.Type, e.GVK.Kind)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns ErrNotProtobuf, codec.ErrUnsupportedMediaType (which tells any
// caller of a codec.Serializer that the kind has no encoding in this media type) and
// the underlying reason.
func (e *NotProtobufError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNotProtobuf, codec.ErrUnsupportedMediaType}
	}
	return []error{ErrNotProtobuf, codec.ErrUnsupportedMediaType, e.Err}
}

// Serializer is the application/vnd.kubernetes.protobuf [codec.Serializer] of a
// scheme. It is safe for concurrent use.
type Serializer struct {
	scheme *scheme.Scheme
	reg    *registry
}

var _ interface {
	codec.Serializer
	codec.EventFramer
	codec.KindSupporter
	codec.TargetSupporter
} = (*Serializer)(nil)

// New returns the protobuf serializer of s; kinds registered later with
// [RegisterFields] are seen by it.
func New(s *scheme.Scheme) *Serializer { return &Serializer{scheme: s, reg: registryOf(s)} }

// MediaType returns application/vnd.kubernetes.protobuf.
func (s *Serializer) MediaType() string { return codec.MediaTypeProtobuf }

// Encode writes obj in the Kubernetes envelope ([Magic] + [Unknown]) with one Write.
// A kind without protobuf encoding fails with a [*NotProtobufError] before anything
// is written.
func (s *Serializer) Encode(w io.Writer, obj scheme.Kinded) error {
	ok := obj.GetObjectKind()
	if tm, isTM := ok.(*scheme.TypeMeta); isTM && tm.Kind != "" {
		// The strings as set, without rebuilding apiVersion from its parts; and without
		// parsing them either when the Go type alone picks the encoding.
		var gvk scheme.GroupVersionKind
		if !encodesByType(obj) {
			gvk = ok.GroupVersionKind()
		}
		return s.encode(w, tm.APIVersion, tm.Kind, gvk, obj)
	}
	gvk := ok.GroupVersionKind()
	if gvk.Kind == "" {
		if kinds, err := s.scheme.ObjectKinds(obj); err == nil {
			gvk = kinds[0]
		}
	}
	return s.EncodeAs(w, gvk, obj)
}

// EncodeAs writes v, which need not carry apiVersion and kind itself (discovery's
// APIResourceList), in the envelope as the kind gvk.
func (s *Serializer) EncodeAs(w io.Writer, gvk scheme.GroupVersionKind, v any) error {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return s.encode(w, apiVersion, kind, gvk, v)
}

// encode writes the envelope of v in one Write (see codec.WriteAppended).
func (s *Serializer) encode(w io.Writer, apiVersion, kind string, gvk scheme.GroupVersionKind, v any) error {
	return codec.WriteAppended(w, v, func(b []byte) ([]byte, error) { return s.appendEnveloped(b, apiVersion, kind, gvk, v) })
}

// appendEnveloped appends Magic, the envelope and the message of v.
func (s *Serializer) appendEnveloped(b []byte, apiVersion, kind string, gvk scheme.GroupVersionKind, v any) ([]byte, error) {
	b, start := appendEnvelopeHead(b, apiVersion, kind)
	b, err := s.appendObject(b, gvk, v)
	if err != nil {
		return b, err
	}
	return appendEnvelopeTail(b, start), nil
}

// AppendAs appends the enveloped encoding of v as the kind gvk to b.
func (s *Serializer) AppendAs(b []byte, gvk scheme.GroupVersionKind, v any) ([]byte, error) {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return s.appendEnveloped(b, apiVersion, kind, gvk, v)
}

// encodesByType reports whether appendObject encodes v by its Go type alone, without
// looking at the kind it is given.
func encodesByType(v any) bool {
	switch v.(type) {
	case *scheme.Status, *scheme.PartialObjectMetadata, *scheme.PartialObjectMetadataList, Marshaler, proto.Message:
		return true
	}
	return false
}

// appendObject appends the message (no envelope) of v; gvk is only read when
// encodesByType(v) is false.
func (s *Serializer) appendObject(b []byte, gvk scheme.GroupVersionKind, v any) ([]byte, error) {
	switch o := v.(type) {
	case *scheme.Status:
		return appendStatus(b, o), nil
	case *scheme.PartialObjectMetadata:
		return appendPartialObjectMetadata(b, o), nil
	case *scheme.PartialObjectMetadataList:
		return appendPartialObjectMetadataList(b, o), nil
	case Marshaler:
		raw, err := o.Marshal()
		return append(b, raw...), err
	case proto.Message:
		return proto.MarshalOptions{Deterministic: true}.MarshalAppend(b, o)
	case *scheme.Unstructured:
		m := s.reg.lookup(gvk)
		if m == nil {
			return b, &NotProtobufError{GVK: gvk, Type: reflect.TypeOf(v)}
		}
		return appendMap(b, m, o.Object, true)
	case *scheme.UnstructuredList:
		m := s.reg.lookup(gvk)
		if m == nil || m.byName["items"] == nil || m.byName["items"].msg == nil {
			return b, &NotProtobufError{GVK: gvk, Type: reflect.TypeOf(v)}
		}
		var err error
		if b, err = appendAny(b, m.byName["metadata"], orEmpty(o.Object["metadata"])); err != nil {
			return b, err
		}
		items := m.byName["items"]
		for i := range o.Items {
			var start int
			b, start = beginMessage(b, items.num)
			if b, err = appendMap(b, items.msg, o.Items[i].Object, true); err != nil {
				return b, err
			}
			b = endMessage(b, start)
		}
		return b, nil
	}
	m := s.reg.lookup(gvk)
	rv := reflect.ValueOf(v)
	if m == nil || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return b, &NotProtobufError{GVK: gvk, Type: reflect.TypeOf(v)}
	}
	p, err := planFor(rv.Type().Elem(), m)
	if err != nil {
		return b, &NotProtobufError{GVK: gvk, Type: reflect.TypeOf(v), Err: err}
	}
	return appendStruct(b, rv.Elem(), p), nil
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

// Decode reads an enveloped object; see [codec.Serializer]. Without into, the object
// is a new one of the scheme's Go type for the kind, else a meta kind (Status,
// PartialObjectMetadata, PartialObjectMetadataList), else an Unstructured for a kind
// with registered fields. Protobuf has no unknown-field reporting: Result.Issues is
// always empty. Data without the prefix fails with an error wrapping [ErrNoMagic].
func (s *Serializer) Decode(data []byte, defaults *scheme.GroupVersionKind, into scheme.Kinded) (codec.Result, error) {
	u, err := DecodeEnvelope(data)
	if err != nil {
		return codec.Result{}, err
	}
	named := scheme.FromAPIVersionAndKind(u.APIVersion, u.Kind)
	actual := named
	if defaults != nil {
		actual = codec.WithDefaults(actual, *defaults)
	}
	obj := into
	if into != nil {
		switch into.(type) {
		case *scheme.Unstructured, *scheme.UnstructuredList,
			*scheme.Status, *scheme.PartialObjectMetadata, *scheme.PartialObjectMetadataList:
		default:
			if kinds, err := s.scheme.ObjectKinds(into); err == nil {
				actual = codec.WithDefaults(actual, kinds[0])
				// A registered Go type of another kind is not decoded into: the
				// object is created for the kind the data names, as apimachinery does.
				if !slices.Contains(kinds, actual) {
					obj = nil
				}
			}
		}
	}
	if actual.Kind == "" {
		return codec.Result{GVK: actual}, &codec.MissingKindError{Data: fmt.Sprintf("%+v", u.APIVersion)}
	}
	if actual.Version == "" {
		return codec.Result{GVK: actual}, &codec.MissingVersionError{Data: fmt.Sprintf("%+v", u.Kind)}
	}
	if obj == nil {
		if obj, err = s.newObject(actual); err != nil {
			return codec.Result{GVK: actual}, err
		}
	}
	if err := s.decodeObject(u.Raw, actual, obj); err != nil {
		return codec.Result{GVK: actual}, fmt.Errorf("decoding %s: %w", actual.Kind, err)
	}
	if tm, ok := obj.GetObjectKind().(*scheme.TypeMeta); ok && u.Kind == actual.Kind && named == actual {
		// The envelope's strings as they are, without rebuilding apiVersion.
		tm.APIVersion, tm.Kind = u.APIVersion, u.Kind
	} else {
		obj.GetObjectKind().SetGroupVersionKind(actual)
	}
	return codec.Result{Object: obj, GVK: actual}, nil
}

// newObject creates the value a kind decodes into.
func (s *Serializer) newObject(gvk scheme.GroupVersionKind) (scheme.Kinded, error) {
	if s.scheme.Recognizes(gvk) {
		return s.scheme.New(gvk)
	}
	if gvk.Group == "" || gvk.Group == scheme.MetaGroupVersion.Group {
		switch gvk.Kind {
		case "Status":
			return &scheme.Status{}, nil
		case "PartialObjectMetadata":
			return &scheme.PartialObjectMetadata{}, nil
		case "PartialObjectMetadataList":
			return &scheme.PartialObjectMetadataList{}, nil
		}
	}
	if m := s.reg.lookup(gvk); m != nil {
		if m.byName["items"] != nil && m.byName["items"].repeated && m.byName["metadata"] != nil && m.byName["metadata"].typ == TypeListMeta {
			return &scheme.UnstructuredList{Object: map[string]any{}}, nil
		}
		return &scheme.Unstructured{Object: map[string]any{}}, nil
	}
	return nil, &scheme.NotRegisteredError{GVK: gvk}
}

// decodeObject reads a message (no envelope) into obj, replacing its contents.
func (s *Serializer) decodeObject(raw []byte, gvk scheme.GroupVersionKind, obj any) error {
	switch o := obj.(type) {
	case *scheme.Status:
		*o = scheme.Status{}
		return decodeStatus(raw, o)
	case *scheme.PartialObjectMetadata:
		*o = scheme.PartialObjectMetadata{}
		return decodePartialObjectMetadata(raw, o)
	case *scheme.PartialObjectMetadataList:
		*o = scheme.PartialObjectMetadataList{}
		return decodePartialObjectMetadataList(raw, o)
	case Unmarshaler:
		return o.Unmarshal(raw)
	case proto.Message:
		return proto.Unmarshal(raw, o)
	case *scheme.Unstructured:
		m := s.reg.lookup(gvk)
		if m == nil {
			return &NotProtobufError{GVK: gvk, Type: reflect.TypeOf(obj)}
		}
		out, err := decodeMap(raw, m)
		if err != nil {
			return err
		}
		o.Object = out
		return nil
	case *scheme.UnstructuredList:
		return s.decodeUnstructuredList(raw, gvk, o)
	}
	m := s.reg.lookup(gvk)
	rv := reflect.ValueOf(obj)
	if m == nil || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &NotProtobufError{GVK: gvk, Type: reflect.TypeOf(obj)}
	}
	p, err := planFor(rv.Type().Elem(), m)
	if err != nil {
		return &NotProtobufError{GVK: gvk, Type: reflect.TypeOf(obj), Err: err}
	}
	rv.Elem().Set(reflect.Zero(rv.Type().Elem()))
	return decodeStruct(raw, rv.Elem(), p, m.name, 0)
}

func (s *Serializer) decodeUnstructuredList(raw []byte, gvk scheme.GroupVersionKind, o *scheme.UnstructuredList) error {
	m := s.reg.lookup(gvk)
	if m == nil || m.byName["items"] == nil || m.byName["items"].msg == nil {
		return &NotProtobufError{GVK: gvk, Type: reflect.TypeOf(o)}
	}
	out, err := decodeMap(raw, m)
	if err != nil {
		return err
	}
	items, _ := out["items"].([]any)
	delete(out, "items")
	o.Object = out
	o.Items = make([]scheme.Unstructured, 0, len(items))
	itemGVK := gvk
	itemGVK.Kind = trimList(gvk.Kind)
	for _, it := range items {
		u := scheme.Unstructured{Object: it.(map[string]any)}
		u.SetGroupVersionKind(itemGVK)
		o.Items = append(o.Items, u)
	}
	return nil
}

func trimList(kind string) string {
	if len(kind) > 4 && kind[len(kind)-4:] == "List" {
		return kind[:len(kind)-4]
	}
	return kind
}

// SupportsTarget reports whether a conversion target has a protobuf encoding: meta/v1
// Table has none, as kube-apiserver's AllowsMediaTypeTransform rules;
// PartialObjectMetadata and PartialObjectMetadataList have.
func (s *Serializer) SupportsTarget(as string) bool { return as != codec.AsTable }

// Supports reports whether v, of kind gvk, has a protobuf encoding, without encoding
// it: the REST layer can pick JSON up front for a watch or list whose client accepts
// both. For unstructured values it checks the kind only, not the fields.
func (s *Serializer) Supports(gvk scheme.GroupVersionKind, v any) bool {
	switch v.(type) {
	case *scheme.Status, *scheme.PartialObjectMetadata, *scheme.PartialObjectMetadataList, Marshaler, proto.Message:
		return true
	}
	m := s.reg.lookup(gvk)
	if m == nil {
		return false
	}
	switch v.(type) {
	case *scheme.Unstructured, *scheme.UnstructuredList:
		return true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		return false
	}
	_, err := planFor(rv.Type().Elem(), m)
	return err == nil
}
