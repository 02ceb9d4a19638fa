package cel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// New compiles a schema's x-kubernetes-validations rules with kube-apiserver's CEL
// environment and limits; the validator it returns rejects an object that breaks one,
// with the field path and message a real cluster answers.
func ExampleNew() {
	var s openapi.Schema
	if err := json.Unmarshal([]byte(`{
	  "type": "object",
	  "properties": {
	    "spec": {
	      "type": "object",
	      "properties": {
	        "replicas": {"type": "integer"},
	        "maxReplicas": {"type": "integer"},
	        "image": {"type": "string", "x-kubernetes-validations": [
	          {"rule": "self == oldSelf", "message": "image is immutable"}
	        ]}
	      },
	      "x-kubernetes-validations": [
	        {"rule": "self.replicas <= self.maxReplicas", "message": "replicas must not exceed maxReplicas"}
	      ]
	    }
	  }
	}`), &s); err != nil {
		log.Fatal(err)
	}
	root := validation.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	compiled, errs := structural.Compile(&s, root)
	if len(errs) > 0 {
		log.Fatal(errs)
	}
	rules, errs := cel.New().Compile(compiled, root)
	if len(errs) > 0 {
		log.Fatal(errs)
	}

	spec := func(replicas, maxReplicas int64, image string) map[string]any {
		return map[string]any{"spec": map[string]any{
			"replicas": replicas, "maxReplicas": maxReplicas, "image": image,
		}}
	}
	ctx := context.Background()
	fmt.Println("errors on a valid create:", len(rules.Validate(ctx, spec(2, 3, "app:1"), nil)))
	for _, err := range rules.Validate(ctx, spec(5, 3, "app:1"), nil) {
		fmt.Println("create:", err)
	}
	// On update, the transition rule compares with the stored object (oldSelf).
	for _, err := range rules.Validate(ctx, spec(2, 3, "app:2"), spec(2, 3, "app:1")) {
		fmt.Println("update:", err)
	}

	// A rule that does not compile is refused with the schema, as kube-apiserver
	// refuses the CustomResourceDefinition.
	var bad openapi.Schema
	if err := json.Unmarshal([]byte(`{"type": "object", "properties": {"n": {"type": "integer"}},
	  "x-kubernetes-validations": [{"rule": "self.n > 'one'"}]}`), &bad); err != nil {
		log.Fatal(err)
	}
	badCompiled, _ := structural.Compile(&bad, root)
	_, errs = cel.New().Compile(badCompiled, root)
	fmt.Println(len(errs), errs[0].Type)
	// Output:
	// errors on a valid create: 0
	// create: spec: Invalid value: replicas must not exceed maxReplicas
	// update: spec.image: Invalid value: "app:2": image is immutable
	// 1 Invalid value
}
