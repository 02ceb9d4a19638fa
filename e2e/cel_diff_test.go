package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kubecel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// TestCELRulesDiff feeds the same schemas and generated objects (creates, and updates
// against a mutated stored version) to apikit's cel package and to
// k8s.io/apiextensions-apiserver's CEL validator (what kube-apiserver runs on custom
// resources, with validation ratcheting as kube's update strategy enables it), and
// demands the same errors: type, field and message.

var celSeed = flag.Uint64("cel-seed", 12, "seed of the generated CEL rule corpus")

const celObjectsPerSchema = 800

// celDiffSchemas exercise rule kinds on every shape of value: cross-field rules,
// transition rules (oldSelf, optionalOldSelf) on properties, list-map items and map
// values, messageExpression, fieldPath, reason, lists, sets, maps, int-or-string,
// embedded resources, escaped property names, and the Kubernetes libraries.
var celDiffSchemas = map[string]string{
	"widget": `
type: object
x-kubernetes-validations:
- rule: "self.metadata.name.size() <= 5"
  message: "name too long"
properties:
  metadata: {type: object}
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "!has(self.minReplicas) || !has(self.replicas) || self.minReplicas <= self.replicas"
      message: "replicas should be greater than or equal to minReplicas."
    - rule: "self.replicas <= self.maxReplicas"
    - rule: "!has(self.mode) || self.mode != 'bad'"
      fieldPath: ".mode"
      reason: FieldValueForbidden
      message: "mode may not be bad"
    - rule: "!has(self.mode) || !has(oldSelf.mode) || oldSelf.mode != 'locked' || self == oldSelf"
      message: "a locked spec is immutable"
    - rule: "!has(self.name) || self.name != 'x'"
      fieldPath: "['name']"
      reason: FieldValueRequired
      messageExpression: "'name ' + self.name + ' is taken'"
    properties:
      replicas: {type: integer}
      minReplicas: {type: integer}
      maxReplicas: {type: integer}
      mode:
        type: string
        maxLength: 10
        x-kubernetes-validations:
        - rule: "oldSelf != 'locked' || self == 'locked'"
          message: "mode stays locked"
      name:
        type: string
        maxLength: 20
        x-kubernetes-validations:
        - rule: "self.matches('^[a-z][a-z0-9-]*$')"
          messageExpression: "'invalid name ' + self"
      endpoint:
        type: string
        maxLength: 64
        x-kubernetes-validations:
        - rule: "isURL(self) && url(self).getScheme() == 'https'"
          reason: FieldValueInvalid
      memory:
        x-kubernetes-int-or-string: true
        x-kubernetes-validations:
        - rule: "type(self) == int ? self >= 0 : isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))"
          message: "must be a quantity below 1Gi"
        - rule: "self > 3"
      address:
        type: string
        maxLength: 64
        x-kubernetes-validations:
        - rule: "isIP(self) || isCIDR(self)"
        - rule: "!isIP(self) || ip(self).family() == 4"
          messageExpression: "self.size() > 3 ? 'want IPv4' : ''"
          message: "want IPv4 (short)"
      size:
        type: integer
        x-kubernetes-validations:
        - rule: "oldSelf.hasValue() ? self >= oldSelf.value() : self < 10"
          optionalOldSelf: true
          message: "size only grows, and starts below 10"
      my-field:
        type: integer
        x-kubernetes-validations:
        - rule: "self < 10"
      namespace:
        type: string
        maxLength: 10
      ports:
        type: array
        maxItems: 10
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        x-kubernetes-validations:
        - rule: "self.all(p, !has(p.port) || p.port < 100)"
          message: "ports below 100"
        items:
          type: object
          required: [name]
          properties:
            name: {type: string, maxLength: 10}
            port: {type: integer}
          x-kubernetes-validations:
          - rule: "!has(self.port) || self.port > 0"
            fieldPath: ".port"
          - rule: "!has(self.port) || !has(oldSelf.port) || self.port == oldSelf.port || self.name == 'a'"
            message: "port is immutable"
      tags:
        type: array
        maxItems: 10
        x-kubernetes-list-type: set
        items:
          type: string
          maxLength: 10
          x-kubernetes-validations:
          - rule: "self != 'dup'"
            reason: FieldValueDuplicate
        x-kubernetes-validations:
        - rule: "self.size() < 4"
      limits:
        type: object
        maxProperties: 5
        additionalProperties:
          type: integer
          x-kubernetes-validations:
          - rule: "self >= oldSelf"
            message: "limits only grow"
        x-kubernetes-validations:
        - rule: "self.all(k, k.size() < 4)"
          messageExpression: "self.exists(k, k == 'gpus') ? 'gpus is too long a key' : 1 == 1 ? '' : 'x'"
      steps:
        type: array
        maxItems: 5
        items:
          type: object
          properties:
            v: {type: integer}
          x-kubernetes-validations:
          - rule: "!has(self.v) || self.v >= 0"
            messageExpression: "'step is negative'"
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
        x-kubernetes-validations:
        - rule: "self.kind != 'Bad'"
        - rule: "!has(self.metadata.name) || self.metadata.name.startsWith('a')"
`,
	"atomic": `
type: object
properties:
  c:
    type: integer
    x-kubernetes-validations:
    - rule: "self < 5"
      message: "c below 5"
  spec:
    type: object
    x-kubernetes-map-type: atomic
    properties:
      a:
        type: integer
        x-kubernetes-validations:
        - rule: "self == oldSelf"
          message: "a is immutable"
      b:
        type: string
        maxLength: 5
        x-kubernetes-validations:
        - rule: "self.startsWith('a')"
  items:
    type: array
    maxItems: 5
    items:
      type: array
      maxItems: 5
      items:
        type: integer
        x-kubernetes-validations:
        - rule: "self != 3"
          message: "no threes"
    x-kubernetes-validations:
    - rule: "self.all(l, l.size() <= 3)"
      message: "rows of at most 3"
`,
}

func TestCELRulesDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(*celSeed, 12))
	compared, failing, updates := 0, 0, 0
	diffs := 0
	for _, name := range slices.Sorted(maps.Keys(celDiffSchemas)) {
		y := celDiffSchemas[name]
		ours, kube, ss := compileBoth(t, name, y)
		for range celObjectsPerSchema {
			obj := genValue(rng, ss, 0).(map[string]any)
			obj["apiVersion"], obj["kind"] = "example.com/v1", "Widget"
			if rng.IntN(3) > 0 {
				obj["metadata"] = map[string]any{"name": pick(rng, "a", "abc", "abcdefg")}
			}
			var old map[string]any
			if rng.IntN(2) == 0 {
				old = mutate(rng, ss, deepCopyJSON(obj), 0).(map[string]any)
				updates++
			}
			want := kubeErrors(kube, ss, deepCopyJSON(obj), old)
			got := ourErrors(ours.Validate(context.Background(), deepCopyJSON(obj), copyOrNil(old)))
			compared++
			if len(want) > 0 {
				failing++
			}
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				diffs++
				if diffs <= 10 {
					o, _ := json.Marshal(obj)
					p, _ := json.Marshal(old)
					t.Errorf("schema %s, object %s, old %s:\n kube:   %q\n apikit: %q", name, o, p, want, got)
				}
			}
		}
	}
	t.Logf("%d objects (%d updates), %d with errors, %d differences", compared, updates, failing, diffs)
	if compared < 1000 || failing < compared/10 || failing == compared {
		t.Errorf("corpus too weak: %d objects, %d failing", compared, failing)
	}
}

// compileBoth compiles a schema with apikit's cel and with kube's CEL validator, and
// returns the structural schema the generators walk.
func compileBoth(t *testing.T, name, y string) (structural.RuleValidator, *kubecel.Validator, *structuralschema.Structural) {
	t.Helper()
	s, internal := parseBoth(t, name, y, nil)
	ours, errs := cel.New().Compile(s, nil)
	if len(errs) > 0 {
		t.Fatalf("%s: cel Compile: %v", name, errs)
	}
	ss, err := structuralschema.NewStructural(internal)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return ours, kubecel.NewValidator(ss, true, celconfig.PerCallLimit), ss
}

// parseBoth reads a YAML schema as apikit's compiled structural schema (errors
// under root) and as apiextensions' internal JSONSchemaProps.
func parseBoth(t *testing.T, name, y string, root *validation.Path) (*structural.Schema, *apiextensions.JSONSchemaProps) {
	t.Helper()
	s, internal, errs := parseBothCompiling(t, name, y, root)
	if len(errs) > 0 {
		t.Fatalf("%s: structural.Compile: %v", name, errs)
	}
	return s, internal
}

// parseBothCompiling is parseBoth returning structural.Compile's errors (a CRD's schema
// checks) instead of failing on them.
func parseBothCompiling(t *testing.T, name, y string, root *validation.Path) (*structural.Schema, *apiextensions.JSONSchemaProps, validation.ErrorList) {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var ourSchema openapi.Schema
	if err := json.Unmarshal(j, &ourSchema); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, errs := structural.Compile(&ourSchema, root)
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(j, &v1); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	internal := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, internal, nil); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s, internal, errs
}

// kubeErrors validates as kube-apiserver's custom resource strategy does on create
// and update (with ratcheting against the stored object).
func kubeErrors(v *kubecel.Validator, ss *structuralschema.Structural, obj, old map[string]any) []string {
	var opts []kubecel.Option
	var oldObj any
	if old != nil {
		oldObj = old
		opts = append(opts, kubecel.WithRatcheting(common.NewCorrelatedObject(obj, old, &model.Structural{Structural: ss})))
	}
	errs, _ := v.Validate(context.Background(), nil, ss, obj, oldObj, celconfig.RuntimeCELCostBudget, opts...)
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + " " + e.Field + ": " + e.ErrorBody()
	}
	sort.Strings(out)
	return out
}

func ourErrors(errs validation.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + " " + e.Field + ": " + e.ErrorBody()
	}
	sort.Strings(out)
	return out
}

var celStrings = []string{"a", "abc", "x", "bad", "locked", "dup", "Web_1", "web-1", "https://example.com/p",
	"http://example.com", "10.0.0.1", "::1", "10.0.0.0/8", "512Mi", "2Gi", "3", "", "Bad", "Pod"}

func pick[T any](rng *rand.Rand, vs ...T) T { return vs[rng.IntN(len(vs))] }

// genValue generates a value of the schema: present properties at random, small
// integers around the rules' bounds, strings from a pool the rules care about.
func genValue(rng *rand.Rand, s *structuralschema.Structural, depth int) any {
	if s.XIntOrString {
		if rng.IntN(2) == 0 {
			return int64(rng.IntN(8) - 2)
		}
		return pick(rng, celStrings...)
	}
	switch s.Type {
	case "object":
		m := map[string]any{}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			for range rng.IntN(4) {
				m[pick(rng, "cpu", "mem", "disk", "gpus")] = genValue(rng, s.AdditionalProperties.Structural, depth+1)
			}
			return m
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if name == "metadata" || rng.IntN(10) < 3 {
				continue
			}
			p := s.Properties[name]
			m[name] = genValue(rng, &p, depth+1)
		}
		if s.XEmbeddedResource {
			m["apiVersion"] = "v1"
			m["kind"] = pick(rng, "Pod", "Bad")
			m["metadata"] = map[string]any{"name": pick(rng, "abc", "xyz")}
		}
		return m
	case "array":
		n := rng.IntN(5)
		l := make([]any, 0, n)
		for i := range n {
			item := genValue(rng, s.Items, depth+1)
			if m, ok := item.(map[string]any); ok && s.XListType != nil && *s.XListType == "map" {
				m["name"] = []string{"a", "b", "c", "d", "e"}[i] // list-map keys are unique
			}
			if s.XListType != nil && *s.XListType == "set" && slices.Contains(l, item) {
				continue
			}
			l = append(l, item)
		}
		return l
	case "integer":
		return int64(rng.IntN(14) - 2)
	case "string":
		return pick(rng, celStrings...)
	}
	return nil
}

// mutate returns v with some parts regenerated, as a stored version of an update.
func mutate(rng *rand.Rand, s *structuralschema.Structural, v any, depth int) any {
	if rng.IntN(5) == 0 {
		return genValue(rng, s, depth)
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if p, ok := s.Properties[k]; ok {
				v[k] = mutate(rng, &p, e, depth+1)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
				v[k] = mutate(rng, s.AdditionalProperties.Structural, e, depth+1)
			}
		}
	case []any:
		for i, e := range v {
			if s.XListType != nil && *s.XListType == "map" {
				m := e.(map[string]any)
				if p, ok := m["port"]; ok && rng.IntN(3) == 0 {
					m["port"] = p.(int64) + 1
				}
				continue
			}
			v[i] = mutate(rng, s.Items, e, depth+1)
		}
	}
	return v
}

func deepCopyJSON[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&out); err != nil {
		panic(err)
	}
	return any(intsOf(any(out))).(T)
}

func intsOf(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = intsOf(e)
		}
	case []any:
		for i, e := range v {
			v[i] = intsOf(e)
		}
	case json.Number:
		i, err := v.Int64()
		if err != nil {
			panic(fmt.Sprintf("not an integer: %s", v))
		}
		return i
	}
	return v
}

func copyOrNil(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return deepCopyJSON(m)
}

// TestCELCompileDiff compiles schemas whose rules kube-apiserver refuses (or accepts)
// with apikit's cel and with apiextensions-apiserver's CustomResourceDefinition
// validation, and demands the same rule errors.
func TestCELCompileDiff(t *testing.T) {
	schemas := map[string]string{
		"syntax":       `{type: object, properties: {a: {type: integer, x-kubernetes-validations: [{rule: "self ==="}]}}}`,
		"not bool":     `{type: object, properties: {a: {type: integer, x-kubernetes-validations: [{rule: "self + 1"}]}}}`,
		"no field":     `{type: object, properties: {a: {type: object, properties: {b: {type: string}}, x-kubernetes-validations: [{rule: "self.c == 1"}]}}}`,
		"msg expr":     `{type: object, properties: {a: {type: integer, x-kubernetes-validations: [{rule: "self > 1", messageExpression: "self"}]}}}`,
		"msg expr bad": `{type: object, properties: {a: {type: integer, x-kubernetes-validations: [{rule: "self > 1", messageExpression: "self.foo("}]}}}`,
		// Rules as written that need no CEL are refused by structural.Compile (the
		// schema checks of a CRD); fieldPaths that name fields need the CEL types.
		"written": `{type: object, properties: {a: {type: object, properties: {b: {type: string}, m: {type: object, additionalProperties: {type: string}}},
			x-kubernetes-validations: [{rule: " "}, {rule: "true", reason: FieldValueBad}, {rule: "true", message: " "},
			{rule: "true", message: "a\nb"}, {rule: "true\n&& true"}, {rule: "true", messageExpression: " "}, {rule: "true", fieldPath: " "},
			{rule: "true", fieldPath: ".b\n"}]}}}`,
		"written fieldPath": `{type: object, properties: {a: {type: object, properties: {b: {type: string}, m: {type: object, additionalProperties: {type: string}}},
			x-kubernetes-validations: [{rule: "true", fieldPath: ".c"}, {rule: "true", fieldPath: ".m['x']"}, {rule: "true", fieldPath: ".m.x.y"}, {rule: "true", fieldPath: "b"}]}}}`,
		"oldSelf set":            `{type: object, properties: {tags: {type: array, x-kubernetes-list-type: set, items: {type: string, maxLength: 5, x-kubernetes-validations: [{rule: "self == oldSelf"}]}}}}`,
		"oldSelf atomic list":    `{type: object, properties: {l: {type: array, items: {type: object, properties: {a: {type: integer, x-kubernetes-validations: [{rule: "self == oldSelf"}]}}}}}}`,
		"oldSelf granular map":   `{type: object, properties: {m: {type: object, x-kubernetes-map-type: granular, properties: {a: {type: integer, x-kubernetes-validations: [{rule: "self == oldSelf"}]}}}}}`,
		"optionalOldSelf unused": `{type: object, properties: {a: {type: integer, x-kubernetes-validations: [{rule: "self > 1", optionalOldSelf: false}]}}}`,
		"cost":                   `{type: object, properties: {l: {type: array, items: {type: string}, x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x == y))"}]}}}`,
		"cost bounded":           `{type: object, properties: {l: {type: array, maxItems: 10, items: {type: string, maxLength: 10}, x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x == y))"}]}}}`,
		"cost nested": `{type: object, properties: {outer: {type: array, items: {type: object, properties: {s: {type: string,
			x-kubernetes-validations: [{rule: "self.matches('^a+$')"}, {rule: "self.size() > 1", messageExpression: "self + self"}]}}}}}}`,
		"cost total": `{type: object, properties: {l: {type: array, maxItems: 20, items: {type: array, maxItems: 100,
			items: {type: string, maxLength: 100}, x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x + y != 'a'))"}, {rule: "self.all(x, self.all(y, x + y != 'b'))"}, {rule: "self.all(x, self.all(y, x + y != 'c'))"}, {rule: "self.all(x, self.all(y, x + y != 'd'))"}, {rule: "self.all(x, self.all(y, x + y != 'e'))"}, {rule: "self.all(x, self.all(y, x + y != 'f'))"}, {rule: "self.all(x, self.all(y, x + y != 'g'))"}, {rule: "self.all(x, self.all(y, x + y != 'h'))"}, {rule: "self.all(x, self.all(y, x + y != 'i'))"}, {rule: "self.all(x, self.all(y, x + y != 'j'))"}, {rule: "self.all(x, self.all(y, x + y != 'k'))"}, {rule: "self.all(x, self.all(y, x + y != 'l'))"}]}}}}`,
		"root meta": `{type: object, x-kubernetes-validations: [{rule: "self.metadata.name.size() < 10 && self.metadata.namespace == ''"}]}`,
		"fine":      `{type: object, x-kubernetes-validations: [{rule: "self.metadata.name.size() < 10"}], properties: {a: {type: integer}}}`,
	}
	selfType := regexp.MustCompile(`selfType\d+`)
	refused := 0
	root := validation.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		s, internal, errs := parseBothCompiling(t, name, schemas[name], root)
		if len(errs) == 0 {
			_, errs = cel.New().Compile(s, root)
		}
		got := ourErrors(errs)
		crd := &apiextensions.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
			Spec: apiextensions.CustomResourceDefinitionSpec{
				Group: "example.com",
				Names: apiextensions.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
				Scope: apiextensions.NamespaceScoped,
				Versions: []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensions.CustomResourceValidation{OpenAPIV3Schema: internal}}},
				PreserveUnknownFields: ptr.To(false),
			},
			Status: apiextensions.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
		}
		var want []string
		for _, e := range crdvalidation.ValidateCustomResourceDefinition(context.Background(), crd) {
			if !strings.HasPrefix(e.Field, root.String()) {
				continue // about the CRD, not its schema (a single version's schema is "top-level")
			}
			want = append(want, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
		}
		sort.Strings(want)
		if len(want) > 0 {
			refused++
		}
		w, g := selfType.ReplaceAllString(strings.Join(want, "\n"), "selfType"), selfType.ReplaceAllString(strings.Join(got, "\n"), "selfType")
		if w != g {
			t.Errorf("%s:\n kube:   %s\n apikit: %s", name, w, g)
		}
	}
	if refused != len(schemas)-3 {
		t.Errorf("kube refused %d of %d schemas, want all but the three valid ones", refused, len(schemas))
	}
}
