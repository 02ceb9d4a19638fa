package structural_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// root is where a CustomResourceDefinition keeps a version's schema; errors name paths
// under it, as kube-apiserver reports them.
var root = validation.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

func parse(schemaJSON string) *openapi.Schema {
	var s openapi.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		log.Fatal(err)
	}
	return &s
}

// A schema is compiled once; a custom resource is then pruned of undeclared fields,
// defaulted and validated on every write, in kube-apiserver's order.
func ExampleCompile() {
	s, errs := structural.Compile(parse(`{
	  "type": "object",
	  "properties": {
	    "spec": {
	      "type": "object",
	      "required": ["size"],
	      "properties": {
	        "size": {"type": "integer", "minimum": 1, "maximum": 10},
	        "color": {"type": "string", "enum": ["red", "blue"], "default": "red"}
	      }
	    }
	  }
	}`), root)
	if len(errs) > 0 {
		log.Fatal(errs)
	}

	obj := map[string]any{
		"apiVersion": "toys.example.com/v1",
		"kind":       "Ball",
		"metadata":   map[string]any{"name": "b", "owner": "not ObjectMeta"},
		"spec":       map[string]any{"size": int64(12), "bounce": true},
	}
	fmt.Println("pruned:", s.PruneDecoded(obj))
	s.Default(obj)
	fmt.Println("spec:", obj["spec"])
	for _, err := range s.Validate(obj) {
		fmt.Println(err)
	}
	// Output:
	// pruned: [metadata.owner spec.bounce]
	// spec: map[color:red size:12]
	// spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10
}

// A schema that is not structural (here a property without a type) is refused with
// kube-apiserver's errors.
func ExampleCompile_notStructural() {
	_, errs := structural.Compile(parse(`{
	  "type": "object",
	  "properties": {"spec": {"properties": {"size": {"type": "integer"}}}}
	}`), root)
	for _, err := range errs {
		fmt.Println(err)
	}
	// Output:
	// spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields
}
