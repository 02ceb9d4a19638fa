package cbor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	fx "github.com/fxamacker/cbor/v2"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// Serializer is the application/cbor [codec.Serializer] of a scheme, reading and
// writing the bytes k8s.io/apimachinery's CBOR serializer does.
type Serializer struct {
	scheme *scheme.Scheme
}

var _ interface {
	codec.Serializer
	codec.EventFramer
} = (*Serializer)(nil)

// New returns the CBOR serializer of a scheme, ready to be passed to codec.NewCodecs.
func New(s *scheme.Scheme) *Serializer { return &Serializer{scheme: s} }

// MediaType returns application/cbor.
func (s *Serializer) MediaType() string { return codec.MediaTypeCBOR }

// Encode writes the self-described CBOR tag and obj. A *bytes.Buffer is encoded into
// directly and left as it was on error; any other writer gets one Write, of nothing on
// error (see codec.WriteAppended). Unstructured objects are written as their maps, an
// UnstructuredList with its items under "items".
func (s *Serializer) Encode(w io.Writer, obj scheme.Kinded) error {
	v := content(obj)
	if typedPointee(v) != nil {
		return codec.WriteAppended(w, obj, func(b []byte) ([]byte, error) {
			out, err := appendTyped(append(b, selfDescribed...), v)
			if err != nil {
				return nil, fmt.Errorf("encoding %s as CBOR: %w", kindOf(obj), err)
			}
			return out, nil
		})
	}
	if bb, ok := w.(*bytes.Buffer); ok {
		// Straight into the caller's buffer, like apimachinery: no copy of the output,
		// and the room fxamacker sorts map pairs in (as much again as the map's
		// encoding) stays in the buffer for its next use instead of being grown and
		// dropped on every encode.
		n := bb.Len()
		bb.Write(selfDescribed)
		if err := enc.MarshalToBuffer(v, bb); err != nil {
			bb.Truncate(n)
			return fmt.Errorf("encoding %s as CBOR: %w", kindOf(obj), err)
		}
		return nil
	}
	return codec.WriteAppended(w, obj, func(b []byte) ([]byte, error) {
		buf := bytes.NewBuffer(append(b, selfDescribed...))
		if err := enc.MarshalToBuffer(v, buf); err != nil {
			return nil, fmt.Errorf("encoding %s as CBOR: %w", kindOf(obj), err)
		}
		return buf.Bytes(), nil
	})
}

// content is the value encoded for obj.
func content(obj scheme.Kinded) any {
	switch o := obj.(type) {
	case *scheme.Unstructured:
		return o.Object
	case *scheme.UnstructuredList:
		return o.UnstructuredContent()
	}
	return obj
}

func kindOf(obj scheme.Kinded) string {
	if obj == nil {
		return "<nil>"
	}
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	return fmt.Sprintf("%T", obj)
}

// Marshal returns the CBOR encoding of any value (with the self-described tag), with the
// options objects are encoded with.
func Marshal(v any) ([]byte, error) {
	if typedPointee(v) != nil {
		return appendTyped(append([]byte(nil), selfDescribed...), v)
	}
	buf := getBuffer()
	defer putBuffer(buf)
	buf.Write(selfDescribed)
	if err := enc.MarshalToBuffer(v, buf); err != nil {
		return nil, err
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// Unmarshal decodes one CBOR data item (with or without the self-described tag) into
// v, a non-nil pointer, with Kubernetes' decoding rules: into any, integers are int64
// and other numbers float64, maps are map[string]any and strings (text or byte)
// string. Unknown struct fields and duplicate keys do not fail the decode; they are
// returned as issues with their paths, like codec.Unmarshal's. Of a repeated struct
// field the first value is kept, of a repeated map key the last.
func Unmarshal(data []byte, v any) (codec.FieldIssues, error) {
	if unmarshalTyped(data, v) {
		return nil, nil
	}
	return unmarshalFx(data, v)
}

// unmarshalFx is Unmarshal through fxamacker, the reference the typed decoder matches
// and the path of every document it leaves.
func unmarshalFx(data []byte, v any) (codec.FieldIssues, error) {
	err := strictDec.Unmarshal(data, v)
	var unknown *fx.UnknownFieldError
	var dup *fx.DupMapKeyError
	if !errors.As(err, &unknown) && !errors.As(err, &dup) {
		return nil, wrapErr(err)
	}
	// Decoding the same input again over the partly filled value gives the value one
	// lax decode would: every field it sets is set again to the same thing.
	if err := laxDec.Unmarshal(data, v); err != nil {
		return nil, wrapErr(err)
	}
	return fieldIssues(data, reflect.TypeOf(v))
}

// Unmarshal decodes one CBOR data item into v, like the function Unmarshal: what the
// REST layer reads an application/apply-patch+cbor body with.
func (s *Serializer) Unmarshal(data []byte, v any) (codec.FieldIssues, error) {
	return Unmarshal(data, v)
}

// wrapErr names the format of decode errors that do not already.
func wrapErr(err error) error {
	if err == nil || strings.HasPrefix(err.Error(), "cbor: ") {
		return err
	}
	return fmt.Errorf("cbor: %w", err)
}

// Decode reads one CBOR object; see [codec.Serializer]. The self-described tag is
// accepted but not required.
func (s *Serializer) Decode(data []byte, defaults *scheme.GroupVersionKind, into scheme.Kinded) (codec.Result, error) {
	switch o := into.(type) {
	case *scheme.Unstructured, *scheme.UnstructuredList:
		// The kind is read from the decoded map: no scan ahead for it.
		issues, err := decodeUnstructured(data, o)
		if err != nil {
			actual, terr := typeMetaOf(data, defaults)
			if terr != nil {
				return codec.Result{}, terr
			}
			return codec.Result{GVK: actual, Issues: issues}, err
		}
		if err := checkTypeMeta(ownFields(o), data, defaults); err != nil {
			return codec.Result{Issues: issues}, err
		}
		got := o.GetObjectKind().GroupVersionKind()
		if got.Kind == "" {
			return codec.Result{GVK: got, Issues: issues}, &codec.MissingKindError{Data: diagnose(data)}
		}
		if got.Version == "" {
			return codec.Result{GVK: got, Issues: issues}, &codec.MissingVersionError{Data: diagnose(data)}
		}
		return codec.Result{Object: o, GVK: got, Issues: issues}, nil
	}
	actual, err := typeMetaOf(data, defaults)
	if err != nil {
		return codec.Result{}, err
	}
	return codec.DecodeObject(s.scheme, actual, into,
		func(obj any) (codec.FieldIssues, error) {
			switch o := obj.(type) {
			case *scheme.Unstructured:
				return decodeUnstructured(data, o)
			case *scheme.UnstructuredList:
				return decodeUnstructured(data, o)
			}
			return Unmarshal(data, obj)
		},
		func() string { return diagnose(data) })
}

// typeMetaOf reads the document's apiVersion and kind, filled in from defaults.
func typeMetaOf(data []byte, defaults *scheme.GroupVersionKind) (scheme.GroupVersionKind, error) {
	apiVersion, kind, err := peekTypeMeta(data)
	if err != nil {
		return scheme.GroupVersionKind{}, err
	}
	gv, err := scheme.ParseGroupVersion(apiVersion)
	if err != nil {
		return scheme.GroupVersionKind{}, err
	}
	actual := gv.WithKind(kind)
	if defaults != nil {
		actual = codec.WithDefaults(actual, *defaults)
	}
	return actual, nil
}

// checkTypeMeta fails a decoded map's apiVersion and kind where the scan ahead that
// typed objects get (typeMetaOf) would have failed them: a value that is not a string
// or null, or an apiVersion that is no group/version.
func checkTypeMeta(m map[string]any, data []byte, defaults *scheme.GroupVersionKind) error {
	for _, k := range [...]string{"apiVersion", "kind"} {
		switch v := m[k].(type) {
		case nil:
		case string:
			if k == "apiVersion" {
				if _, err := scheme.ParseGroupVersion(v); err != nil {
					return err
				}
			}
		default:
			if _, err := typeMetaOf(data, defaults); err != nil {
				return err
			}
			return fmt.Errorf("unable to determine group/version/kind: %s is not a string", k)
		}
	}
	return nil
}

// ownFields returns the top-level fields of an Unstructured or UnstructuredList (for a
// list, without its items).
func ownFields(o scheme.Kinded) map[string]any {
	switch o := o.(type) {
	case *scheme.Unstructured:
		return o.Object
	case *scheme.UnstructuredList:
		return o.Object
	}
	return nil
}

// decodeUnstructured decodes a document into an Unstructured or UnstructuredList the
// way apimachinery does: a list's items must be an array (or null) of maps, and items
// that name neither apiVersion nor kind take the list's apiVersion and its kind
// without the "List" suffix.
func decodeUnstructured(data []byte, into scheme.Kinded) (codec.FieldIssues, error) {
	var content map[string]any
	issues, err := Unmarshal(data, &content)
	if err != nil {
		return issues, err
	}
	switch u := into.(type) {
	case *scheme.Unstructured:
		u.Object = content
	case *scheme.UnstructuredList:
		var items []any
		if raw, present := content["items"]; present && raw != nil {
			var ok bool
			if items, ok = raw.([]any); !ok {
				return issues, errors.New("items field of UnstructuredList must be encoded as an array or null if present")
			}
		}
		apiVersion, _ := content["apiVersion"].(string)
		kind, _ := content["kind"].(string)
		kind = strings.TrimSuffix(kind, "List")
		list := make([]scheme.Unstructured, len(items))
		for i, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				return issues, errors.New("elements of the items field of UnstructuredList must be encoded as a map")
			}
			iv, _ := m["apiVersion"].(string)
			ik, _ := m["kind"].(string)
			if iv == "" && ik == "" {
				iv, ik = apiVersion, kind
			}
			m["apiVersion"], m["kind"] = iv, ik
			if ik == "" {
				return issues, &codec.MissingKindError{Data: diagnose(data)}
			}
			if iv == "" {
				return issues, &codec.MissingVersionError{Data: diagnose(data)}
			}
			list[i].Object = m
		}
		delete(content, "items")
		u.Object, u.Items = content, list
	}
	return issues, nil
}

// peekTypeMeta reads the top-level apiVersion and kind strings of a CBOR map without
// decoding the rest.
func peekTypeMeta(data []byte) (apiVersion, kind string, err error) {
	fail := func(err error) (string, string, error) {
		if err == errIncomplete {
			err = errors.New("cbor: unexpected EOF")
		}
		return "", "", fmt.Errorf("unable to determine group/version/kind: %w", err)
	}
	s := scanner{data: data}
	s.skipSelfDescribed()
	count, ok, err := s.container(majorMap)
	if err != nil {
		return fail(err)
	}
	if !ok {
		return fail(fmt.Errorf("cbor: cannot unmarshal %s into Go value of type TypeMeta", typeName(data, s.pos)))
	}
	var tm codec.TypeMetaFields
	for i := 0; s.more(count, i) && !tm.Complete(); i++ {
		kb, err := s.str(nil)
		if err == errNotString {
			err = s.skip()
			if err == nil {
				err = s.skip()
			}
			if err != nil {
				return fail(err)
			}
			continue
		}
		if err != nil {
			return fail(err)
		}
		target := tm.Target(kb)
		if target == nil {
			if err := s.skip(); err != nil {
				return fail(err)
			}
			continue
		}
		if s.pos < len(s.data) && s.data[s.pos] == 0xf6 { // null leaves the field empty
			s.pos++
			continue
		}
		vb, err := s.str(nil)
		if err == errNotString {
			return fail(fmt.Errorf("cbor: cannot unmarshal %s into Go struct field TypeMeta.%s of type string", typeName(data, s.pos), kb))
		}
		if err != nil {
			return fail(err)
		}
		*target = string(vb)
	}
	return tm.APIVersion, tm.Kind, nil
}

// typeName names the CBOR type of the item at pos, for error messages.
func typeName(data []byte, pos int) string {
	if pos >= len(data) {
		return "nothing"
	}
	switch data[pos] >> 5 {
	case majorUint:
		return "positive integer"
	case majorNegInt:
		return "negative integer"
	case majorBytes:
		return "byte string"
	case majorText:
		return "UTF-8 text string"
	case majorArray:
		return "array"
	case majorMap:
		return "map"
	case majorTag:
		return "tag"
	}
	return "primitives"
}

// diagnose renders a document for a missing kind or version message, in CBOR
// diagnostic notation like apimachinery, shortened.
func diagnose(data []byte) string {
	d, err := fx.Diagnose(data)
	if err != nil {
		d = fmt.Sprintf("%x", data)
	}
	const limit = 256
	if len(d) > limit {
		d = d[:limit] + "..."
	}
	return d
}
