package standard_test

import (
	"fmt"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/standard"
	"github.com/apikit-dev/apikit/scheme"
)

// Serializers lists what a Kubernetes API server speaks, most preferred first; a
// response's serializer is negotiated from that list by the Accept header, skipping
// those that cannot encode the kind.
func ExampleSerializers() {
	s := scheme.New()
	gadget := scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Gadget"}
	s.AddUnstructuredKind(gadget)

	serializers := standard.Serializers(s)
	for _, ser := range serializers {
		fmt.Println(ser.MediaType())
	}
	codecs := codec.CodecsOf(serializers...)

	obj := &scheme.Unstructured{}
	for _, tt := range []struct {
		accept string
		stream bool
	}{
		{"", false},
		// client-go's default for built-in kinds; a kind defined by a schema only has
		// no protobuf encoding, so the server falls back to JSON.
		{"application/vnd.kubernetes.protobuf, application/json", false},
		{"application/cbor", false},
		{"application/yaml;q=0.9, application/json;q=0.5", false},
		{"application/cbor", true},
		// YAML has no watch framing.
		{"application/yaml", true},
	} {
		out, err := codecs.NegotiateResponse(tt.accept, codec.ResponseOptions{GVK: gadget, Object: obj, Stream: tt.stream})
		switch {
		case err != nil:
			fmt.Printf("%q stream=%v: %v\n", tt.accept, tt.stream, err)
		case tt.stream:
			fmt.Printf("%q stream=%v: %s\n", tt.accept, tt.stream, out.StreamContentType())
		default:
			fmt.Printf("%q: %s\n", tt.accept, out.ContentType())
		}
	}
	// Output:
	// application/json
	// application/yaml
	// application/vnd.kubernetes.protobuf
	// application/cbor
	// "": application/json
	// "application/vnd.kubernetes.protobuf, application/json": application/json
	// "application/cbor": application/cbor
	// "application/yaml;q=0.9, application/json;q=0.5": application/yaml
	// "application/cbor" stream=true: application/cbor-seq
	// "application/yaml" stream=true: none of the offered media types is acceptable: Accept "application/yaml", offered application/json, application/cbor
}
