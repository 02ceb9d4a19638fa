package codec_test

import (
	"fmt"
	"os"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

func Example() {
	s := scheme.New()
	gadget := scheme.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}
	s.AddUnstructuredKind(gadget)
	codecs := codec.NewCodecs(s)

	// Pick the response format from the Accept header.
	match, err := codec.Negotiate("application/yaml;q=0.5, application/json", codecs.MediaTypes())
	if err != nil {
		panic(err)
	}
	fmt.Println("respond with", match.Offered)

	// Decode a request body; unknown or duplicate fields come back as issues.
	ser, _ := codecs.ForMediaType("application/json; charset=utf-8")
	res, err := ser.Decode([]byte(`{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"size":3,"size":4}}`), nil, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.GVK.Kind, res.Issues.Warnings())
	_ = ser.Encode(os.Stdout, res.Object)
	// Output:
	// respond with application/json
	// Gadget [duplicate field "spec.size"]
	// {"apiVersion":"example.com/v1","kind":"Gadget","spec":{"size":4}}
}
