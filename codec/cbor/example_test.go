package cbor_test

import (
	"bytes"
	"fmt"
	"log"

	fxcbor "github.com/fxamacker/cbor/v2"

	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/scheme"
)

// Lamp is a small kind for the example.
type Lamp struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              LampSpec `json:"spec"`
}

// LampSpec is the desired state of a Lamp.
type LampSpec struct {
	Watts int32 `json:"watts"`
	On    bool  `json:"on,omitempty"`
}

// An object is encoded as Kubernetes encodes it in CBOR: behind the self-described tag
// (55799, bytes d9 d9 f7), with field names as byte strings ('...' in diagnostic
// notation) in bytewise-lexical order of their encodings, so shorter names first. It
// decodes back into the same Go type.
func Example() {
	s := scheme.New()
	s.AddKnownTypes(scheme.GroupVersion{Group: "example.com", Version: "v1"}, &Lamp{})
	ser := cbor.New(s)

	in := &Lamp{
		TypeMeta:   scheme.TypeMeta{APIVersion: "example.com/v1", Kind: "Lamp"},
		ObjectMeta: scheme.ObjectMeta{Name: "desk"},
		Spec:       LampSpec{Watts: 40},
	}
	var buf bytes.Buffer
	if err := ser.Encode(&buf, in); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("% x\n", buf.Bytes()[:3])
	// fxamacker/cbor, which apikit encodes with, also prints CBOR in diagnostic notation.
	diag, err := fxcbor.DiagOptions{ByteStringText: true}.DiagMode()
	if err != nil {
		log.Fatal(err)
	}
	text, err := diag.Diagnose(buf.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(text)

	res, err := ser.Decode(buf.Bytes(), nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	out := res.Object.(*Lamp)
	fmt.Println(res.GVK.Kind, out.Name, out.Spec.Watts, out.Spec.On)
	// Output:
	// d9 d9 f7
	// 55799({'kind': 'Lamp', 'spec': {'watts': 40}, 'metadata': {'name': 'desk'}, 'apiVersion': 'example.com/v1'})
	// Lamp desk 40 false
}
