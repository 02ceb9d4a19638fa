package codec

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"

	"github.com/apikit-dev/apikit/scheme"
)

// Serializer decodes and encodes scheme objects in one media type. JSON and YAML
// implement it here, protobuf and CBOR in codec/protobuf and codec/cbor; callers pick
// one through [Codecs]. A serializer describes what else sets its media type apart
// through optional interfaces: [EventFramer] when it can carry a watch,
// [KindSupporter] when it has an encoding for only some kinds, [TargetSupporter] when
// it cannot encode every "as" conversion target, [ListStreamer] when it can write a
// list item by item. So a new media type is one new
// Serializer, registered in the list its server is given.
type Serializer interface {
	// MediaType is the essence this serializer reads and writes ("application/json").
	MediaType() string
	// Decode reads one object. apiVersion and kind come from the document (of a
	// repeated key, the last value, as apimachinery reads them); missing parts are
	// filled from defaults (may be nil) and from into's registered kind.
	// The object is into when given and of that kind (an *Unstructured or
	// *UnstructuredList into accepts any kind), otherwise a new object the scheme
	// creates. Unknown and duplicate fields are returned in Result.Issues and do not
	// fail the decode.
	Decode(data []byte, defaults *scheme.GroupVersionKind, into scheme.Kinded) (Result, error)
	// Encode writes obj, with apiVersion and kind as set on it, followed by a newline
	// for JSON like apimachinery.
	Encode(w io.Writer, obj scheme.Kinded) error
}

// Result is what a decode produced: the object (with apiVersion and kind set), its
// kind, and any unknown or duplicate fields found on the way.
type Result struct {
	Object scheme.Kinded
	GVK    scheme.GroupVersionKind
	Issues FieldIssues
}

// JSONSerializer is the application/json Serializer of a scheme.
type JSONSerializer struct {
	scheme *scheme.Scheme
}

var _ EventFramer = (*JSONSerializer)(nil)

// NewJSON returns the JSON serializer of a scheme.
func NewJSON(s *scheme.Scheme) *JSONSerializer { return &JSONSerializer{scheme: s} }

// MediaType returns application/json.
func (s *JSONSerializer) MediaType() string { return MediaTypeJSON }

// Decode reads a JSON object; see [Serializer].
func (s *JSONSerializer) Decode(data []byte, defaults *scheme.GroupVersionKind, into scheme.Kinded) (Result, error) {
	apiVersion, kind, err := peekTypeMeta(data, false)
	if err != nil {
		return Result{}, err
	}
	res, err := s.decodeAs(data, apiVersion, kind, defaults, into)
	if err != nil || mayRepeatTypeMeta(res.Issues) {
		// The scan stopped at the first apiVersion and kind; apimachinery reads the
		// document's kind with encoding/json, where a repeated key's last value wins, as
		// it does for every other field. Only a decode that failed, or that found
		// apiVersion or kind twice, pays for the scan of every top-level key.
		lastVersion, lastKind, perr := peekTypeMeta(data, true)
		if perr == nil && (lastVersion != apiVersion || lastKind != kind) {
			return s.decodeAs(data, lastVersion, lastKind, defaults, into)
		}
	}
	return res, err
}

// mayRepeatTypeMeta reports whether a decode's issues say, or may say once past the
// issues kept, that the document has apiVersion or kind twice at the top level.
func mayRepeatTypeMeta(issues FieldIssues) bool {
	if len(issues) >= maxIssues {
		return true
	}
	for _, is := range issues {
		if is.Type == DuplicateField && (is.Path == "apiVersion" || is.Path == "kind") {
			return true
		}
	}
	return false
}

// decodeAs decodes a JSON document whose apiVersion and kind were read as given.
func (s *JSONSerializer) decodeAs(data []byte, apiVersion, kind string, defaults *scheme.GroupVersionKind, into scheme.Kinded) (Result, error) {
	gv, err := scheme.ParseGroupVersion(apiVersion)
	if err != nil {
		return Result{}, err
	}
	actual := gv.WithKind(kind)
	if defaults != nil {
		actual = WithDefaults(actual, *defaults)
	}
	return DecodeObject(s.scheme, actual, into,
		func(obj any) (FieldIssues, error) { return Unmarshal(data, obj) },
		func() string { return excerpt(data) })
}

// DecodeObject is the part of Decode every serializer shares once it has read a
// document's kind (defaults applied): it settles what the document decodes into, the
// way apimachinery does, and unmarshals it there. An *Unstructured or
// *UnstructuredList into takes any kind; a registered Go type takes its own kind (which
// fills what the document left out, preferring the document's group version) and is
// replaced by a new object when the document names another; an unregistered Go type
// is decoded into as it is; without into the scheme creates the object. unmarshal
// decodes the document into a pointer, reporting unknown and duplicate fields;
// excerpt renders the document for a missing kind or version message and is called
// only then.
func DecodeObject(s *scheme.Scheme, actual scheme.GroupVersionKind, into scheme.Kinded, unmarshal func(obj any) (FieldIssues, error), excerpt func() string) (Result, error) {
	var obj scheme.Kinded
	switch into.(type) {
	case nil:
	case *scheme.Unstructured, *scheme.UnstructuredList:
		obj = into
	default:
		kinds, err := s.ObjectKinds(into)
		var nre *scheme.NotRegisteredError
		switch {
		case errors.As(err, &nre):
			// An unregistered Go type is decoded into as is, like apimachinery does.
			issues, err := unmarshal(into)
			if err == nil && !actual.Empty() {
				into.GetObjectKind().SetGroupVersionKind(actual)
			}
			return Result{Object: into, GVK: actual, Issues: issues}, err
		case err != nil:
			return Result{}, err
		}
		actual = WithDefaults(actual, preferredKind(kinds, actual))
		if slices.Contains(kinds, actual) {
			obj = into
		}
	}
	if actual.Kind == "" {
		return Result{GVK: actual}, &MissingKindError{Data: excerpt()}
	}
	if actual.Version == "" {
		return Result{GVK: actual}, &MissingVersionError{Data: excerpt()}
	}
	if obj == nil {
		var err error
		if obj, err = s.New(actual); err != nil {
			return Result{GVK: actual}, err
		}
	}
	issues, err := unmarshal(obj)
	if err != nil {
		return Result{GVK: actual, Issues: issues}, &ObjectError{GVK: actual, Err: err}
	}
	obj.GetObjectKind().SetGroupVersionKind(actual)
	return Result{Object: obj, GVK: actual, Issues: issues}, nil
}

// preferredKind picks, among the kinds of a Go type, the one in the document's group
// version, else the first.
func preferredKind(kinds []scheme.GroupVersionKind, actual scheme.GroupVersionKind) scheme.GroupVersionKind {
	for _, k := range kinds {
		if k.Group == actual.Group && k.Version == actual.Version {
			return k
		}
	}
	return kinds[0]
}

// WithDefaults fills what a document left out of its kind, as apimachinery does: the
// kind, and group and version together when both are missing (or the version alone
// when the group matches). Every serializer defaults a document's kind this way.
func WithDefaults(actual, def scheme.GroupVersionKind) scheme.GroupVersionKind {
	if actual.Kind == "" {
		actual.Kind = def.Kind
	}
	if actual.Version == "" && actual.Group == "" {
		actual.Group, actual.Version = def.Group, def.Version
	}
	if actual.Version == "" && actual.Group == def.Group {
		actual.Version = def.Version
	}
	return actual
}

// peekTypeMeta reads the top-level apiVersion and kind strings of a JSON object,
// skipping over everything else without building it. It stops once it has both unless
// all is set; then it reads every top-level key, so that of a repeated key the last
// value is returned.
func peekTypeMeta(data []byte, all bool) (apiVersion, kind string, err error) {
	d := decodeState{data: data}
	switch d.peek() {
	case '{':
	case 0:
		if d.pos >= len(d.data) {
			return "", "", d.syntaxError("unexpected end of JSON input")
		}
		fallthrough
	default:
		return "", "", d.mismatch(reflect.TypeFor[scheme.TypeMeta]())
	}
	empty, err := d.objectStart()
	var tm TypeMetaFields
	for err == nil && !empty && (all || !tm.Complete()) {
		var kb []byte
		if kb, err = d.objectKey(); err != nil {
			break
		}
		target := tm.Target(kb)
		if target == nil {
			err = d.skipValue()
		} else {
			d.pushKey(string(kb))
			err = decodeString(&d, reflect.ValueOf(target).Elem())
			d.pop()
		}
		if err == nil {
			empty, err = d.objectNext()
		}
	}
	return tm.APIVersion, tm.Kind, err
}

// TypeMetaFields collects a document's top-level apiVersion and kind while a format's
// scanner walks its keys, so that every serializer reads them by the same rule and
// stops scanning once it has both.
type TypeMetaFields struct {
	APIVersion, Kind      string
	haveVersion, haveKind bool
}

// Target returns where the value of key goes, or nil for a key other than apiVersion
// and kind.
func (f *TypeMetaFields) Target(key []byte) *string {
	switch string(key) {
	case "apiVersion":
		f.haveVersion = true
		return &f.APIVersion
	case "kind":
		f.haveKind = true
		return &f.Kind
	}
	return nil
}

// Complete reports whether both apiVersion and kind have been seen.
func (f *TypeMetaFields) Complete() bool { return f.haveVersion && f.haveKind }

// Encode writes obj as JSON and a newline, in one Write (see WriteAppended),
// byte-identical to apimachinery's output.
func (s *JSONSerializer) Encode(w io.Writer, obj scheme.Kinded) error {
	return WriteAppended(w, obj, func(b []byte) ([]byte, error) {
		b, err := marshalObject(obj, b)
		return append(b, '\n'), err
	})
}

// StreamContentType returns application/json: a JSON watch is a sequence of
// documents, one per line.
func (s *JSONSerializer) StreamContentType() string { return MediaTypeJSON }

// AppendEvent appends one watch event as a newline-terminated {"type":T,"object":O}
// document, as apimachinery writes a metav1.WatchEvent; object is an encoded object
// (its trailing newline dropped).
func (s *JSONSerializer) AppendEvent(dst []byte, eventType string, object []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = strconv.AppendQuote(dst, eventType)
	dst = append(dst, `,"object":`...)
	dst = append(dst, bytes.TrimRight(object, "\n")...)
	return append(dst, "}\n"...)
}

// marshalObject appends the compact JSON of obj to b.
func marshalObject(obj scheme.Kinded, b []byte) ([]byte, error) {
	switch o := obj.(type) {
	case *scheme.Unstructured:
		return AppendJSON(b, o.Object)
	case *scheme.UnstructuredList:
		return AppendJSON(b, o.UnstructuredContent())
	}
	return AppendJSON(b, obj)
}

// YAMLSerializer is the application/yaml Serializer of a scheme: YAML is converted to
// JSON and handled by the JSON serializer, so defaults, strictness and field paths
// are the same; duplicate YAML keys are reported too.
type YAMLSerializer struct {
	json *JSONSerializer
}

// NewYAML returns the YAML serializer of a scheme.
func NewYAML(s *scheme.Scheme) *YAMLSerializer { return &YAMLSerializer{json: NewJSON(s)} }

// MediaType returns application/yaml.
func (s *YAMLSerializer) MediaType() string { return MediaTypeYAML }

var _ LimitedDecoder = (*YAMLSerializer)(nil)

// LimitedDecoder is a Serializer whose documents can stand for more than their own
// size (YAML's aliases repeat what they name): DecodeWithin decodes as Decode does,
// refusing with a [*TooLargeError] a document that would decode to more than limit
// bytes of JSON before it is decoded further. A server passes its request body limit.
type LimitedDecoder interface {
	DecodeWithin(data []byte, limit int64, defaults *scheme.GroupVersionKind, into scheme.Kinded) (Result, error)
}

// Decode reads one YAML document within [DefaultYAMLJSONLimit]; see [Serializer].
func (s *YAMLSerializer) Decode(data []byte, defaults *scheme.GroupVersionKind, into scheme.Kinded) (Result, error) {
	return s.DecodeWithin(data, DefaultYAMLJSONLimit, defaults, into)
}

// DecodeWithin reads one YAML document, parsed once, whose JSON is at most limit
// bytes; see [LimitedDecoder].
func (s *YAMLSerializer) DecodeWithin(data []byte, limit int64, defaults *scheme.GroupVersionKind, into scheme.Kinded) (Result, error) {
	j, issues, err := YAMLToJSONWithin(data, limit)
	if err != nil {
		return Result{}, err
	}
	res, err := s.json.Decode(j, defaults, into)
	if len(issues) > 0 {
		res.Issues = append(issues, res.Issues...)
	}
	return res, err
}

// Encode writes obj as YAML (JSON converted to YAML, like kube-apiserver), within a
// bounded multiple of its JSON's size (see [JSONToYAML]).
func (s *YAMLSerializer) Encode(w io.Writer, obj scheme.Kinded) error {
	j, err := marshalObject(obj, nil)
	if err != nil {
		return err
	}
	y, err := appendYAML(nil, j)
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}

// Codecs holds the serializers of a scheme by media type, in order of preference.
type Codecs struct {
	list []Serializer
}

// NewCodecs returns JSON and YAML serializers for s, followed by any extra ones
// (Protobuf, CBOR, ...). A later serializer for an existing media type replaces it.
func NewCodecs(s *scheme.Scheme, extra ...Serializer) *Codecs {
	return CodecsOf(append([]Serializer{NewJSON(s), NewYAML(s)}, extra...)...)
}

// CodecsOf returns exactly the given serializers, in that order of preference. A later
// serializer for an existing media type replaces it.
func CodecsOf(serializers ...Serializer) *Codecs {
	c := &Codecs{}
	for _, sr := range serializers {
		replaced := false
		for i, have := range c.list {
			if have.MediaType() == sr.MediaType() {
				c.list[i], replaced = sr, true
			}
		}
		if !replaced {
			c.list = append(c.list, sr)
		}
	}
	return c
}

// MediaTypes lists the supported media types in order of preference, ready to be the
// offered list of [Negotiate].
func (c *Codecs) MediaTypes() []string {
	out := make([]string, len(c.list))
	for i, s := range c.list {
		out[i] = s.MediaType()
	}
	return out
}

// ForMediaType returns the serializer of a Content-Type value such as
// "application/json; charset=utf-8"; parameters are ignored.
func (c *Codecs) ForMediaType(contentType string) (Serializer, bool) {
	m, err := ParseMediaType(contentType)
	if err != nil {
		return nil, false
	}
	for _, s := range c.list {
		if s.MediaType() == m.Essence() {
			return s, true
		}
	}
	return nil, false
}
