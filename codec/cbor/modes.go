package cbor

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"sync"

	fx "github.com/fxamacker/cbor/v2"

	"github.com/apikit-dev/apikit/codec"
)

// Decoding limits. They are Kubernetes' values (k8s.io/apimachinery's CBOR decode
// mode): nesting beyond MaxNestedLevels, arrays beyond MaxArrayElements and maps
// beyond MaxMapPairs are errors before anything is allocated for them. Every element
// takes at least one input byte and input is checked to be well formed before it is
// decoded, so what a decode allocates is bounded by the input's length.
const (
	maxNestedLevels  = 10000
	maxArrayElements = 2147483647
	maxMapPairs      = 2097152
)

// selfDescribed is the self-described CBOR tag that prefixes every encoded object,
// the magic number by which Kubernetes recognises CBOR.
var selfDescribed = []byte{0xd9, 0xd9, 0xf7}

// encOptions are the options of Kubernetes' CBOR encode mode: deterministic
// bytewise-lexical key order, shortest float forms, no NaN or infinity, RFC 3339
// times without tags, definite lengths only, nil slices and maps as null, omitempty
// like encoding/json, Go strings and field names as byte strings, and json tags for
// field names. One deliberate difference: TextMarshaler is not used, so that types
// with MarshalJSON and no MarshalCBOR (scheme.FieldsV1) are transcoded from their
// JSON like the MarshalCBOR methods of their meta/v1 counterparts do, giving kube's
// bytes. scheme.Time has its own MarshalCBOR/UnmarshalCBOR (an RFC 3339 byte
// string, as meta/v1 Time.MarshalCBOR writes it), which take precedence.
func encOptions() fx.EncOptions {
	return fx.EncOptions{
		Sort:                 fx.SortBytewiseLexical,
		ShortestFloat:        fx.ShortestFloat16,
		NaNConvert:           fx.NaNConvertReject,
		InfConvert:           fx.InfConvertReject,
		BigIntConvert:        fx.BigIntConvertReject,
		Time:                 fx.TimeRFC3339Nano,
		TimeTag:              fx.EncTagNone,
		IndefLength:          fx.IndefLengthForbidden,
		NilContainers:        fx.NilContainerAsNull,
		TagsMd:               fx.TagsAllowed,
		OmitEmpty:            fx.OmitEmptyGoValue,
		String:               fx.StringToByteString,
		FieldName:            fx.FieldNameToByteString,
		ByteArray:            fx.ByteArrayToArray,
		ByteSliceLaterFormat: fx.ByteSliceLaterFormatBase64,
		BinaryMarshaler:      fx.BinaryMarshalerNone,
		TextMarshaler:        fx.TextMarshalerNone,
	}
}

// decOptions are the options of Kubernetes' CBOR decode mode: integers into any as
// int64 (failing beyond int64), floats as float64, NaN and infinity rejected, text
// strings must be valid UTF-8, byte strings decode into strings, map keys and field
// names match case-sensitively (byte-string field names allowed), only the simple
// values false, true and null, and the limits above. strict adds duplicate-key and
// unknown-field errors, which the serializer turns into field issues.
func decOptions(strict bool) fx.DecOptions {
	var simple []func(*fx.SimpleValueRegistry) error
	for sv := 0; sv <= 255; sv++ {
		switch sv {
		case 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31: // false, true, null, reserved
		default:
			simple = append(simple, fx.WithRejectedSimpleValue(fx.SimpleValue(sv)))
		}
	}
	registry, err := fx.NewSimpleValueRegistryFromDefaults(simple...)
	if err != nil {
		panic(err)
	}
	o := fx.DecOptions{
		DupMapKey:                fx.DupMapKeyQuiet,
		TimeTag:                  fx.DecTagOptional,
		MaxNestedLevels:          maxNestedLevels,
		MaxArrayElements:         maxArrayElements,
		MaxMapPairs:              maxMapPairs,
		IndefLength:              fx.IndefLengthAllowed,
		TagsMd:                   fx.TagsAllowed,
		IntDec:                   fx.IntDecConvertSignedOrFail,
		MapKeyByteString:         fx.MapKeyByteStringForbidden,
		DefaultMapType:           reflect.TypeFor[map[string]any](),
		UTF8:                     fx.UTF8RejectInvalid,
		FieldNameMatching:        fx.FieldNameMatchingCaseSensitive,
		DefaultByteStringType:    reflect.TypeFor[string](),
		ByteStringToString:       fx.ByteStringToStringAllowedWithExpectedLaterEncoding,
		FieldNameByteString:      fx.FieldNameByteStringAllowed,
		UnrecognizedTagToAny:     fx.UnrecognizedTagContentToAny,
		TimeTagToAny:             fx.TimeTagToRFC3339Nano,
		ByteStringToTime:         fx.ByteStringToTimeAllowed,
		NaN:                      fx.NaNDecodeForbidden,
		Inf:                      fx.InfDecodeForbidden,
		ByteStringExpectedFormat: fx.ByteStringExpectedBase64,
		BignumTag:                fx.BignumTagForbidden,
		SimpleValues:             registry,
		BinaryUnmarshaler:        fx.BinaryUnmarshalerNone,
		TextUnmarshaler:          fx.TextUnmarshalerTextString,
	}
	if strict {
		o.DupMapKey = fx.DupMapKeyEnforcedAPF
		o.ExtraReturnErrors = fx.ExtraDecErrorUnknownField
	}
	return o
}

var (
	// plainEnc is the encode mode without JSON transcoding, which the transcoder uses.
	plainEnc = mustEncMode(encOptions())
	// enc is the encode mode objects are written with.
	enc = func() fx.UserBufferEncMode {
		o := encOptions()
		o.JSONMarshalerTranscoder = transcoderFunc(transcodeFromJSON)
		return mustEncMode(o)
	}()
	// plainDec is the lax decode mode without JSON transcoding, which the transcoder uses.
	plainDec = mustDecMode(decOptions(false))
	// strictDec fails on the first duplicate key or unknown field; it is the fast path.
	strictDec = mustDecMode(withTranscoder(decOptions(true)))
	// laxDec decodes anyway (first struct field and last map key win); it runs after
	// strictDec failed for a duplicate or unknown field.
	laxDec = mustDecMode(withTranscoder(decOptions(false)))
)

// withTranscoder lets types with UnmarshalJSON (scheme.Time, scheme.FieldsV1) decode
// from CBOR through JSON, as Kubernetes' decode mode does.
func withTranscoder(o fx.DecOptions) fx.DecOptions {
	o.JSONUnmarshalerTranscoder = transcoderFunc(transcodeToJSON)
	return o
}

func mustEncMode(o fx.EncOptions) fx.UserBufferEncMode {
	m, err := o.UserBufferEncMode()
	if err != nil {
		panic(err)
	}
	return m
}

func mustDecMode(o fx.DecOptions) fx.DecMode {
	m, err := o.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}

// transcoderFunc adapts a function to fxamacker's Transcoder.
type transcoderFunc func(dst io.Writer, src io.Reader) error

// Transcode calls f.
func (f transcoderFunc) Transcode(dst io.Writer, src io.Reader) error { return f(dst, src) }

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer { return bufferPool.Get().(*bytes.Buffer) }

// maxPooledBuffer bounds the buffers kept for reuse, so one huge object does not pin
// its memory.
const maxPooledBuffer = 256 << 10

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuffer {
		b.Reset()
		bufferPool.Put(b)
	}
}

// transcodeFromJSON turns the output of a MarshalJSON method into CBOR the way
// Kubernetes does: the JSON is decoded with integers as int64 and re-encoded. A plain
// string (a timestamp) and null take a direct path.
func transcodeFromJSON(dst io.Writer, src io.Reader) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if _, err := buf.ReadFrom(src); err != nil {
		return err
	}
	j := bytes.TrimSpace(buf.Bytes())
	if string(j) == "null" {
		_, err := dst.Write([]byte{0xf6})
		return err
	}
	if s, ok := plainJSONString(j); ok {
		var hb [9]byte
		_, err := dst.Write(appendHead(hb[:0], majorBytes, uint64(len(s))))
		if err == nil {
			_, err = dst.Write(s)
		}
		return err
	}
	v, _, err := codec.DecodeAny(j)
	if err != nil {
		return err
	}
	out := getBuffer()
	defer putBuffer(out)
	if err := plainEnc.MarshalToBuffer(v, out); err != nil {
		return err
	}
	_, err = dst.Write(out.Bytes())
	return err
}

// plainJSONString returns the content of a JSON string without escapes.
func plainJSONString(j []byte) ([]byte, bool) {
	if len(j) < 2 || j[0] != '"' || j[len(j)-1] != '"' {
		return nil, false
	}
	s := j[1 : len(j)-1]
	for _, c := range s {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return nil, false
		}
	}
	return s, true
}

// transcodeToJSON turns one CBOR data item into the JSON an UnmarshalJSON method
// reads, like Kubernetes: decoded into any and encoded as encoding/json would. A
// plain string and null take a direct path.
func transcodeToJSON(dst io.Writer, src io.Reader) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if _, err := buf.ReadFrom(src); err != nil {
		return err
	}
	data := buf.Bytes()
	if len(data) == 1 && (data[0] == 0xf6 || data[0] == 0xf7) {
		_, err := dst.Write([]byte("null"))
		return err
	}
	s := scanner{data: data}
	if b, err := s.str(nil); err == nil && s.pos == len(data) && safeJSONText(b) {
		out := make([]byte, 0, len(b)+2)
		out = append(append(append(out, '"'), b...), '"')
		_, err := dst.Write(out)
		return err
	}
	var v any
	if err := plainDec.Unmarshal(data, &v); err != nil {
		return err
	}
	j, err := codec.Marshal(v)
	if err != nil {
		return fmt.Errorf("cbor: transcoding to JSON: %w", err)
	}
	_, err = dst.Write(j)
	return err
}

// safeJSONText reports whether b can be written between quotes as JSON unchanged
// (printable ASCII that encoding/json does not escape).
func safeJSONText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// appendHead appends a definite-length data item head.
func appendHead(b []byte, major byte, n uint64) []byte {
	m := major << 5
	switch {
	case n < 24:
		return append(b, m|byte(n))
	case n <= 0xff:
		return append(b, m|24, byte(n))
	case n <= 0xffff:
		return append(b, m|25, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		return append(b, m|26, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, m|27, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32), byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}
