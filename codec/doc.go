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
// Typed objects are encoded with encoding/json, exactly like k8s.io/apimachinery.
// Unstructured trees (map[string]any, []any and scalars) take a fast path,
// [AppendJSON], whose output is byte-identical to encoding/json (sorted keys, the same
// HTML-safe escaping).
//
// # Objects, YAML and media types
//
// A [Serializer] decodes and encodes scheme objects for one media type. [NewJSON] and
// [NewYAML] build the two text formats; [NewCodecs] keeps the serializers of a scheme
// by media type, which is where Protobuf and CBOR will slot in. [ParseMediaType],
// [ParseAccept] and [Negotiate] read Content-Type and Accept headers.
package codec
