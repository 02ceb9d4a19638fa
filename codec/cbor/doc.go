// Package cbor is the application/cbor serializer of apikit, byte-compatible with
// k8s.io/apimachinery's CBOR serializer, and the application/cbor-seq framing of watch
// events. It plugs into the codec package as an extra Serializer:
//
//	codecs := codec.NewCodecs(s, cbor.New(s))
//
// # Encoding
//
// [Serializer.Encode] writes the self-described CBOR tag (0xd9d9f7) and then the object
// with Kubernetes' encode options (on github.com/fxamacker/cbor/v2): map keys and struct
// fields in bytewise-lexical order of their encodings (shorter keys first), json tag
// names with encoding/json's omitempty rules, Go strings and field names as byte
// strings, the shortest float form that keeps the value, NaN and infinity rejected,
// nil slices and maps as null. Types with a MarshalJSON method (scheme.Time,
// scheme.FieldsV1) are transcoded from their JSON, which yields exactly what meta/v1's
// MarshalCBOR methods write: a time is its RFC 3339 string (as a byte string, like
// kube), a zero time null.
//
// Typed objects (pointers to structs) are written by a plan compiled once per Go type
// instead of by fxamacker's reflection, to the same bytes: the plan hands the values it
// does not model (floats, interfaces, maps other than map[string]string, types with
// MarshalJSON) to fxamacker one by one, and an error anywhere makes the whole object
// encode again through fxamacker, whose error is returned.
//
// # Decoding
//
// [Serializer.Decode] accepts input with or without the tag and applies Kubernetes'
// decode rules: integers decode into untyped values as int64 (larger ones fail), other
// numbers as float64, NaN and infinity are rejected, text strings must be valid UTF-8,
// byte strings decode into strings, field names match json tags case-sensitively, and
// only the simple values false, true and null are accepted. Unknown fields and
// duplicate map keys do not fail the decode: they come back as codec.FieldIssues with
// the paths and wording of the JSON decoder (`unknown field "spec.parts[2].nmae"`), so
// fieldValidation works the same for CBOR bodies. (apimachinery rejects duplicate keys
// in CBOR outright; apikit reports them like it does for JSON.)
//
// Hostile input is bounded: nesting deeper than 10000 levels, arrays of more than
// 2^31-1 elements and maps of more than 2097152 pairs (Kubernetes' limits) are errors,
// and since input is checked to be well formed before anything is built and every
// element takes at least one byte, a header claiming 2^32 items in a short input
// fails without allocating for them.
//
// Into a struct, a plan compiled once per type decodes the plain documents (definite
// lengths, strings, integers that fit, booleans, null, types with UnmarshalJSON through
// the same transcoder; no unknown or repeated name, no tag but the self-described one
// in front). Whatever else it meets, it puts the
// struct back as it was and fxamacker decodes the document from the start, so values,
// errors and field issues are always fxamacker's; a differential test and fuzz target
// (FuzzTypedCodec) hold the two to the same results.
//
// # Watch
//
// [AppendEvent], [Serializer.AppendEvent] (its codec.EventFramer side, with
// [Serializer.StreamContentType]) and [Serializer.EncodeEvent] write one watch event
// as one data item of an application/cbor-seq stream, {"type": ..., "object": ...}
// exactly as apimachinery's metav1.WatchEvent encodes; [EventDecoder] reads such a
// stream one event at a time with a bound on an event's size.
package cbor
