package cel_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// schemaPath is where a CRD's schema sits, as kube-apiserver reports rule errors.
var schemaPath = validation.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

func parseSchema(t *testing.T, y string) *openapi.Schema {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("schema YAML: %v", err)
	}
	s := new(openapi.Schema)
	if err := json.Unmarshal(j, s); err != nil {
		t.Fatalf("schema JSON: %v", err)
	}
	return s
}

func compileRules(t *testing.T, y string, opts ...cel.Option) (structural.RuleValidator, validation.ErrorList) {
	t.Helper()
	s, errs := structural.Compile(parseSchema(t, y), schemaPath)
	if len(errs) > 0 {
		t.Fatalf("structural.Compile: %v", errs)
	}
	return cel.New(opts...).Compile(s, schemaPath)
}

func mustCompile(t *testing.T, y string, opts ...cel.Option) structural.RuleValidator {
	t.Helper()
	v, errs := compileRules(t, y, opts...)
	if len(errs) > 0 {
		t.Fatalf("Compile: %v", errs)
	}
	return v
}

func object(t *testing.T, y string) map[string]any {
	t.Helper()
	if y == "" {
		return nil
	}
	var m map[string]any
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	// decode numbers as kube-apiserver's unstructured decoding does: int64 or float64
	d := json.NewDecoder(strings.NewReader(string(j)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return fixNumbers(m).(map[string]any)
}

func fixNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = fixNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = fixNumbers(e)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

func errorStrings(errs validation.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + " " + e.Error()
	}
	return out
}

func assertErrors(t *testing.T, got validation.ErrorList, want []string) {
	t.Helper()
	g := errorStrings(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n got  %q\n want %q", g, want)
	}
}

// validateCase is an object (and its stored version on update) and the errors
// its validation gives.
type validateCase struct {
	name     string
	obj, old string
	want     []string
}

func runCases(t *testing.T, v structural.RuleValidator, tests []validateCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertErrors(t, v.Validate(context.Background(), object(t, tt.obj), object(t, tt.old)), tt.want)
		})
	}
}

// docsSchema is the validation rules example of the Kubernetes documentation
// (tasks/extend-kubernetes/custom-resources/custom-resource-definitions, "Validation
// rules"): a CronTab whose spec keeps minReplicas <= replicas <= maxReplicas.
const docsSchema = `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.minReplicas <= self.replicas"
      message: "replicas should be greater than or equal to minReplicas."
    - rule: "self.replicas <= self.maxReplicas"
      message: "replicas should be smaller than or equal to maxReplicas."
    properties:
      cronSpec:
        type: string
      image:
        type: string
      minReplicas:
        type: integer
      replicas:
        type: integer
      maxReplicas:
        type: integer
    required:
    - minReplicas
    - replicas
    - maxReplicas
`

func TestValidate_DocsExampleCrossFieldRules(t *testing.T) {
	v := mustCompile(t, docsSchema)
	tests := []validateCase{
		{"within bounds", `{spec: {minReplicas: 0, replicas: 5, maxReplicas: 10}}`, "", nil},
		{"above max", `{spec: {minReplicas: 0, replicas: 20, maxReplicas: 10}}`, "", []string{
			`FieldValueInvalid spec: Invalid value: replicas should be smaller than or equal to maxReplicas.`,
		}},
		{"below min and above max", `{spec: {minReplicas: 30, replicas: 20, maxReplicas: 10}}`, "", []string{
			`FieldValueInvalid spec: Invalid value: replicas should be greater than or equal to minReplicas.`,
			`FieldValueInvalid spec: Invalid value: replicas should be smaller than or equal to maxReplicas.`,
		}},
		{"rules do not run where the value is absent", `{kind: CronTab}`, "", nil},
	}
	runCases(t, v, tests)
}

func TestValidate_MessagesFieldPathsAndReasons(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer}
      name: {type: string, maxLength: 10}
      tags:
        type: array
        maxItems: 10
        items: {type: string, maxLength: 10}
    x-kubernetes-validations:
    - rule: "self.replicas < 10"
      messageExpression: "self.name + ' must have fewer than 10 replicas'"
    - rule: "self.replicas != 7"
      fieldPath: ".replicas"
      reason: FieldValueForbidden
      message: "seven is forbidden"
    - rule: "has(self.name)"
      fieldPath: ".name"
      reason: FieldValueRequired
      message: "name is required"
    - rule: "!has(self.tags) || self.tags.size() == 0 || self.tags[0] != 'dup'"
      fieldPath: "['tags']"
      reason: FieldValueDuplicate
    - rule: "self.replicas != 8"
      message: "fallback message"
      messageExpression: "''"
`)
	tests := []validateCase{
		{"messageExpression", `{spec: {replicas: 12, name: web}}`, "", []string{
			`FieldValueInvalid spec: Invalid value: web must have fewer than 10 replicas`,
		}},
		{"forbidden at fieldPath", `{spec: {replicas: 7, name: a}}`, "", []string{
			`FieldValueForbidden spec.replicas: Forbidden: seven is forbidden`,
		}},
		{"required at fieldPath", `{spec: {replicas: 1}}`, "", []string{
			`FieldValueRequired spec.name: Required value: name is required`,
		}},
		{"duplicate omits the list", `{spec: {replicas: 1, name: a, tags: [dup]}}`, "", []string{
			`FieldValueDuplicate spec.tags: Duplicate value`,
		}},
		{"an empty messageExpression falls back to message", `{spec: {replicas: 8, name: a}}`, "", []string{
			`FieldValueInvalid spec: Invalid value: fallback message`,
		}},
	}
	runCases(t, v, tests)
}

func TestValidate_ScalarValueIsEchoedAndRootErrorsHaveNoField(t *testing.T) {
	v := mustCompile(t, `
type: object
x-kubernetes-validations:
- rule: "self.metadata.name.startsWith('a')"
properties:
  spec:
    type: object
    properties:
      size:
        type: integer
        x-kubernetes-validations:
        - rule: "self % 2 == 0"
`)
	got := v.Validate(context.Background(), object(t, `{metadata: {name: bob}, spec: {size: 3}}`), nil)
	assertErrors(t, got, []string{
		`FieldValueInvalid <nil>: Invalid value: failed rule: self.metadata.name.startsWith('a')`,
		`FieldValueInvalid spec.size: Invalid value: 3: failed rule: self % 2 == 0`,
	})
}

func TestValidate_TransitionRules(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    properties:
      mode:
        type: string
        maxLength: 10
        x-kubernetes-validations:
        - rule: "self == oldSelf"
          message: "mode is immutable"
      size:
        type: integer
        x-kubernetes-validations:
        - rule: "!oldSelf.hasValue() || self >= oldSelf.value()"
          optionalOldSelf: true
          message: "size may only grow"
        - rule: "oldSelf.hasValue() || self < 100"
          optionalOldSelf: true
          message: "new objects start below 100"
`)
	tests := []validateCase{
		{"create skips oldSelf rules but runs optionalOldSelf ones", `{spec: {mode: a, size: 100}}`, "", []string{
			`FieldValueInvalid spec.size: Invalid value: 100: new objects start below 100`,
		}},
		{"update keeps mode", `{spec: {mode: a, size: 5}}`, `{spec: {mode: a, size: 5}}`, nil},
		{"update changes mode and shrinks size", `{spec: {mode: b, size: 4}}`, `{spec: {mode: a, size: 5}}`, []string{
			`FieldValueInvalid spec.mode: Invalid value: "b": mode is immutable`,
			`FieldValueInvalid spec.size: Invalid value: 4: size may only grow`,
		}},
		{"a field new on update has no oldSelf", `{spec: {mode: b, size: 500}}`, `{spec: {size: 500}}`, nil},
	}
	runCases(t, v, tests)
}

func TestValidate_CorrelatesListMapItemsByKeyAndMapsByKey(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    items:
      type: object
      required: [name]
      properties:
        name: {type: string}
        port:
          type: integer
      x-kubernetes-validations:
      - rule: "self.port == oldSelf.port"
        message: "port is immutable"
  limits:
    type: object
    additionalProperties:
      type: integer
      x-kubernetes-validations:
      - rule: "self >= oldSelf"
        message: "limits may only grow"
`)
	old := `{ports: [{name: a, port: 1}, {name: b, port: 2}], limits: {cpu: 2, mem: 4}}`
	obj := `{ports: [{name: b, port: 3}, {name: a, port: 1}, {name: c, port: 9}], limits: {cpu: 1, mem: 4, disk: 0}}`
	assertErrors(t, v.Validate(context.Background(), object(t, obj), object(t, old)), []string{
		`FieldValueInvalid limits[cpu]: Invalid value: 1: limits may only grow`,
		`FieldValueInvalid ports[0]: Invalid value: port is immutable`,
	})
}

func TestValidate_LibraryFunctions(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  name:
    type: string
    maxLength: 64
    x-kubernetes-validations:
    - rule: "self.matches('^[a-z][a-z0-9-]*$')"
      message: "must be a lowercase name"
  endpoint:
    type: string
    maxLength: 256
    x-kubernetes-validations:
    - rule: "isURL(self) && url(self).getScheme() == 'https'"
      message: "must be an https URL"
  memory:
    x-kubernetes-int-or-string: true
    x-kubernetes-validations:
    - rule: "isQuantity(string(self)) && quantity(string(self)).isLessThan(quantity('1Gi'))"
      message: "must be a quantity below 1Gi"
  address:
    type: string
    maxLength: 64
    x-kubernetes-validations:
    - rule: "isIP(self) && ip(self).family() == 4"
      message: "must be an IPv4 address"
  hosts:
    type: array
    maxItems: 8
    items: {type: string, maxLength: 63}
    x-kubernetes-validations:
    - rule: "self.all(h, !format.dns1123Label().validate(h).hasValue())"
      message: "must be DNS labels"
    - rule: "self.isSorted()"
      message: "must be sorted"
`)
	valid := `{name: web-1, endpoint: "https://example.com/x", memory: 512Mi, address: 10.0.0.1, hosts: [a, b]}`
	assertErrors(t, v.Validate(context.Background(), object(t, valid), nil), nil)
	invalid := `{name: Web_1, endpoint: "http://example.com", memory: 2Gi, address: "::1", hosts: [b, A_]}`
	assertErrors(t, v.Validate(context.Background(), object(t, invalid), nil), []string{
		`FieldValueInvalid address: Invalid value: "::1": must be an IPv4 address`,
		`FieldValueInvalid endpoint: Invalid value: "http://example.com": must be an https URL`,
		`FieldValueInvalid hosts: Invalid value: must be DNS labels`,
		`FieldValueInvalid hosts: Invalid value: must be sorted`,
		`FieldValueInvalid memory: Invalid value: "2Gi": must be a quantity below 1Gi`,
		`FieldValueInvalid name: Invalid value: "Web_1": must be a lowercase name`,
	})
}

func TestValidate_RatchetsUnchangedValues(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  spec:
    type: object
    properties:
      a: {type: integer, x-kubernetes-validations: [{rule: "self > 0"}]}
      b: {type: integer, x-kubernetes-validations: [{rule: "self > 0"}]}
`)
	old := `{spec: {a: -1, b: -1}}`
	obj := `{spec: {a: -1, b: -2}}`
	assertErrors(t, v.Validate(context.Background(), object(t, obj), object(t, old)), []string{
		`FieldValueInvalid spec.b: Invalid value: -2: failed rule: self > 0`,
	})
}

func TestValidate_RuntimeBudgetAndPerCallLimit(t *testing.T) {
	const schema = `
type: object
properties:
  items:
    type: array
    maxItems: 100
    items: {type: integer}
    x-kubernetes-validations:
    - rule: "self.all(x, x >= 0)"
    - rule: "self.all(x, x < 1000)"
`
	var items []string
	for range 100 {
		items = append(items, "1")
	}
	obj := `{items: [` + strings.Join(items, ",") + `]}`

	v := mustCompile(t, schema, cel.WithRuntimeCostBudget(400))
	assertErrors(t, v.Validate(context.Background(), object(t, obj), nil), []string{
		`FieldValueInvalid items: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run`,
	})

	v = mustCompile(t, schema, cel.WithPerCallLimit(50))
	got := v.Validate(context.Background(), object(t, obj), nil)
	if len(got) != 1 || !strings.Contains(got[0].Detail, "operation cancelled: actual cost limit exceeded") ||
		!strings.HasSuffix(got[0].Detail, "no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, x >= 0)") {
		t.Errorf("per-call limit: got %q", errorStrings(got))
	}
}

func TestCompile_RefusesRulesWithKubeMessages(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{"syntax error", `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations: [{rule: "self.a ==="}]
    properties: {a: {type: integer}}
`, []string{"FieldValueInvalid spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: " +
			`{"Rule":"self.a ===","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:10: Syntax error: token recognition error at: '='` + "\n | self.a ===\n | .........^\n" +
			"ERROR: <input>:1:11: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.a ===\n | ..........^"}},
		{"not a bool", `
type: object
properties:
  a: {type: integer, x-kubernetes-validations: [{rule: "self + 1"}]}
`, []string{"FieldValueInvalid spec.versions[0].schema.openAPIV3Schema.properties[a].x-kubernetes-validations[0].rule: Invalid value: " +
			`{"Rule":"self + 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`}},
		{"messageExpression not a string", `
type: object
properties:
  a: {type: integer, x-kubernetes-validations: [{rule: "self > 1", messageExpression: "self"}]}
`, []string{"FieldValueInvalid spec.versions[0].schema.openAPIV3Schema.properties[a].x-kubernetes-validations[0].messageExpression: Invalid value: " +
			`{"Rule":"self \u003e 1","Message":"","MessageExpression":"self","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string`}},
		{"oldSelf under a set", `
type: object
properties:
  tags:
    type: array
    x-kubernetes-list-type: set
    items: {type: string, maxLength: 5, x-kubernetes-validations: [{rule: "self == oldSelf"}]}
`, []string{`FieldValueInvalid spec.versions[0].schema.openAPIV3Schema.properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.versions[0].schema.openAPIV3Schema.properties[tags]`}},
		{"optionalOldSelf without oldSelf", `
type: object
properties:
  a: {type: integer, x-kubernetes-validations: [{rule: "self > 1", optionalOldSelf: true}]}
`, []string{`FieldValueInvalid spec.versions[0].schema.openAPIV3Schema.properties[a].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`}},
		{"estimated cost over the limit", `
type: object
properties:
  list:
    type: array
    items: {type: string}
    x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x == y))"}]
`, []string{
			"FieldValueForbidden spec.versions[0].schema.openAPIV3Schema.properties[list].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
			"FieldValueForbidden spec.versions[0].schema.openAPIV3Schema.properties[list].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			"FieldValueForbidden spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, errs := compileRules(t, tt.schema)
			if v != nil {
				t.Errorf("Compile returned a validator with errors %v", errs)
			}
			assertErrors(t, errs, tt.want)
		})
	}
}

func TestCompile_SchemaWithoutRulesValidatesNothing(t *testing.T) {
	v := mustCompile(t, `{type: object, properties: {a: {type: integer}}}`)
	if errs := v.Validate(context.Background(), map[string]any{"a": int64(1)}, nil); len(errs) > 0 {
		t.Errorf("got %v", errs)
	}
}

func TestCompile_MaxItemsBringsTheEstimateUnderTheLimit(t *testing.T) {
	_, errs := compileRules(t, `
type: object
properties:
  list:
    type: array
    maxItems: 10
    items: {type: string, maxLength: 10}
    x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x == y))"}]
`)
	assertErrors(t, errs, nil)
}

func TestValidate_EmbeddedResourceAndPreservedFields(t *testing.T) {
	v := mustCompile(t, `
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
    x-kubernetes-validations:
    - rule: "self.kind == 'Pod' && self.metadata.name != ''"
      message: "must be a named Pod"
`)
	assertErrors(t, v.Validate(context.Background(), object(t, `{template: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {}}}`), nil), nil)
	assertErrors(t, v.Validate(context.Background(), object(t, `{template: {apiVersion: v1, kind: Service, metadata: {name: p}}}`), nil), []string{
		`FieldValueInvalid template: Invalid value: must be a named Pod`,
	})
}
