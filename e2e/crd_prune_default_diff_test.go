package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// The differential tests below build each generated openAPIV3Schema both ways (apikit's
// openapi.Schema, and kube's JSONSchemaProps converted to the internal type and to its
// structural form) and demand the same outcome from apikit's validation/structural and
// from k8s.io/apiextensions-apiserver's own code: the same accept/reject decision and
// error list for a CRD's schema, the same pruned object and unknown-field paths, the same
// defaulted object.

var crdSeed = flag.Uint64("crd-seed", 12, "seed of the generated CRD schema and object corpora")

const (
	crdMinSchemas        = 1000
	crdMinPruneObjects   = 10000
	crdMinDefaultObjects = 10000
)

// crdSchemaPath is where a CRD's first version keeps its schema: kube moves a schema
// shared by every version to spec.validation, so the CRD has a second version with a
// schema of its own.
var crdSchemaPath = validation.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

// kubeSchemaErrors validates a CRD holding schema as kube-apiserver validates a CRD on
// create, and returns the errors about the schema.
func kubeSchemaErrors(t testing.TB, schemaJSON []byte) []string {
	props := kubeProps(t, schemaJSON)
	preserve := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.toys.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "toys.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}},
				{Name: "v2", Served: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}}},
			},
		},
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
		t.Fatalf("convert CRD: %v", err)
	}
	return errorKeys(crdvalidation.ValidateCustomResourceDefinition(context.Background(), &internal), func(e *field.Error) string {
		return fmt.Sprintf("%s|%s|%s", e.Type, e.Field, e.Detail)
	})
}

// errorKeys renders errors as sorted "type|field|detail" keys, so that two lists
// compare as multisets (kube's order follows Go map iteration in places).
func errorKeys[E any](errs []E, key func(E) string) []string {
	var out []string
	for _, e := range errs {
		out = append(out, key(e))
	}
	sort.Strings(out)
	return out
}

func apikitSchema(t testing.TB, schemaJSON []byte) *openapi.Schema {
	var s openapi.Schema
	if err := json.Unmarshal(schemaJSON, &s); err != nil {
		t.Fatalf("apikit openapi.Schema: %v\n%s", err, schemaJSON)
	}
	return &s
}

func apikitSchemaErrors(s *openapi.Schema) []string {
	_, errs := structural.Compile(s, crdSchemaPath)
	return errorKeys(errs, func(e *validation.Error) string {
		return fmt.Sprintf("%s|%s|%s", e.Type, e.Field, e.Detail)
	})
}

func kubeProps(t testing.TB, schemaJSON []byte) *apiextensionsv1.JSONSchemaProps {
	var props apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(schemaJSON, &props); err != nil {
		t.Fatalf("kube JSONSchemaProps: %v\n%s", err, schemaJSON)
	}
	return &props
}

func kubeStructural(t testing.TB, schemaJSON []byte) *structuralschema.Structural {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(kubeProps(t, schemaJSON), &internal, nil); err != nil {
		t.Fatal(err)
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func TestCRDStructuralDiff(t *testing.T) {
	g := newSchemaGen(*crdSeed)
	pending := valueValidatorPending(t)
	if pending {
		t.Log("apikit's value validator is still a placeholder: kube's errors from validating default values are left out of the comparison")
	}
	var compared, rejected, bothAccept, pendingOnly int
	var mismatches []string
	for i := range 3000 {
		wild := i%2 == 0
		schemaJSON, err := json.Marshal(g.root(wild))
		if err != nil {
			t.Fatal(err)
		}
		kube := kubeSchemaErrors(t, schemaJSON)
		ours := apikitSchemaErrors(apikitSchema(t, schemaJSON))
		compared++
		if pending {
			all := len(kube)
			kube = slices.DeleteFunc(kube, isDefaultValueError)
			if all > 0 && len(kube) == 0 {
				pendingOnly++
			}
		}
		if len(kube) > 0 {
			rejected++
		} else if len(ours) == 0 {
			bothAccept++
		}
		if !slices.Equal(kube, ours) && len(mismatches) < 10 {
			mismatches = append(mismatches, fmt.Sprintf("schema %s\n kube:   %q\n apikit: %q", schemaJSON, kube, ours))
		}
	}
	t.Logf("%d generated schemas compared: %d rejected by kube (%d only for invalid default values), %d accepted by both, %d mismatches shown", compared, rejected, pendingOnly, bothAccept, len(mismatches))
	if compared < crdMinSchemas {
		t.Fatalf("only %d schemas, want >= %d", compared, crdMinSchemas)
	}
	if rejected < compared/5 || bothAccept < compared/5 {
		t.Errorf("corpus lopsided: %d rejected, %d accepted of %d", rejected, bothAccept, compared)
	}
	for _, m := range mismatches {
		t.Error(m)
	}
}

// valueValidatorPending reports whether apikit's value validator is the placeholder of
// the crd-base branch (it finds nothing wrong with a string where an integer belongs).
func valueValidatorPending(t testing.TB) bool {
	s, errs := structural.Compile(apikitSchema(t, []byte(`{"type":"object","properties":{"a":{"type":"integer"}}}`)), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return len(s.Validate(map[string]any{"a": "x"})) == 0
}

// isDefaultValueError reports whether a kube error (type|field|detail) is one of
// validating a default value against its schema, which apikit's value validator owns.
func isDefaultValueError(e string) bool {
	parts := strings.SplitN(e, "|", 3)
	if !strings.Contains(parts[1], ".default") {
		return false
	}
	switch {
	case parts[2] == "must not have unknown fields", parts[2] == "must be undefined to be structural", parts[2] == "must be a string", parts[2] == "must not be empty",
		strings.HasPrefix(parts[2], "may have mixed case"), strings.HasPrefix(parts[2], "unexpected GroupVersion"),
		strings.HasSuffix(parts[1], ".apiVersion") && parts[2] == "", strings.HasSuffix(parts[1], ".kind") && parts[2] == "",
		strings.HasPrefix(parts[2], "must not be set"):
		return false
	}
	return true
}

// crdCorpusSchema is one structural schema of the pruning and defaulting corpora, in
// both forms.
type crdCorpusSchema struct {
	json   []byte
	gen    map[string]any
	apikit *structural.Schema
	kube   *structuralschema.Structural
}

// structuralCorpus generates structural schemas that both implementations accept.
func structuralCorpus(t testing.TB, g *schemaGen, n int) []crdCorpusSchema {
	var out []crdCorpusSchema
	for len(out) < n {
		root := g.root(false)
		b, _ := json.Marshal(root)
		if errs := kubeSchemaErrors(t, b); len(errs) > 0 {
			continue
		}
		s, errs := structural.Compile(apikitSchema(t, b), crdSchemaPath)
		if len(errs) > 0 {
			t.Fatalf("apikit refuses a schema kube accepts: %v\n%s", errs, b)
		}
		out = append(out, crdCorpusSchema{json: b, gen: root, apikit: s, kube: kubeStructural(t, b)})
	}
	return out
}

func canonicalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("!%v", err)
	}
	return string(b)
}

func TestCRDPruneDiff(t *testing.T) {
	g := newSchemaGen(*crdSeed + 1)
	schemas := structuralCorpus(t, g, 200)
	var compared, withUnknown int
	var mismatches []string
	for i := range 12000 {
		cs := schemas[i%len(schemas)]
		obj := g.object(cs.gen, true, true).(map[string]any)
		kubeObj := scheme.DeepCopyJSONValue(obj).(map[string]any)
		kubePaths := pruning.PruneWithOptions(kubeObj, cs.kube, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(kubeObj, cs.kube)
		ours := scheme.DeepCopyJSONValue(obj).(map[string]any)
		ourPaths := cs.apikit.Prune(ours)
		compared++
		if len(kubePaths) > 0 {
			withUnknown++
		}
		if (canonicalJSON(kubeObj) != canonicalJSON(ours) || !slices.Equal(kubePaths, ourPaths)) && len(mismatches) < 10 {
			mismatches = append(mismatches, fmt.Sprintf("schema %s\nobject %s\n kube:   %s %q\n apikit: %s %q", cs.json, canonicalJSON(obj), canonicalJSON(kubeObj), kubePaths, canonicalJSON(ours), ourPaths))
		}
	}
	t.Logf("%d objects pruned against %d schemas: %d had unknown fields, %d mismatches shown", compared, len(schemas), withUnknown, len(mismatches))
	checkObjectCorpus(t, compared, crdMinPruneObjects, withUnknown, "had unknown fields", mismatches)
}

// checkObjectCorpus fails a differential whose corpus is too small or too dull (fewer
// than a quarter of the objects exercised the code under test), and reports its
// mismatches.
func checkObjectCorpus(t *testing.T, compared, minimum, exercised int, what string, mismatches []string) {
	t.Helper()
	if compared < minimum {
		t.Fatalf("only %d objects, want >= %d", compared, minimum)
	}
	if exercised < compared/4 {
		t.Errorf("only %d of %d objects %s", exercised, compared, what)
	}
	for _, m := range mismatches {
		t.Error(m)
	}
}

func TestCRDDefaultDiff(t *testing.T) {
	g := newSchemaGen(*crdSeed + 2)
	schemas := structuralCorpus(t, g, 200)
	var compared, changed int
	var mismatches []string
	for i := range 12000 {
		cs := schemas[i%len(schemas)]
		obj := g.object(cs.gen, true, i%3 != 0).(map[string]any)
		kubeObj := scheme.DeepCopyJSONValue(obj).(map[string]any)
		structuraldefaulting.Default(kubeObj, cs.kube)
		ours := scheme.DeepCopyJSONValue(obj).(map[string]any)
		cs.apikit.Default(ours)
		compared++
		if canonicalJSON(kubeObj) != canonicalJSON(obj) {
			changed++
		}
		if canonicalJSON(kubeObj) != canonicalJSON(ours) && len(mismatches) < 10 {
			mismatches = append(mismatches, fmt.Sprintf("schema %s\nobject %s\n kube:   %s\n apikit: %s", cs.json, canonicalJSON(obj), canonicalJSON(kubeObj), canonicalJSON(ours)))
		}
	}
	t.Logf("%d objects defaulted against %d schemas: kube changed %d, %d mismatches shown", compared, len(schemas), changed, len(mismatches))
	checkObjectCorpus(t, compared, crdMinDefaultObjects, changed, "were changed by defaulting", mismatches)
}

// schemaGen generates openAPIV3Schemas as a CRD author writes them (JSON maps), and
// objects for them. In wild mode a schema breaks the rules now and then: missing
// types, junctors that specify structure, list and map types on the wrong type,
// unpruned or invalid defaults, forbidden keywords.
type schemaGen struct {
	r    *rand.Rand
	wild bool
}

func newSchemaGen(seed uint64) *schemaGen {
	return &schemaGen{r: rand.New(rand.NewPCG(seed, seed^0x5bd1e995))}
}

func (g *schemaGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *schemaGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

var genFieldNames = []string{"a", "b", "name", "spec", "size", "items", "kind", "apiVersion", "metadata", "x"}

func (g *schemaGen) root(wild bool) map[string]any {
	g.wild = wild
	root := map[string]any{"type": "object"}
	props := map[string]any{
		"spec":   g.node(3, "object"),
		"status": g.node(2, ""),
	}
	if g.chance(0.3) {
		meta := map[string]any{"type": "object"}
		if g.chance(0.5) {
			meta["properties"] = map[string]any{"name": map[string]any{"type": "string", "maxLength": int64(20)}}
		}
		if g.wild && g.chance(0.3) {
			meta["properties"] = map[string]any{"labels": map[string]any{"type": "object"}}
		}
		if g.wild && g.chance(0.2) {
			meta["default"] = map[string]any{}
		}
		props["metadata"] = meta
	}
	if g.chance(0.2) {
		props["kind"] = map[string]any{"type": g.pick("string", "string", "integer")}
	}
	root["properties"] = props
	if g.wild {
		g.mangle(root, true)
	}
	if g.chance(0.05) {
		root["x-kubernetes-preserve-unknown-fields"] = true
	}
	return root
}

// node generates a schema of up to depth levels; typ forces a type.
func (g *schemaGen) node(depth int, typ string) map[string]any {
	if typ == "" {
		typ = g.pick("object", "object", "array", "string", "integer", "number", "boolean", "int-or-string", "embedded")
		if depth <= 0 {
			typ = g.pick("string", "integer", "number", "boolean", "int-or-string")
		}
	}
	s := map[string]any{}
	switch typ {
	case "object":
		s["type"] = "object"
		switch {
		case g.chance(0.2):
			s["additionalProperties"] = g.node(depth-1, "")
		case g.chance(0.1):
			s["x-kubernetes-preserve-unknown-fields"] = true
			if g.chance(0.5) {
				s["properties"] = g.properties(depth - 1)
			}
		default:
			s["properties"] = g.properties(depth - 1)
		}
		if g.chance(0.1) {
			s["x-kubernetes-map-type"] = g.pick("atomic", "granular")
		}
	case "array":
		s["type"] = "array"
		switch {
		case g.chance(0.2):
			s["x-kubernetes-list-type"] = "map"
			item := map[string]any{"type": "object", "properties": map[string]any{
				"name": map[string]any{"type": "string"},
				"size": g.node(depth-1, ""),
			}, "required": []any{"name"}}
			s["items"] = item
			s["x-kubernetes-list-map-keys"] = []any{"name"}
		case g.chance(0.2):
			s["x-kubernetes-list-type"] = g.pick("set", "atomic")
			s["items"] = map[string]any{"type": g.pick("string", "integer")}
		default:
			s["items"] = g.node(depth-1, "")
		}
	case "int-or-string":
		s["x-kubernetes-int-or-string"] = true
		if g.chance(0.3) {
			s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		}
	case "embedded":
		s["type"] = "object"
		s["x-kubernetes-embedded-resource"] = true
		if g.chance(0.5) {
			s["x-kubernetes-preserve-unknown-fields"] = true
		}
		if _, ok := s["x-kubernetes-preserve-unknown-fields"]; !ok || g.chance(0.5) {
			s["properties"] = map[string]any{"spec": g.node(depth-1, "")}
		}
	default:
		s["type"] = typ
	}
	if g.chance(0.15) {
		s["nullable"] = true
	}
	if g.chance(0.1) {
		s["description"] = "a field"
	}
	if g.chance(0.35) && typ != "embedded" {
		s["default"] = g.object(s, false, false)
	}
	if g.wild {
		g.mangle(s, false)
	}
	return s
}

func (g *schemaGen) properties(depth int) map[string]any {
	props := map[string]any{}
	for range 1 + g.r.IntN(3) {
		name := genFieldNames[g.r.IntN(len(genFieldNames))]
		props[name] = g.node(depth, "")
	}
	return props
}

// mangle breaks the rules of a structural schema, now and then.
func (g *schemaGen) mangle(s map[string]any, root bool) {
	switch g.r.IntN(22) {
	case 0:
		delete(s, "type")
	case 1:
		s["anyOf"] = []any{map[string]any{"properties": map[string]any{"zzz": map[string]any{"type": "integer", "minimum": int64(1)}}, "description": "no"}}
	case 2:
		s["allOf"] = []any{map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}, map[string]any{"nullable": true, "default": "x"}}
	case 3:
		s["x-kubernetes-list-type"] = g.pick("map", "set", "bogus")
	case 4:
		s["x-kubernetes-map-type"] = g.pick("atomic", "weird")
	case 5:
		s["uniqueItems"] = true
	case 6:
		s["not"] = map[string]any{"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-int-or-string": true, "items": map[string]any{"type": "string"}}
	case 7:
		s["pattern"] = g.pick("[", "^a+$", "(?P<x")
	case 8:
		s["x-kubernetes-int-or-string"] = true
		if g.chance(0.5) {
			s["x-kubernetes-preserve-unknown-fields"] = true
		}
	case 9:
		s["x-kubernetes-embedded-resource"] = true
	case 10:
		s["default"] = map[string]any{"unknownField": int64(1), "a": "b"}
	case 11:
		s["type"] = g.pick("null", "foo", "array")
	case 12:
		s["x-kubernetes-list-map-keys"] = []any{"name", "name"}
	case 13:
		s["$ref"] = "#/definitions/io.example.Thing"
	case 14:
		s["additionalProperties"] = map[string]any{"type": "string"}
	case 15:
		s["oneOf"] = []any{map[string]any{"properties": map[string]any{"metadata": map[string]any{}}, "x-kubernetes-map-type": "atomic", "x-kubernetes-list-type": "set", "x-kubernetes-list-map-keys": []any{"a"}}}
	case 16:
		if items, ok := s["items"].(map[string]any); ok {
			items["nullable"] = true
			s["x-kubernetes-list-type"] = g.pick("set", "map")
		}
	case 17:
		s["default"] = g.pick("str", "") // a string default, valid only for strings
	case 18:
		if root {
			s["nullable"] = true
		} else {
			s["x-kubernetes-embedded-resource"] = true
			s["type"] = "object"
			delete(s, "properties")
		}
	}
}

// object generates a value for schema s (a generated JSON map). noisy adds unknown
// fields, nulls, wrong types and meta fields; sparse leaves properties out, so that
// defaulting has work to do.
func (g *schemaGen) object(s map[string]any, noisy, sparse bool) any {
	return g.value(s, noisy, sparse, true, 0)
}

func (g *schemaGen) value(s map[string]any, noisy, sparse, resource bool, depth int) any {
	if noisy && !resource && g.chance(0.05) {
		return nil
	}
	if noisy && !resource && g.chance(0.03) {
		return g.scalar("")
	}
	typ, _ := s["type"].(string)
	if s["x-kubernetes-int-or-string"] == true {
		if g.chance(0.5) {
			return int64(g.r.IntN(10))
		}
		return "v"
	}
	if s["x-kubernetes-embedded-resource"] == true {
		resource = true
	}
	switch typ {
	case "object":
		obj := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		required, _ := s["required"].([]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if slices.Contains(required, any(name)) || !sparse || g.chance(0.5) {
				obj[name] = g.value(props[name].(map[string]any), noisy, sparse, false, depth+1)
			}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			for range g.r.IntN(3) {
				obj[fmt.Sprintf("k%d", g.r.IntN(5))] = g.value(ap, noisy, sparse, false, depth+1)
			}
		}
		if noisy {
			if g.chance(0.3) {
				obj[genFieldNames[g.r.IntN(len(genFieldNames))]] = g.scalar("")
			}
			if g.chance(0.15) {
				obj["unknown"] = map[string]any{"deep": []any{int64(1), map[string]any{"x": nil}}}
			}
			if resource && g.chance(0.5) {
				obj["apiVersion"] = "toys.example.com/v1"
				obj["kind"] = "Widget"
				obj["metadata"] = map[string]any{"name": "w", "labels": map[string]any{"a": "b"}}
			}
		}
		if s["x-kubernetes-preserve-unknown-fields"] == true && g.chance(0.5) {
			obj["free"] = map[string]any{"form": true}
		}
		return obj
	case "array":
		items, _ := s["items"].(map[string]any)
		n := g.r.IntN(3)
		if !noisy && n > 1 {
			n = 1
		}
		arr := make([]any, 0, n)
		for range n {
			if items == nil {
				arr = append(arr, map[string]any{"x": int64(1)})
				continue
			}
			arr = append(arr, g.value(items, noisy, sparse, false, depth+1))
		}
		return arr
	case "":
		if s["x-kubernetes-preserve-unknown-fields"] == true {
			return map[string]any{"any": []any{"thing"}}
		}
		return g.scalar("")
	default:
		return g.scalar(typ)
	}
}

func (g *schemaGen) scalar(typ string) any {
	if typ == "" {
		typ = g.pick("string", "integer", "number", "boolean", "object")
	}
	switch typ {
	case "string":
		return g.pick("a", "b", "hello")
	case "integer":
		return int64(g.r.IntN(100))
	case "number":
		return float64(g.r.IntN(100)) + 0.5
	case "boolean":
		return g.chance(0.5)
	default:
		return map[string]any{"nested": "value"}
	}
}
