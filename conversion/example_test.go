package conversion_test

import (
	"fmt"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// Two versions of a kind that differ in one field name, and the hub.
type exampleHub struct {
	scheme.TypeMeta
	Name  string
	Color string
}

type exampleV1 struct {
	scheme.TypeMeta `json:",inline"`
	Name            string `json:"name"`
	Color           string `json:"color"`
}

type exampleV2 struct {
	scheme.TypeMeta `json:",inline"`
	Name            string `json:"name"`
	Paint           string `json:"paint"`
}

func Example() {
	s := scheme.New()
	s.AddKnownTypeWithName(scheme.GroupVersionKind{Group: "ex.test", Version: scheme.InternalVersion, Kind: "Toy"}, &exampleHub{})
	s.AddKnownTypeWithName(scheme.GroupVersionKind{Group: "ex.test", Version: "v1", Kind: "Toy"}, &exampleV1{})
	s.AddKnownTypeWithName(scheme.GroupVersionKind{Group: "ex.test", Version: "v2", Kind: "Toy"}, &exampleV2{})

	// v1 matches the hub field by field: nothing to register. v2 renamed color to paint:
	// convert the rest automatically, then fix up the difference.
	conversion.Register(s, func(in *exampleV2, out *exampleHub, _ conversion.Scope) error {
		if err := conversion.AutoConvert(s, in, out); err != nil {
			return err
		}
		out.Color = in.Paint
		return nil
	})
	conversion.Register(s, func(in *exampleHub, out *exampleV2, _ conversion.Scope) error {
		if err := conversion.AutoConvert(s, in, out); err != nil {
			return err
		}
		out.Paint = in.Color
		return nil
	})
	conversion.RegisterDefaults(s, func(t *exampleV2) {
		if t.Paint == "" {
			t.Paint = "red"
		}
	})

	in := &exampleV2{Name: "duck"}
	conversion.Default(s, in)
	out, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "ex.test", Version: "v1"}) // v2 -> hub -> v1
	if err != nil {
		panic(err)
	}
	m, _ := conversion.ToUnstructured(out)
	fmt.Println(m)
	// Output: map[apiVersion:ex.test/v1 color:red kind:Toy name:duck]
}
