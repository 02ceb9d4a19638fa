package api_test

import (
	"encoding/json"
	"fmt"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/examples/widgets/api/v1alpha1"
	"github.com/apikit-dev/apikit/scheme"
)

// A v1alpha1 Widget is defaulted, converted through the hub to v1 and validated, as a
// server does with a request body.
func Example() {
	s := api.NewScheme()

	in := &v1alpha1.Widget{
		TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1alpha1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{Name: "w1", Namespace: "default"},
		Spec:       v1alpha1.WidgetSpec{Paint: "blue", Parts: []v1alpha1.WidgetPart{{Name: "bolt", Count: 2}}},
	}
	conversion.Default(s, in) // spec.scaling.replicas: 1

	out, err := conversion.ToVersion(s, in, v1.GroupVersion)
	if err != nil {
		panic(err)
	}
	spec, _ := json.Marshal(out.(*v1.Widget).Spec)
	fmt.Println(string(spec))

	in.Spec.Paint = "pink"
	h := hubWidget(s, in)
	fmt.Println(api.ValidateWidget(h))
	// Output:
	// {"color":"blue","replicas":1,"parts":[{"name":"bolt","count":2}]}
	// spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"
}

func hubWidget(s *scheme.Scheme, in *v1alpha1.Widget) *hub.Widget {
	var h hub.Widget
	if err := conversion.Convert(s, in, &h); err != nil {
		panic(err)
	}
	return &h
}
