// Package codec turns API objects into bytes and back: JSON (with its own fast,
// strict-reporting decoder), YAML (through JSON), and the media-type parsing and
// negotiation the REST layer uses to pick a wire format.
//
// # JSON decoding
//
// [Unmarshal] decodes JSON into Go values the way Kubernetes' sigs.k8s.io/json does:
// object keys match json tag names case-sensitively; integers decode into untyped
// values (any, map[string]any, []any) as int64 and other numbers as float64; unknown
// and duplicate fields never fail a decode but come back as [FieldIssues] with their
// paths (".spec.parts[2].nmae" is reported as `unknown field "spec.parts[2].nmae"`),
// so that the REST layer can implement fieldValidation=Ignore, Warn or Strict.
// The decoder compiles a plan per Go type once (cached) and scans the input bytes
// in one pass; it never panics on malformed input and reports a [*SyntaxError] with
// the byte offset. Nesting deeper than [MaxDepth] is an error. Invalid UTF-8 inside
// strings is replaced by U+FFFD, as encoding/json does. Values decode into what is
// already there (maps and structs are merged, like encoding/json); a value of the
// wrong type stops the decode with a [*TypeError] naming the field path. Not
// supported: the ",string" tag option and map keys that are not string-kinded.
//
// # JSON encoding
//
// [Marshal] and [AppendJSON] encode any value byte-identically to encoding/json's
// Marshal, which is what k8s.io/apimachinery writes: json tags with omitempty,
// omitzero and ",string", Go's embedding and shadowing rules (resolved by the same
// code as the decoder's, so both agree on names), sorted map keys, HTML-safe
// escaping, json.Marshaler and encoding.TextMarshaler called exactly where
// encoding/json calls them (pointer-receiver methods only on addressable values) with
// their output validated and compacted, and encoding/json's own error types. Typed
// values are encoded by a plan compiled once per Go type that reads fields in place
// (scheme.Time, json.RawMessage and labels are written without calling methods or
// allocating); unstructured trees (map[string]any, []any and scalars) take a direct
// path. [JSONSerializer] encodes into pooled buffers and writes each object with one
// Write.
//
// # Objects, YAML and media types
//
// A [Serializer] decodes and encodes scheme objects for one media type, and describes
// itself: optional interfaces found by type assertion say what sets its media type
// apart. An [EventFramer] can carry a watch (its stream Content-Type and how one event
// is framed: JSON a newline-terminated WatchEvent, protobuf a length-prefixed frame,
// CBOR one cbor-seq data item); a [KindSupporter] has an encoding for only some kinds
// (protobuf: kinds with a protobuf schema); a [TargetSupporter] cannot encode every
// "as" conversion target (protobuf has no Table); a [ListStreamer] writes a list item
// by item (JSON, YAML, CBOR, protobuf); a [LimitedDecoder] decodes within a size limit
// what a document stands for (YAML, whose aliases repeat what they name, so a server
// refuses with its body limit a small body that stands for gigabytes). YAML is written
// as kube writes it, within a bounded multiple of the JSON (see [JSONToYAML]).
// Nothing outside a serializer's own
// package knows these facts, so a new media type is one package plus its place in a
// server's list. [NewJSON] and [NewYAML] build the two text formats; protobuf and
// CBOR live in codec/protobuf and codec/cbor, and codec/standard lists the four in
// kube-apiserver's order. [CodecsOf] and [NewCodecs] keep a list of serializers by
// media type; [DecodeObject] is the part of decoding every serializer shares once it
// has read a document's kind. [ParseMediaType], [ParseAccept] and [Negotiate] read
// Content-Type and Accept headers.
//
// # Negotiation
//
// [Codecs.NegotiateResponse] is the one place that picks a response's serializer from
// an Accept header, with kube-apiserver's rules: q-values and wildcards, "as"
// conversion targets (in the media types whose serializers encode them; Table is not
// protobuf), stream=watch (only serializers that frame events), and serializers that
// cannot encode the kind (a [KindSupporter] such as protobuf) skipped so that a client
// also accepting JSON falls back to it. [Codecs.DecoderFor] picks a request body's
// decoder from Content-Type and refuses a media type the kind has no encoding in
// ([ErrUnsupportedMediaType], a 415).
package codec
