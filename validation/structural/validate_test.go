package structural

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// cronTabSchema is the CronTab of the Kubernetes documentation ("Extend the Kubernetes
// API with CustomResourceDefinitions", validation section), with a few more fields.
const cronTabSchema = `{"type":"object","properties":{
	"metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":10}}},
	"spec":{"type":"object","required":["cronSpec"],"properties":{
		"cronSpec":{"type":"string","pattern":"^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
		"image":{"type":"string"},
		"replicas":{"type":"integer","minimum":1,"maximum":10},
		"mode":{"type":"string","enum":["Auto","Manual"]},
		"port":{"x-kubernetes-int-or-string":true},
		"title":{"type":"string","maxLength":3,"minLength":2},
		"ratio":{"type":"number","multipleOf":0.5,"exclusiveMaximum":true,"maximum":2},
		"owner":{"type":"string","format":"email"},
		"labels":{"type":"object","additionalProperties":{"type":"string","maxLength":2}},
		"tags":{"type":"array","maxItems":2,"uniqueItems":true,"items":{"type":"string"}},
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
			"items":{"type":"object","properties":{"name":{"type":"string"}}}},
		"note":{"type":"string","nullable":true},
		"either":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},
			"oneOf":[{"required":["a"]},{"required":["b"]}]},
		"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}
	}}}}`

func compileJSON(t *testing.T, schemaJSON string) *Schema {
	t.Helper()
	var s openapi.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		t.Fatal(err)
	}
	// The value validator alone: these schemas use keywords (uniqueItems, list-map keys
	// without defaults) that a CRD's structural check refuses but kube-openapi validates.
	v, errs := newValidator(&s, validation.NewPath("openAPIV3Schema"))
	if len(errs) > 0 {
		t.Fatalf("newValidator: %v", errs)
	}
	return &Schema{root: &s, v: v}
}

func TestValidate_ReportsKubeErrorsPerField(t *testing.T) {
	s := compileJSON(t, cronTabSchema)
	tests := []struct {
		name string
		spec string
		want []string // "reason field: message", in order
	}{
		{"valid", `{"cronSpec":"* * * * */5","replicas":5,"mode":"Auto","port":"http","note":null}`, nil},
		{"documentation example: pattern and maximum",
			`{"cronSpec":"* * * *","image":"my-awesome-cron-image","replicas":15}`,
			[]string{
				`FieldValueInvalid spec.cronSpec: Invalid value: "* * * *": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'`,
				`FieldValueInvalid spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10`,
			}},
		{"missing required field", `{"image":"x"}`,
			[]string{`FieldValueRequired spec.cronSpec: Required value`}},
		{"wrong type names the JSON type", `{"cronSpec":"* * * * *","replicas":"three"}`,
			[]string{`FieldValueTypeInvalid spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`}},
		{"integral float passes as integer", `{"cronSpec":"* * * * *","replicas":3.0}`, nil},
		{"null for a non-nullable field", `{"cronSpec":"* * * * *","image":null}`,
			[]string{`FieldValueTypeInvalid spec.image: Invalid value: "null": spec.image in body must be of type string: "null"`}},
		{"enum", `{"cronSpec":"* * * * *","mode":"auto"}`,
			[]string{`FieldValueNotSupported spec.mode: Unsupported value: "auto": supported values: "Auto", "Manual"`}},
		{"int-or-string", `{"cronSpec":"* * * * *","port":true}`,
			[]string{`FieldValueTypeInvalid spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`}},
		{"maxLength counts characters, reported as bytes", `{"cronSpec":"* * * * *","title":"éééé"}`,
			[]string{`FieldValueTooLong spec.title: Too long: may not be more than 3 bytes`}},
		{"maxLength hides minLength and pattern", `{"cronSpec":"* * * * *","title":"a"}`,
			[]string{`FieldValueInvalid spec.title: Invalid value: "a": spec.title in body should be at least 2 chars long`}},
		{"multipleOf and exclusiveMaximum", `{"cronSpec":"* * * * *","ratio":2.25}`,
			[]string{
				`FieldValueInvalid spec.ratio: Invalid value: 2.25: spec.ratio in body should be a multiple of 0.5`,
				`FieldValueInvalid spec.ratio: Invalid value: 2.25: spec.ratio in body should be less than 2`,
			}},
		{"format", `{"cronSpec":"* * * * *","owner":"nobody"}`,
			[]string{`FieldValueTypeInvalid spec.owner: Invalid value: "nobody": spec.owner in body must be of type email: "nobody"`}},
		{"additional properties are named with a dot", `{"cronSpec":"* * * * *","labels":{"a.b":"long"}}`,
			[]string{`FieldValueTooLong spec.labels.a.b: Too long: may not be more than 2 bytes`}},
		{"maxItems and uniqueItems", `{"cronSpec":"* * * * *","tags":["a","b","a"]}`,
			[]string{
				`FieldValueTooMany spec.tags: Too many: 3: must have at most 2 items`,
				`FieldValueInvalid spec.tags: Invalid value: "": spec.tags in body shouldn't contain duplicates`,
			}},
		{"list map keys are unique", `{"cronSpec":"* * * * *","ports":[{"name":"http"},{"name":"http"}]}`,
			[]string{`FieldValueDuplicate spec.ports[1]: Duplicate value: {"name":"http"}`}},
		{"oneOf reports without a field", `{"cronSpec":"* * * * *","either":{"a":"x","b":"y"}}`,
			[]string{`FieldValueInvalid <nil>: Invalid value: "": "spec.either" must validate one and only one schema (oneOf). Found 2 valid alternatives`}},
		{"embedded resource", `{"cronSpec":"* * * * *","template":{"kind":"my_pod","metadata":{"name":"a/b"}}}`,
			[]string{
				`FieldValueRequired spec.template.apiVersion: Required value`,
				`FieldValueInvalid spec.template.kind: Invalid value: "my_pod": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
				`FieldValueInvalid spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spec any
			if err := json.Unmarshal([]byte(tt.spec), &spec); err != nil {
				t.Fatal(err)
			}
			obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
				"metadata": map[string]any{"name": "my-cron"}, "spec": normalizeJSONNumbers(spec)}
			var got []string
			for _, e := range s.Validate(obj) {
				got = append(got, string(e.Type)+" "+e.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

// normalizeJSONNumbers turns encoding/json's float64s into int64 where integral, as
// apikit's and Kubernetes' decoders do, except 3.0 written with a fraction.
func normalizeJSONNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalizeJSONNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalizeJSONNumbers(e)
		}
	case float64:
		if t == float64(int64(t)) && t != 3.0 {
			return int64(t)
		}
	}
	return v
}

func TestValidate_RootMetadataOnlyAsTheSchemaConstrainsIt(t *testing.T) {
	s := compileJSON(t, cronTabSchema)
	obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "a-name-longer-than-ten", "labels": map[string]any{"bad key!": "x"}},
		"spec":     map[string]any{"cronSpec": "* * * * *"}}
	got := s.Validate(obj)
	want := `metadata.name: Too long: may not be more than 10 bytes`
	if len(got) != 1 || got[0].Error() != want {
		t.Errorf("got %v, want only %q (labels are ObjectMeta validation's, not the schema's)", got, want)
	}
}

func TestCompile_RefusesAnInvalidPattern(t *testing.T) {
	var s openapi.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string","pattern":"^(a"}}}}}`), &s); err != nil {
		t.Fatal(err)
	}
	_, errs := Compile(&s, validation.NewPath("openAPIV3Schema"))
	want := "openAPIV3Schema.properties[spec].properties[a].pattern: Invalid value: \"^(a\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `^(a`"
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("got %v, want %q", errs, want)
	}
}

func TestFormats_FollowKubeOpenAPI(t *testing.T) {
	tests := []struct {
		format, value string
		valid         bool
	}{
		{"ipv4", "010.1.1.1", true}, // Go 1.16's sloppy parser, kept by kube
		{"ipv4", "256.1.1.1", false},
		{"ipv4", "::ffff:1.2.3.4", true},
		{"ipv6", "::1", true},
		{"ipv6", "1.2.3.4", false},
		{"cidr", "10.0.0.0/08", true},
		{"cidr", "10.0.0.0/33", false},
		{"date-time", "2024-01-01t10:00:00.5+02:00", true},
		{"datetime", "2024-01-01T24:00:00Z", false},
		{"duration", "3 days", true},
		{"duration", "2 fortnights", false},
		{"uuid", "123E4567E89B12D3A456426614174000", true},
		{"byte", "aGk=", true},
		{"byte", "aGk", false},
		{"k8s-short-name", "My-Name", false},
		{"hostname", "ünïcode.de", true},
	}
	for _, tt := range tests {
		check := formatCheckers[normalizeFormat(tt.format)]
		if check == nil || check(tt.value) != tt.valid {
			t.Errorf("format %s, %q: want valid=%v", tt.format, tt.value, tt.valid)
		}
	}
	if supportedFormat("uuid", []string{"integer"}) != "" || supportedFormat("not-a-format", []string{"string"}) != "" {
		t.Error("formats kube strips must not be validated")
	}
}
