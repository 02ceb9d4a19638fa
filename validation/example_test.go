package validation_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Widget is a kind of a host program.
type Widget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	Color string `json:"color"`
}

// validateWidget is what a host program writes for its kind: the shared metadata
// rules plus its own field rules.
func validateWidget(w *Widget) validation.ErrorList {
	errs := validation.ValidateObjectMeta(&w.ObjectMeta, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	color := validation.NewPath("spec", "color")
	switch w.Spec.Color {
	case "":
		errs = append(errs, validation.Required(color, ""))
	case "blue", "green", "red":
	default:
		errs = append(errs, validation.NotSupported(color, w.Spec.Color, []string{"blue", "green", "red"}))
	}
	return errs
}

func Example() {
	w := &Widget{
		ObjectMeta: scheme.ObjectMeta{Name: "foo", Namespace: "default"},
		Spec:       WidgetSpec{Color: "pink"},
	}
	errs := validateWidget(w)
	fmt.Println(errs.Error())

	// What kube-apiserver (and package rest) answers with:
	status := errs.ToStatus(scheme.GroupKind{Group: "toys.example.com", Kind: "Widget"}, w.Name)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(status)
	// Output:
	// spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"
	// {
	//   "kind": "Status",
	//   "apiVersion": "v1",
	//   "metadata": {},
	//   "status": "Failure",
	//   "message": "Widget.toys.example.com \"foo\" is invalid: spec.color: Unsupported value: \"pink\": supported values: \"blue\", \"green\", \"red\"",
	//   "reason": "Invalid",
	//   "details": {
	//     "name": "foo",
	//     "group": "toys.example.com",
	//     "kind": "Widget",
	//     "causes": [
	//       {
	//         "reason": "FieldValueNotSupported",
	//         "message": "Unsupported value: \"pink\": supported values: \"blue\", \"green\", \"red\"",
	//         "field": "spec.color"
	//       }
	//     ]
	//   },
	//   "code": 422
	// }
}

func ExampleIsDNS1123Subdomain() {
	fmt.Println(validation.IsDNS1123Subdomain("toys.example.com"))
	fmt.Println(validation.IsDNS1123Subdomain("A_b"))
	// Output:
	// []
	// [a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]
}

func ExampleValidateObjectMetaUpdate() {
	old := &scheme.ObjectMeta{Name: "foo", Namespace: "default", UID: "1", ResourceVersion: "5"}
	next := &scheme.ObjectMeta{Name: "bar", Namespace: "default", UID: "1", ResourceVersion: "5"}
	for _, err := range validation.ValidateObjectMetaUpdate(next, old, validation.NewPath("metadata")) {
		fmt.Println(err)
	}
	// Output:
	// metadata.name: Invalid value: "bar": field is immutable
}
