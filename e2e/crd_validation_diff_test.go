package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	kubevalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// The differential test below builds each schema twice, as apikit's structural.Compile
// and as apiextensions-apiserver builds a CRD's validator (v1 JSONSchemaProps, converted
// to the internal version, NewSchemaValidator for the value validation and the
// structural schema for embedded resources and list types), validates one seeded corpus
// of objects with both, and demands the same verdict and the same errors: type, field
// and message. kube-openapi walks maps in random order, so errors compare as sorted
// lists.

var crdValidationSeed = flag.Uint64("crd-validation-seed", 12, "seed of the generated CRD validation corpus")

const minCRDValidationObjects = 10_000

// kubeCRDValidator is what kube-apiserver runs on a custom resource's schema.
type kubeCRDValidator struct {
	values     kubevalidation.SchemaValidator
	structural *structuralschema.Structural
}

func newKubeCRDValidator(t testing.TB, schemaJSON []byte) *kubeCRDValidator {
	t.Helper()
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(schemaJSON, &v1); err != nil {
		t.Fatalf("kube schema: %v", err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatalf("kube schema conversion: %v", err)
	}
	values, _, err := kubevalidation.NewSchemaValidator(&internal)
	if err != nil {
		t.Fatalf("kube validator: %v", err)
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatalf("kube structural schema: %v", err)
	}
	return &kubeCRDValidator{values: values, structural: s}
}

// validate runs the schema checks of apiextensions-apiserver's custom resource
// strategy (without TypeMeta and the root ObjectMeta, which are not the schema's).
func (k *kubeCRDValidator) validate(obj map[string]any) field.ErrorList {
	errs := kubevalidation.ValidateCustomResource(nil, obj, k.values)
	errs = append(errs, schemaobjectmeta.Validate(context.Background(), nil, obj, k.structural, false)...)
	return append(errs, listtype.ValidateListSetsAndMaps(nil, k.structural, obj)...)
}

func compileOurs(t testing.TB, schemaJSON []byte) *structural.Schema {
	t.Helper()
	var s openapi.Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		t.Fatalf("apikit schema: %v", err)
	}
	compiled, errs := structural.Compile(&s, validation.NewPath("openAPIV3Schema"))
	if len(errs) > 0 {
		t.Fatalf("apikit Compile: %v", errs)
	}
	return compiled
}

func kubeErrorStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + " " + e.Error()
	}
	slices.Sort(out)
	return out
}

func ourErrorStrings(errs validation.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + " " + e.Error()
	}
	slices.Sort(out)
	return out
}

func TestCRDValidationDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(*crdValidationSeed, 0x5c4e3a))
	type namedSchema struct {
		name    string
		schema  map[string]any
		objects int
	}
	var schemas []namedSchema
	for name, s := range handWrittenCRDSchemas() {
		schemas = append(schemas, namedSchema{name, s, 700})
	}
	slices.SortFunc(schemas, func(a, b namedSchema) int { return strings.Compare(a.name, b.name) })
	for i := range 40 {
		schemas = append(schemas, namedSchema{fmt.Sprintf("generated-%d", i), generatedCRDSchema(rng), 200})
	}

	var objects, valid, invalid, errorsSeen, diffs int
	tally := map[string]int{}
	for _, ns := range schemas {
		b, err := json.Marshal(ns.schema)
		if err != nil {
			t.Fatal(err)
		}
		kube := newKubeCRDValidator(t, b)
		ours := compileOurs(t, b)
		var s openapi.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		g := &crdValueGen{rng: rng}
		for range ns.objects {
			obj := g.object(&s)
			objects++
			want := kubeErrorStrings(kube.validate(obj))
			got := ourErrorStrings(ours.Validate(obj))
			for _, w := range want {
				tally[crdErrorKind(w)]++
			}
			if len(want) == 0 {
				valid++
			} else {
				invalid++
				errorsSeen += len(want)
			}
			if !slices.Equal(want, got) {
				diffs++
				if diffs <= 15 {
					ob, _ := json.Marshal(obj)
					t.Errorf("schema %s: object %s:\n kube:   %q\n apikit: %q\n schema: %s", ns.name, ob, want, got, b)
				}
			}
		}
	}
	t.Logf("CRD validation corpus: %d schemas, %d objects (%d valid, %d invalid, %d kube errors), %d mismatches",
		len(schemas), objects, valid, invalid, errorsSeen, diffs)
	t.Logf("kube errors by kind: %v", tally)
	if objects < minCRDValidationObjects {
		t.Fatalf("corpus has %d objects, want at least %d", objects, minCRDValidationObjects)
	}
	if invalid < objects/5 || valid < objects/10 {
		t.Errorf("corpus is lopsided: %d valid, %d invalid", valid, invalid)
	}
}

// TestCRDValidationDiff_InvalidPatternRefusedAtCompile compares Compile's refusal of
// an invalid pattern with kube-apiserver's structural schema validation.
func TestCRDValidationDiff_InvalidPatternRefusedAtCompile(t *testing.T) {
	schemaJSON := []byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"a":{"type":"string","pattern":"^(a$"},
		"b":{"type":"array","items":{"type":"string","pattern":"x{2,1}"}},
		"c":{"type":"string","pattern":"^ok$"}}}}}`)
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(schemaJSON, &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	root := field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	var want []string
	for _, e := range structuralschema.ValidateStructural(root, ss) {
		if strings.HasSuffix(e.Field, ".pattern") {
			want = append(want, string(e.Type)+" "+e.Error())
		}
	}
	slices.Sort(want)

	var s openapi.Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		t.Fatal(err)
	}
	_, errs := structural.Compile(&s, validation.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema"))
	got := ourErrorStrings(errs)
	if len(want) != 2 || !slices.Equal(want, got) {
		t.Errorf("pattern errors differ:\n kube:   %q\n apikit: %q", want, got)
	}
}

// crdErrorKind names the check an error comes from, to show what the corpus covers.
func crdErrorKind(e string) string {
	for _, k := range []string{"value must be of type", "must be of type", "Required value", "should be one of", "should match",
		"chars long", "should be a multiple", "less than", "greater than", "items", "properties",
		"duplicates", "(anyOf)", "(oneOf)", "(allOf)", "(not)", "value must be of type", "Duplicate value",
		"list-type map", "must be a string", "must not be empty", "GroupVersion", "mixed case", "metadata"} {
		if strings.Contains(e, k) {
			return k
		}
	}
	typ, _, _ := strings.Cut(e, " ")
	return typ
}
