package codec

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/scheme"
)

// framedFake can carry a watch.
type framedFake struct{ fakeSerializer }

func (framedFake) StreamContentType() string { return "application/x-framed;stream=watch" }

func (framedFake) AppendEvent(dst []byte, eventType string, object []byte) []byte {
	return append(append(dst, eventType...), object...)
}

// limitedFake encodes only v1 kinds and no Table, and has no watch framing.
type limitedFake struct{ fakeSerializer }

func (limitedFake) Supports(gvk scheme.GroupVersionKind, _ any) bool { return gvk.Version == "v1" }

func (limitedFake) SupportsTarget(as string) bool { return as != AsTable }

const (
	framedType  = "application/x-framed"
	limitedType = "application/x-limited"
)

func describedCodecs() *Codecs {
	s := testScheme()
	return CodecsOf(NewJSON(s), NewYAML(s), framedFake{fakeSerializer{framedType}}, limitedFake{fakeSerializer{limitedType}})
}

func TestNegotiateResponse_AsksEachSerializerWhatItCanDo(t *testing.T) {
	c := describedCodecs()
	v1 := scheme.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	v2 := scheme.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"}
	allTargets := func(string) bool { return true }
	tests := []struct {
		name          string
		accept        string
		opts          ResponseOptions
		want          string // media type chosen, "" for not acceptable
		streamType    string
		notAcceptable []string
	}{
		{"a watch is offered only serializers that frame events", "application/yaml, application/x-framed;q=0.5",
			ResponseOptions{Stream: true}, framedType, "application/x-framed;stream=watch", nil},
		{"JSON frames events in its own media type", "application/json",
			ResponseOptions{Stream: true}, MediaTypeJSON, MediaTypeJSON, nil},
		{"a serializer without framing is not acceptable for a watch", limitedType,
			ResponseOptions{Stream: true}, "", "", []string{MediaTypeJSON, framedType}},
		{"a kind the serializer supports", limitedType,
			ResponseOptions{GVK: v1, Object: &Widget{}}, limitedType, limitedType, nil},
		{"a kind it does not support falls back", limitedType + ", application/json;q=0.5",
			ResponseOptions{GVK: v2, Object: &Widget{}}, MediaTypeJSON, MediaTypeJSON, nil},
		{"a kind it does not support is not offered", limitedType,
			ResponseOptions{GVK: v2, Object: &Widget{}}, "", "", []string{MediaTypeJSON, MediaTypeYAML, framedType}},
		{"a target it cannot encode is not acceptable", limitedType + ";as=Table;g=meta.k8s.io;v=v1",
			ResponseOptions{AllowAs: allTargets}, "", "", []string{MediaTypeJSON, MediaTypeYAML, framedType, limitedType}},
		{"a target it can encode", limitedType + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
			ResponseOptions{AllowAs: allTargets}, limitedType, limitedType, nil},
		{"a serializer without TargetSupporter encodes every target", framedType + ";as=Table;g=meta.k8s.io;v=v1",
			ResponseOptions{AllowAs: allTargets}, framedType, "application/x-framed;stream=watch", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.NegotiateResponse(tt.accept, tt.opts)
			if tt.want == "" {
				var nae *NotAcceptableError
				if !errors.As(err, &nae) {
					t.Fatalf("got %q, %v; want NotAcceptableError", out.MediaType, err)
				}
				if diff := cmp.Diff(tt.notAcceptable, nae.Offered); diff != "" {
					t.Errorf("offered (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil || out.MediaType != tt.want || out.Serializer.MediaType() != tt.want {
				t.Fatalf("got %q, %v; want %q", out.MediaType, err, tt.want)
			}
			if got := out.StreamContentType(); got != tt.streamType {
				t.Errorf("stream content type %q, want %q", got, tt.streamType)
			}
		})
	}
}

func TestDecoderFor_RefusesAKindTheSerializerCannotDecode(t *testing.T) {
	c := describedCodecs()
	v2 := scheme.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"}
	_, err := c.DecoderFor(limitedType, v2, &Widget{})
	var ume *UnsupportedMediaTypeError
	if !errors.As(err, &ume) || !errors.Is(err, ErrUnsupportedMediaType) {
		t.Fatalf("err = %v, want an UnsupportedMediaTypeError", err)
	}
	if diff := cmp.Diff([]string{MediaTypeJSON, MediaTypeYAML, framedType}, ume.Accepted); diff != "" {
		t.Errorf("accepted (-want +got):\n%s", diff)
	}
	if s, err := c.DecoderFor(limitedType, v2, nil); err != nil || s.MediaType() != limitedType {
		t.Errorf("without a value any kind may come: %v, %v; want the limited serializer", s, err)
	}
}

func TestJSONSerializer_AppendEventWritesOneWatchEventLine(t *testing.T) {
	got := NewJSON(testScheme()).AppendEvent([]byte("before\n"), "ADDED", []byte(`{"kind":"Widget"}`+"\n"))
	want := "before\n" + `{"type":"ADDED","object":{"kind":"Widget"}}` + "\n"
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
