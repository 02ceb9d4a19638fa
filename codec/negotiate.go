package codec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// The "as" conversion targets an Accept clause may ask for (with g=meta.k8s.io and
// v=v1 or v1beta1), as kube-apiserver serves them.
const (
	AsTable                     = "Table"
	AsPartialObjectMetadata     = "PartialObjectMetadata"
	AsPartialObjectMetadataList = "PartialObjectMetadataList"
)

// KindSupporter is implemented by a Serializer that can encode and decode only some
// kinds, like the protobuf one (only kinds with a protobuf schema). Negotiation offers
// such a serializer only for objects it supports, and a request body in its media type
// for an unsupported kind is 415. A Serializer without it supports every kind.
type KindSupporter interface {
	Supports(gvk scheme.GroupVersionKind, v any) bool
}

// TargetSupporter is implemented by a Serializer that cannot encode every "as"
// conversion target (AsTable, AsPartialObjectMetadata, AsPartialObjectMetadataList):
// protobuf has no meta/v1 Table, as kube-apiserver's AllowsMediaTypeTransform rules.
// Negotiation skips a clause asking such a serializer for a target it lacks. A
// Serializer without it encodes every target.
type TargetSupporter interface {
	SupportsTarget(as string) bool
}

// EventFramer is implemented by a Serializer whose media type can carry a watch, like
// apimachinery's StreamSerializer and Framer together; a streaming negotiation offers
// only these (YAML has no framing, as in kube-apiserver).
type EventFramer interface {
	// StreamContentType is the Content-Type of a watch response: the serializer's
	// media type, or another naming the framing ("application/cbor-seq",
	// "application/vnd.kubernetes.protobuf;stream=watch").
	StreamContentType() string
	// AppendEvent appends one watch event to dst, framed for the stream and ready to
	// be written in one Write: its type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR)
	// and its object as this serializer's Encode wrote it.
	AppendEvent(dst []byte, eventType string, object []byte) []byte
}

// ErrUnsupportedMediaType says a request body's Content-Type cannot be decoded (for the
// kind at hand); the REST layer answers 415. A serializer's Decode error wraps it when
// the serializer has no encoding for the document's kind.
var ErrUnsupportedMediaType = errors.New("unsupported media type")

// UnsupportedMediaTypeError is the error of [Codecs.DecoderFor]: the Content-Type and
// the media types that would have been accepted. It wraps [ErrUnsupportedMediaType].
type UnsupportedMediaTypeError struct {
	ContentType string
	Accepted    []string
}

// Error names the Content-Type and the accepted media types.
func (e *UnsupportedMediaTypeError) Error() string {
	return fmt.Sprintf("%v %q: accepted media types include %s", ErrUnsupportedMediaType, e.ContentType, strings.Join(e.Accepted, ", "))
}

// Unwrap returns ErrUnsupportedMediaType.
func (e *UnsupportedMediaTypeError) Unwrap() error { return ErrUnsupportedMediaType }

// NotAcceptableError is the error of [Codecs.NegotiateResponse] when no clause of the
// Accept header can be served; Offered lists what could have been. It wraps
// [ErrNotAcceptable].
type NotAcceptableError struct {
	Accept  string
	Offered []string
}

// Error names the Accept header and the offered media types.
func (e *NotAcceptableError) Error() string {
	return fmt.Sprintf("%v: Accept %q, offered %s", ErrNotAcceptable, e.Accept, strings.Join(e.Offered, ", "))
}

// Unwrap returns ErrNotAcceptable.
func (e *NotAcceptableError) Unwrap() error { return ErrNotAcceptable }

// ResponseOptions describe the response a negotiation is for.
type ResponseOptions struct {
	// GVK and Object are what a clause without "as" gets encoded: a serializer that
	// implements [KindSupporter] and does not support them is not offered for such a
	// clause. A nil Object offers every serializer (a Status, for instance).
	GVK    scheme.GroupVersionKind
	Object any
	// AllowAs reports whether the endpoint can produce a conversion target (AsTable,
	// AsPartialObjectMetadata, AsPartialObjectMetadataList); clauses asking for
	// another are skipped, so "...;as=Table, application/json" falls back to the plain
	// clause. nil allows none.
	AllowAs func(as string) bool
	// Stream negotiates a watch: only serializers with a stream framing (an
	// [EventFramer]: JSON, CBOR, protobuf) are offered; YAML has none, as in
	// kube-apiserver.
	Stream bool
}

// Output is the outcome of a response negotiation.
type Output struct {
	// Serializer encodes the response; MediaType is its media type.
	Serializer Serializer
	MediaType  string
	// As is the conversion target the client asked for ("" for the object itself)
	// and AsVersion its meta.k8s.io version ("v1" or "v1beta1").
	As        string
	AsVersion string
}

// ContentType is the Content-Type of a (non-stream) response in this output:
// "application/json;as=Table;v=v1;g=meta.k8s.io" for a conversion target.
func (o Output) ContentType() string {
	if o.As != "" {
		return o.MediaType + ";as=" + o.As + ";v=" + o.AsVersion + ";g=" + scheme.MetaGroupVersion.Group
	}
	return o.MediaType
}

// StreamContentType is the Content-Type of a watch response in this output, as its
// serializer's [EventFramer] names it; a serializer without framing has none and
// answers its media type.
func (o Output) StreamContentType() string {
	if f, ok := o.Serializer.(EventFramer); ok {
		return f.StreamContentType()
	}
	return o.MediaType
}

// NegotiateResponse picks the serializer of a response from an Accept header (empty
// means */*) under the rules of kube-apiserver: clauses by q (then specificity, then
// order), wildcards, an "as" target only when opts.AllowAs admits it with
// g=meta.k8s.io and v=v1 or v1beta1 and in a media type the target has, a "stream"
// parameter only "watch" on a streaming negotiation, and a serializer that cannot
// encode the kind (protobuf for a kind without protobuf fields) skipped, so
// "application/vnd.kubernetes.protobuf, application/json" falls back to JSON. Nothing
// acceptable is a [*NotAcceptableError].
func (c *Codecs) NegotiateResponse(accept string, opts ResponseOptions) (Output, error) {
	if strings.TrimSpace(accept) == "" {
		accept = "*/*"
	}
	offered := make([]string, 0, len(c.list))
	byType := make(map[string]Serializer, len(c.list))
	plainOK := make(map[string]bool, len(c.list))
	for _, s := range c.list {
		if _, framed := s.(EventFramer); opts.Stream && !framed {
			continue
		}
		mt := s.MediaType()
		offered = append(offered, mt)
		byType[mt] = s
		plainOK[mt] = supportsKind(s, opts.GVK, opts.Object)
	}
	m, err := NegotiateFunc(accept, offered, func(cl MediaType, mt string) bool {
		// As kube-apiserver: stream=watch is allowed for a media type with a stream
		// framing, a watch or not, an empty stream means nothing, and sv must name
		// meta.k8s.io's version.
		if st := cl.Params["stream"]; st != "" {
			if _, framed := byType[mt].(EventFramer); st != "watch" || !framed {
				return false
			}
		}
		if sv := cl.Params["sv"]; sv != "" && sv != scheme.MetaGroupVersion.Version {
			return false
		}
		// Any of as, g and v asks for a conversion target, which needs all three.
		as := cl.Params["as"]
		_, hasG := cl.Params["g"]
		_, hasV := cl.Params["v"]
		if as == "" && !hasG && !hasV {
			return plainOK[mt]
		}
		if as == "" || opts.AllowAs == nil || !opts.AllowAs(as) || !supportsTarget(byType[mt], as) {
			return false
		}
		v := cl.Params["v"]
		return cl.Params["g"] == scheme.MetaGroupVersion.Group && (v == "v1" || v == "v1beta1")
	})
	if err != nil {
		var plain []string
		for _, mt := range offered {
			if plainOK[mt] {
				plain = append(plain, mt)
			}
		}
		return Output{}, &NotAcceptableError{Accept: accept, Offered: plain}
	}
	out := Output{Serializer: byType[m.Offered], MediaType: m.Offered, As: m.Clause.Params["as"]}
	if out.As != "" {
		out.AsVersion = m.Clause.Params["v"]
	}
	return out, nil
}

// supportsKind reports whether s can encode and decode v of kind gvk (any kind for a
// nil v); see [KindSupporter].
func supportsKind(s Serializer, gvk scheme.GroupVersionKind, v any) bool {
	if v == nil {
		return true
	}
	ks, ok := s.(KindSupporter)
	return !ok || ks.Supports(gvk, v)
}

// supportsTarget reports whether s can encode the conversion target as; see
// [TargetSupporter].
func supportsTarget(s Serializer, as string) bool {
	ts, ok := s.(TargetSupporter)
	return !ok || ts.SupportsTarget(as)
}

// MediaTypesFor lists, in order of preference, the media types that can encode or
// decode v of kind gvk (all of them for a nil v).
func (c *Codecs) MediaTypesFor(gvk scheme.GroupVersionKind, v any) []string {
	out := make([]string, 0, len(c.list))
	for _, s := range c.list {
		if supportsKind(s, gvk, v) {
			out = append(out, s.MediaType())
		}
	}
	return out
}

// DecoderFor returns the serializer of a request body's Content-Type (parameters
// ignored, empty means JSON) for an object of kind gvk (a value v of it, nil when
// any kind may come). An unknown media type, or one whose serializer cannot decode
// the kind (a protobuf body for a kind without protobuf), is an
// [*UnsupportedMediaTypeError].
func (c *Codecs) DecoderFor(contentType string, gvk scheme.GroupVersionKind, v any) (Serializer, error) {
	if strings.TrimSpace(contentType) == "" {
		contentType = MediaTypeJSON
	}
	s, ok := c.ForMediaType(contentType)
	if !ok || !supportsKind(s, gvk, v) {
		return nil, &UnsupportedMediaTypeError{ContentType: contentType, Accepted: c.MediaTypesFor(gvk, v)}
	}
	return s, nil
}

// PatchBodyMediaType is the media type whose serializer reads the body of a patch of
// the given Content-Type: application/apply-patch+cbor bodies are CBOR,
// application/apply-patch+yaml bodies YAML, the JSON, merge and strategic merge
// patch types JSON; "" for anything else.
func PatchBodyMediaType(contentType string) string {
	m, err := ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	switch m.Essence() {
	case MediaTypeApplyPatchCBOR:
		return MediaTypeCBOR
	case MediaTypeApplyPatchYAML:
		return MediaTypeYAML
	case MediaTypeJSONPatch, MediaTypeMergePatch, MediaTypeStrategicMergePatch:
		return MediaTypeJSON
	}
	return ""
}

// Without returns a copy of c without the serializers of the given media types (a
// server that disables CBOR, for instance).
func (c *Codecs) Without(mediaTypes ...string) *Codecs {
	out := &Codecs{list: make([]Serializer, 0, len(c.list))}
	for _, s := range c.list {
		if !slices.Contains(mediaTypes, s.MediaType()) {
			out.list = append(out.list, s)
		}
	}
	return out
}
