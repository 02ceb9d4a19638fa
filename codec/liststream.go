package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/apikit-dev/apikit/scheme"
)

// ListSource is a list to be written item by item: a list object whose array field
// (a list's "items", a Table's "rows") holds one element at a time, so that a response
// of thousands of objects never exists whole, neither as objects nor as bytes.
type ListSource struct {
	// List is the object written: its kind, apiVersion and list metadata are set, and
	// Hold changes what its array holds. It is left holding nothing.
	List scheme.Kinded
	// Len is the number of elements.
	Len int
	// Hold makes List's array hold only element i, or no element (an empty, non-nil
	// array) when i is negative. It may be called more than once for the same i (the
	// protobuf encoding sizes the list before writing it) and must give the same
	// element each time.
	Hold func(i int) error
}

// EncodeEmpty returns ser's encoding of the list holding no element.
func (src ListSource) EncodeEmpty(ser Serializer) ([]byte, error) {
	var buf bytes.Buffer
	if err := src.EncodeHolding(ser, -1, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeHolding puts into buf (emptied first) ser's encoding of the list holding only
// element i, or no element when i is negative.
func (src ListSource) EncodeHolding(ser Serializer, i int, buf *bytes.Buffer) error {
	if err := src.Hold(i); err != nil {
		return err
	}
	buf.Reset()
	return ser.Encode(buf, src.List)
}

// ListStreamer is a Serializer that can write a list element by element, holding the
// encoding of one element at a time. What it writes is byte for byte what its Encode
// writes for the whole list. It fails with [ErrListNotStreamable] before writing
// anything when this list's encoding cannot be split into elements; the caller then
// encodes the whole list. An error after the first write leaves w with a partial list.
type ListStreamer interface {
	EncodeList(w io.Writer, src ListSource) error
}

// ErrListNotStreamable says a list's encoding could not be split into its elements; it
// is returned before anything is written.
var ErrListNotStreamable = errors.New("list cannot be encoded element by element")

// ArrayFraming describes how a media type writes the array of a list's elements, for
// [EncodeArrayList]: the list's encoding holds Key, then Head (the array's opening for
// n elements), the elements separated by Separator, then Close.
type ArrayFraming struct {
	// Key is what precedes the array: `"items":` in JSON, the text string "items" in
	// CBOR. It must occur once, followed by an empty array, in the empty list's encoding.
	Key []byte
	// Head appends the opening of an array of n elements to b: `[` in JSON, the major
	// type 4 head in CBOR.
	Head func(b []byte, n int) []byte
	// Separator goes between two elements, Close after the last.
	Separator, Close []byte
}

// EncodeArrayList writes src with ser, element by element, for the media types whose
// list encoding is the list's other fields around one array (JSON, CBOR). It encodes
// the list holding no element and holding each element alone, and writes the bytes of
// the first around the element taken out of each of the others, so the output is
// exactly ser.Encode's of the whole list while only one element's encoding is held.
// Each element is written with its own Write: w should buffer.
func EncodeArrayList(ser Serializer, w io.Writer, src ListSource, f ArrayFraming) error {
	whole, err := src.EncodeEmpty(ser)
	if err != nil || src.Len == 0 {
		if err == nil {
			_, err = w.Write(whole)
		}
		return err
	}
	defer func() { _ = src.Hold(-1) }()
	empty := f.Head(append([]byte(nil), f.Key...), 0)
	empty = append(empty, f.Close...)
	at := bytes.Index(whole, empty)
	if at < 0 || bytes.Index(whole[at+1:], empty) >= 0 {
		return ErrListNotStreamable
	}
	// prefix ends with Key; suffix starts with Close.
	prefix := whole[:at+len(f.Key)]
	suffix := whole[at+len(empty)-len(f.Close):]
	head1 := f.Head(nil, 1)
	var buf bytes.Buffer
	element := func(i int) ([]byte, error) {
		if err := src.EncodeHolding(ser, i, &buf); err != nil {
			return nil, err
		}
		b := buf.Bytes()
		if len(b) < len(prefix)+len(head1)+len(suffix) || !bytes.HasPrefix(b, prefix) ||
			!bytes.HasPrefix(b[len(prefix):], head1) || !bytes.HasSuffix(b, suffix) {
			return nil, fmt.Errorf("element %d: %w", i, ErrListNotStreamable)
		}
		return b[len(prefix)+len(head1) : len(b)-len(suffix)], nil
	}
	first, err := element(0)
	if err != nil {
		return err
	}
	if _, err := w.Write(f.Head(bytes.Clone(prefix), src.Len)); err != nil {
		return err
	}
	if _, err := w.Write(first); err != nil {
		return err
	}
	for i := 1; i < src.Len; i++ {
		b, err := element(i)
		if err != nil {
			return err
		}
		if len(f.Separator) > 0 {
			if _, err := w.Write(f.Separator); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err = w.Write(suffix)
	return err
}

// jsonArray is the framing of a JSON list's items.
var _ ListStreamer = (*JSONSerializer)(nil)

var jsonArray = ArrayFraming{
	Head:      func(b []byte, _ int) []byte { return append(b, '[') },
	Separator: []byte(","),
	Close:     []byte("]"),
}

// JSONArrayKey is the JSON Key of [ArrayFraming] for an array field.
func JSONArrayKey(field string) []byte { return append(AppendString(nil, field), ':') }

// EncodeList writes a list item by item; see [ListStreamer]. The array written is the
// one under "rows" for a meta.k8s.io Table, under "items" for any other list.
func (s *JSONSerializer) EncodeList(w io.Writer, src ListSource) error {
	f := jsonArray
	f.Key = JSONArrayKey(ArrayField(src.List))
	return EncodeArrayList(s, w, src, f)
}

// ArrayField is the field that holds a list's elements: "rows" for a meta.k8s.io
// Table, "items" for any other list.
func ArrayField(list scheme.Kinded) string {
	if gvk := list.GetObjectKind().GroupVersionKind(); gvk.Kind == "Table" && gvk.Group == scheme.MetaGroupVersion.Group {
		return "rows"
	}
	return "items"
}

var _ ListStreamer = (*YAMLSerializer)(nil)

// yamlArray is the framing of a YAML list's items as kube writes them: the empty
// list's key is followed by " []", a list of n items by the items, each a "- " line
// that follows the key's line, then the line of the next key.
var yamlArray = ArrayFraming{
	Head: func(b []byte, n int) []byte {
		if n == 0 {
			return append(b, " []"...)
		}
		return b
	},
	Close: []byte("\n"),
}

// EncodeList writes a list item by item; see [ListStreamer]. The array written is the
// one under "rows" for a meta.k8s.io Table, under "items" for any other list. The
// keys of a list's YAML are sorted and apiVersion comes first, so the array's key
// starts a line.
func (s *YAMLSerializer) EncodeList(w io.Writer, src ListSource) error {
	f := yamlArray
	f.Key = append([]byte("\n"+ArrayField(src.List)), ':')
	return EncodeArrayList(s, w, src, f)
}
