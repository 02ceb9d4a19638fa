package protobuf

import (
	"bytes"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Magic is the four bytes that begin every Kubernetes protobuf body: "k8s" and a zero.
var Magic = []byte("k8s\x00")

// ErrNoMagic says a body does not begin with [Magic]: it is not a Kubernetes protobuf
// message (decoders wrap it with what was found).
var ErrNoMagic = errors.New("data does not begin with the Kubernetes protobuf prefix \"k8s\\x00\"")

// Unknown is runtime.Unknown, the envelope after [Magic]: the object's apiVersion and
// kind (typeMeta=1 {apiVersion=1, kind=2}), its encoded bytes (raw=2), and the
// contentEncoding=3 and contentType=4 strings, empty for protobuf objects.
type Unknown struct {
	APIVersion      string
	Kind            string
	Raw             []byte
	ContentEncoding string
	ContentType     string
}

// AppendEnvelope appends Magic and the envelope of u, byte for byte as apimachinery's
// protobuf serializer writes it: typeMeta with both strings, raw when not nil, then
// contentEncoding and contentType, always written even when empty.
func AppendEnvelope(b []byte, u *Unknown) []byte {
	b = append(b, Magic...)
	return appendUnknown(b, u.APIVersion, u.Kind, u.Raw, u.Raw != nil, u.ContentEncoding, u.ContentType)
}

func appendUnknown(b []byte, apiVersion, kind string, raw []byte, haveRaw bool, enc, ct string) []byte {
	b, start := beginMessage(b, 1)
	b = appendString(b, 1, apiVersion)
	b = appendString(b, 2, kind)
	b = endMessage(b, start)
	if haveRaw {
		b = appendBytesField(b, 2, raw)
	}
	b = appendString(b, 3, enc)
	return appendString(b, 4, ct)
}

// appendEnvelopeHead writes Magic, typeMeta and the key of the raw field, whose body
// the caller appends and appendEnvelopeTail closes (contentEncoding and contentType
// empty). start is where the body begins.
func appendEnvelopeHead(b []byte, apiVersion, kind string) ([]byte, int) {
	b = append(b, 'k', '8', 's', 0)
	if n := 4 + len(apiVersion) + len(kind); n < 0x80 { // typeMeta with one-byte lengths
		b = append(b, 1<<3|byte(protowire.BytesType), byte(n), 1<<3|byte(protowire.BytesType), byte(len(apiVersion)))
		b = append(append(append(b, apiVersion...), 2<<3|byte(protowire.BytesType), byte(len(kind))), kind...)
	} else {
		var start int
		b, start = beginMessage(b, 1)
		b = appendString(b, 1, apiVersion)
		b = appendString(b, 2, kind)
		b = endMessage(b, start)
	}
	return beginMessage(b, 2)
}

// appendEnvelopeTail ends the raw field that began at start and appends the empty
// contentEncoding and contentType.
func appendEnvelopeTail(b []byte, start int) []byte {
	return append(endMessage(b, start), 3<<3|byte(protowire.BytesType), 0, 4<<3|byte(protowire.BytesType), 0)
}

// DecodeEnvelope checks Magic and reads the envelope that follows. Raw aliases data.
// Data without the prefix fails with an error wrapping [ErrNoMagic]; a bad envelope
// with one wrapping [ErrMalformed].
func DecodeEnvelope(data []byte) (Unknown, error) {
	var u Unknown
	switch {
	case len(data) == 0:
		return u, fmt.Errorf("%w: empty data", ErrNoMagic)
	case !bytes.HasPrefix(data, Magic):
		return u, fmt.Errorf("%w: starts with %q", ErrNoMagic, data[:min(len(data), len(Magic))])
	case len(data) == len(Magic):
		return u, fmt.Errorf("%w: empty body after the prefix", ErrMalformed)
	}
	r := reader{b: data[len(Magic):], msg: "Unknown"}
	for r.field() {
		switch r.num {
		case 1:
			if v := r.raw(); r.err == nil {
				r.check(decodeTypeMeta(v, &u))
			}
		case 2:
			u.Raw = r.raw()
		case 3:
			u.ContentEncoding = r.str()
		case 4:
			u.ContentType = r.str()
		default:
			r.skip()
		}
	}
	if r.err != nil {
		return Unknown{}, r.err
	}
	return u, nil
}

func decodeTypeMeta(data []byte, u *Unknown) error {
	// The apiVersion and kind of a meta kind, as encoders write them, need no copy.
	if len(data) >= 4 && data[0] == 1<<3|byte(protowire.BytesType) && data[1] < 0x80 {
		if k := 2 + int(data[1]); k+1 < len(data) && data[k] == 2<<3|byte(protowire.BytesType) && int(data[k+1]) == len(data)-k-2 {
			apiVersion, kind := metaString(data[2:k]), metaString(data[k+2:])
			if apiVersion != "" && kind != "" {
				u.APIVersion, u.Kind = apiVersion, kind
				return nil
			}
		}
	}
	// Else apiVersion and kind share one copy.
	r := sharedReader(data, "TypeMeta")
	r.leadingStrings(1, &u.APIVersion, &u.Kind)
	for r.field() {
		switch r.num {
		case 1:
			u.APIVersion = r.str()
		case 2:
			u.Kind = r.str()
		default:
			r.skip()
		}
	}
	return r.err
}

// metaString returns b as one of the apiVersions and kinds of the meta kinds this
// package decodes itself (Status, PartialObjectMetadata and its list), without
// allocating; "" for any other b.
func metaString(b []byte) string {
	switch string(b) {
	case "v1":
		return "v1"
	case "meta.k8s.io/v1":
		return "meta.k8s.io/v1"
	case "Status":
		return "Status"
	case "PartialObjectMetadata":
		return "PartialObjectMetadata"
	case "PartialObjectMetadataList":
		return "PartialObjectMetadataList"
	}
	return ""
}

// rawExtensionNumber is RawExtension's raw field.
const rawExtensionNumber protowire.Number = 1
