// Package protobuf is the application/vnd.kubernetes.protobuf codec: the "k8s\x00"
// envelope (Magic + runtime.Unknown), the meta/v1 messages every client meets, and
// Kubernetes' length-prefixed watch frames, written by hand on
// google.golang.org/protobuf/encoding/protowire with the field numbers of
// k8s.io/apimachinery's generated.proto files and the byte layout of their
// gogo-generated marshallers, so that client-go decodes what apikit writes and the
// reverse, byte for byte.
//
// # What can be encoded
//
//   - Meta kinds, hand-written: Status (with StatusDetails, StatusCause and ListMeta),
//     PartialObjectMetadata and PartialObjectMetadataList, ObjectMeta in full
//     (OwnerReference, ManagedFieldsEntry, FieldsV1, Time as {seconds=1, nanos=2}),
//     ListMeta, Condition, and watch events (WatchEvent {type=1, object=2}).
//   - Built-in schemas: discovery's APIResourceList (v1), autoscaling/v1 Scale and
//     meta/v1 DeleteOptions (under any group version, as client-go's typed clients
//     send it in delete bodies), encoded from and decoded into any Go value with
//     their JSON field names (see [Serializer.EncodeAs] for values that do not carry
//     apiVersion and kind).
//   - Kinds whose Go types carry k8s.io/api's protobuf struct tags (the built-in kinds
//     of package builtin, generated from k8s.io/api), registered with [RegisterType]
//     or [RegisterTypes]: their messages are derived from the tags once per Go type,
//     with the value types resource.Quantity (quantity.Quantity), intstr.IntOrString
//     (scheme.IntOrString) and runtime.RawExtension (scheme.RawExtension), and are
//     written byte for byte as k8s.io/api's gogo-generated Marshal writes them, typed
//     or unstructured.
//   - User kinds: a Go type implementing [Marshaler] and [Unmarshaler] (like
//     gogo-generated Kubernetes types) or proto.Message, a Go type with protobuf
//     struct tags ([RegisterType]), or a kind described with [RegisterFields] (JSON
//     paths to field numbers), typed or unstructured; its list kind comes with it
//     (metadata=1, items=2).
//
// Everything else, notably meta/v1 Table (which Kubernetes marks protobuf=false and
// serves only as JSON, YAML or CBOR), fails Encode with a [*NotProtobufError]
// wrapping [ErrNotProtobuf] (and codec.ErrUnsupportedMediaType), before anything is
// written. [Serializer.Supports] and [Serializer.SupportsTarget] tell negotiation so
// up front: the REST layer answers 406 to a protobuf-only Accept, falls back to JSON
// when the client also accepts it, and answers 415 to a protobuf request body of such
// a kind. [Serializer.StreamContentType] and [Serializer.AppendEvent] frame its
// watches.
//
// # Hostile input
//
// Decoding never panics: every length is checked against the bytes that remain, so
// allocation is bounded by the input's size; nesting is bounded by the message
// definitions and, for a message derived from a recursive Go type, by a limit of
// 10,000 levels; groups are rejected; a [FrameReader] grows its buffer with
// the bytes it reads, not with the length a header claims, up to a maximum.
package protobuf
