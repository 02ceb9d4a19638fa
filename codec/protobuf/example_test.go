package protobuf_test

import (
	"bytes"
	"fmt"

	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

type Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec `json:"spec"`
}

type GadgetSpec struct {
	Color string `json:"color"`
	Size  *int32 `json:"size,omitempty"`
}

// A kind registered by JSON paths and field numbers is encoded in the Kubernetes
// envelope and decoded back, with no generated code.
func Example() {
	s := scheme.New()
	gv := scheme.GroupVersion{Group: "example.com", Version: "v1"}
	s.AddKnownTypes(gv, &Gadget{})
	if err := protobuf.RegisterFields(s, gv.WithKind("Gadget"),
		protobuf.Field{Path: "metadata", Number: 1, Type: protobuf.TypeObjectMeta},
		protobuf.Field{Path: "spec", Number: 2, Type: protobuf.TypeMessage},
		protobuf.Field{Path: "spec.color", Number: 1, Type: protobuf.TypeString},
		protobuf.Field{Path: "spec.size", Number: 2, Type: protobuf.TypeInt32, Optional: true},
	); err != nil {
		panic(err)
	}
	ps := protobuf.New(s)

	var buf bytes.Buffer
	in := &Gadget{TypeMeta: scheme.TypeMeta{APIVersion: "example.com/v1", Kind: "Gadget"},
		ObjectMeta: scheme.ObjectMeta{Name: "g1"}, Spec: GadgetSpec{Color: "red"}}
	if err := ps.Encode(&buf, in); err != nil {
		panic(err)
	}
	fmt.Printf("prefix %q\n", buf.Bytes()[:4])

	res, err := ps.Decode(buf.Bytes(), nil, nil)
	if err != nil {
		panic(err)
	}
	out := res.Object.(*Gadget)
	fmt.Println(res.GVK.Kind, out.Name, out.Spec.Color, out.Spec.Size == nil)
	// Output:
	// prefix "k8s\x00"
	// Gadget g1 red true
}
