package rest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// crdWidgetSchema is a schema-only kind's schema in the form controller-gen writes a
// CRD's openAPIV3Schema (descriptions, apiVersion/kind/metadata, spec and status), with
// an enum, an int32 range, a required field, nested and array-item defaults and an
// object defaulted to {} whose own field has a default.
const crdWidgetSchema = `{
  "description": "Widget is the Schema for the widgets API.",
  "type": "object",
  "properties": {
    "apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
    "kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
    "metadata": {"type": "object"},
    "spec": {
      "description": "WidgetSpec defines the desired state of Widget.",
      "type": "object",
      "required": ["size"],
      "properties": {
        "size": {"type": "integer"},
        "color": {"type": "string", "enum": ["red", "green", "blue"], "default": "blue"},
        "replicas": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 10, "default": 1},
        "parts": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["name"],
            "properties": {
              "name": {"type": "string", "maxLength": 8},
              "count": {"type": "integer", "default": 1}
            }
          }
        },
        "template": {"type": "object", "default": {}, "properties": {"tier": {"type": "string", "default": "web"}}}
      }
    },
    "status": {
      "description": "WidgetStatus defines the observed state of Widget.",
      "type": "object",
      "properties": {
        "phase": {"type": "string", "enum": ["Pending", "Ready"]},
        "ready": {"type": "boolean"}
      }
    }
  }
}`

const (
	crdGroup     = "crd.example.com"
	crdPath      = "/apis/crd.example.com/v1/namespaces/default/widgets"
	crdBetaPath  = "/apis/crd.example.com/v1beta1/namespaces/default/widgets"
	crdDeprecate = "crd.example.com/v1beta1 Widget is deprecated; use crd.example.com/v1 Widget"
)

var crdWidgetsGR = scheme.GroupResource{Group: crdGroup, Resource: "widgets"}

// crdSchema parses a schema written as JSON.
func crdSchema(t testing.TB, doc string) *openapi.Schema {
	t.Helper()
	var s openapi.Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// addCRDWidgets registers Widget in crd.example.com, served at v1 (stored) and at the
// deprecated v1beta1, with schema, as a CRD would (openapi.Register per version).
func addCRDWidgets(t testing.TB, s *scheme.Scheme, schema *openapi.Schema) {
	t.Helper()
	for _, v := range []string{"v1", "v1beta1"} {
		gv := scheme.GroupVersion{Group: crdGroup, Version: v}
		openapi.Register(s, gv.WithKind("Widget"), schema)
		s.AddUnstructuredKind(gv.WithKind("WidgetList"))
	}
	if err := s.AddResource(scheme.Resource{
		Group: crdGroup, Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget",
		Namespaced: true, StatusSubresource: true, StorageVersion: "v1",
		Deprecations: map[string]string{"v1beta1": ""},
	}); err != nil {
		t.Fatal(err)
	}
}

// newCRDServer serves the test scheme plus the schema-only Widget of crdWidgetSchema.
func newCRDServer(t testing.TB, mod func(*rest.Options)) *testServer {
	t.Helper()
	return newServer(t, func(o *rest.Options) {
		addCRDWidgets(t, o.Scheme, crdSchema(t, crdWidgetSchema))
		if mod != nil {
			mod(o)
		}
	})
}

func crdWidgetJSON(name, spec string, more ...string) string {
	doc := `{"apiVersion":"crd.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec
	for _, m := range more {
		doc += "," + m
	}
	return doc + "}"
}

// warnings returns the texts of a response's Warning headers.
func warnings(h http.Header) []string {
	var out []string
	for _, w := range h.Values("Warning") {
		text, err := unquoteWarning(w)
		if err != nil {
			out = append(out, w)
			continue
		}
		out = append(out, text)
	}
	return out
}

func unquoteWarning(w string) (string, error) {
	_, quoted, _ := strings.Cut(w, "299 - ")
	var s string
	err := json.Unmarshal([]byte(quoted), &s)
	return s, err
}

// causes returns "field|reason|message" for each cause of a Status, sorted.
func causes(st map[string]any) []string {
	list, _ := get(st, "details", "causes").([]any)
	out := make([]string, 0, len(list))
	for _, c := range list {
		m := c.(map[string]any)
		out = append(out, m["field"].(string)+"|"+m["reason"].(string)+"|"+m["message"].(string))
	}
	slices.Sort(out)
	return out
}

// The issue's case, exactly: an out-of-enum value, a string where an integer belongs
// and an unknown field, sent with fieldValidation=Strict, were stored with 201.
func TestCRD_IssueCaseUnderStrictIs400ForTheUnknownFieldAndStoresNothing(t *testing.T) {
	s := newCRDServer(t, nil)
	body := crdWidgetJSON("w", `{"size":1,"color":"pink","replicas":"three","foo":1}`)
	r := s.do("POST", crdPath+"?fieldValidation=Strict", "application/json", body)
	st := r.json(t)
	if r.code != http.StatusBadRequest || st["reason"] != "BadRequest" || st["message"] != `strict decoding error: unknown field "spec.foo"` {
		t.Fatalf("got %d %s", r.code, r.body)
	}
	if r := s.do("GET", crdPath+"/w", "", ""); r.code != http.StatusNotFound {
		t.Errorf("the refused object was stored: GET %d %s", r.code, r.body)
	}
}

func TestCRD_InvalidValuesAre422WithKubesMessageAndOneCausePerField(t *testing.T) {
	s := newCRDServer(t, nil)
	body := crdWidgetJSON("w", `{"size":1,"color":"pink","replicas":"three","foo":1}`)
	r := s.do("POST", crdPath, "application/json", body)
	st := r.json(t)
	// kube-apiserver's answer to the same body (apiextensions-apiserver v0.37.2).
	wantMsg := `Widget.crd.example.com "w" is invalid: [spec.color: Unsupported value: "pink": supported values: "red", "green", "blue", spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"]`
	if r.code != http.StatusUnprocessableEntity || st["reason"] != "Invalid" || st["message"] != wantMsg {
		t.Fatalf("got %d %s\nwant message %s", r.code, r.body, wantMsg)
	}
	wantCauses := []string{
		`spec.color|FieldValueNotSupported|Unsupported value: "pink": supported values: "red", "green", "blue"`,
		`spec.replicas|FieldValueTypeInvalid|Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
	}
	if got := causes(st); !slices.Equal(got, wantCauses) {
		t.Errorf("causes:\n%q\nwant\n%q", got, wantCauses)
	}
	if got := get(st, "details", "group"); got != crdGroup {
		t.Errorf("details.group = %v", got)
	}
	// Warn is the default: the unknown field is reported, not fatal.
	if w := warnings(r.header); !slices.Contains(w, `unknown field "spec.foo"`) {
		t.Errorf("warnings = %q", w)
	}
	if r := s.do("GET", crdPath+"/w", "", ""); r.code != http.StatusNotFound {
		t.Errorf("the invalid object was stored: GET %d %s", r.code, r.body)
	}
}

func TestCRD_EveryFailingFieldIsACause(t *testing.T) {
	s := newCRDServer(t, nil)
	body := crdWidgetJSON("w", `{"color":"pink","replicas":20,"parts":[{"count":2},{"name":"waytoolongname"}]}`)
	r := s.do("POST", crdPath, "application/json", body)
	if r.code != http.StatusUnprocessableEntity {
		t.Fatalf("got %d %s", r.code, r.body)
	}
	// What kube-apiserver answers for the same object (its causes, sorted).
	want := []string{
		`spec.color|FieldValueNotSupported|Unsupported value: "pink": supported values: "red", "green", "blue"`,
		`spec.parts[0].name|FieldValueRequired|Required value`,
		`spec.parts[1].name|FieldValueTooLong|Too long: may not be more than 8 bytes`,
		`spec.replicas|FieldValueInvalid|Invalid value: 20: spec.replicas in body should be less than or equal to 10`,
		`spec.size|FieldValueRequired|Required value`,
	}
	if got := causes(r.json(t)); !slices.Equal(got, want) {
		t.Errorf("causes:\n%q\nwant\n%q", got, want)
	}
}

func TestCRD_UnknownFieldsArePrunedAndReportedPerFieldValidation(t *testing.T) {
	body := func(name string) string {
		return crdWidgetJSON(name, `{"size":1,"parts":[{"name":"a","extra":1}]}`, `"top":1`)
	}
	unknown := []string{`unknown field "spec.parts[0].extra"`, `unknown field "top"`}
	tests := []struct {
		mode         string
		wantCode     int
		wantWarnings []string
	}{
		{"", http.StatusCreated, unknown},
		{"Warn", http.StatusCreated, unknown},
		{"Ignore", http.StatusCreated, nil},
		{"Strict", http.StatusBadRequest, nil},
	}
	s := newCRDServer(t, nil)
	for i, tt := range tests {
		t.Run("mode="+tt.mode, func(t *testing.T) {
			name := "w" + string(rune('a'+i))
			r := s.do("POST", crdPath+"?fieldValidation="+tt.mode, "application/json", body(name))
			if r.code != tt.wantCode {
				t.Fatalf("got %d %s", r.code, r.body)
			}
			if tt.mode == "Strict" {
				msg, _ := r.json(t)["message"].(string)
				for _, u := range unknown {
					if !strings.Contains(msg, u) || !strings.HasPrefix(msg, "strict decoding error: ") {
						t.Errorf("message %q does not list %s", msg, u)
					}
				}
				return
			}
			got := warnings(r.header)
			slices.Sort(got)
			if !slices.Equal(got, tt.wantWarnings) {
				t.Errorf("warnings = %q, want %q", got, tt.wantWarnings)
			}
			stored := s.do("GET", crdPath+"/"+name, "", "").json(t)
			if _, ok := stored["top"]; ok {
				t.Errorf("top was stored: %v", stored)
			}
			if part := get(stored, "spec", "parts").([]any)[0].(map[string]any); part["extra"] != nil {
				t.Errorf("spec.parts[0].extra was stored: %v", part)
			}
		})
	}
}

// crdDefaulted is what a Widget whose spec is {"size":1,"parts":[{"name":"a"}]} becomes
// with the schema's defaults.
var crdDefaulted = map[string]any{
	"size": float64(1), "color": "blue", "replicas": float64(1),
	"parts":    []any{map[string]any{"name": "a", "count": float64(1)}},
	"template": map[string]any{"tier": "web"},
}

func TestCRD_DefaultsAreAppliedOnCreateAndVisibleOnGet(t *testing.T) {
	s := newCRDServer(t, nil)
	r := s.do("POST", crdPath, "application/json", crdWidgetJSON("w", `{"size":1,"parts":[{"name":"a"}]}`))
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if got := get(r.json(t), "spec"); !reflect.DeepEqual(got, crdDefaulted) {
		t.Errorf("created spec = %v, want %v", got, crdDefaulted)
	}
	if got := get(s.do("GET", crdPath+"/w", "", "").json(t), "spec"); !reflect.DeepEqual(got, crdDefaulted) {
		t.Errorf("read spec = %v, want %v", got, crdDefaulted)
	}
	// The stored object holds the defaults: they were set before it was written.
	stored, err := s.store.Get(context.Background(), storage.Key(crdWidgetsGR, "default", "w"), storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, stored.(*scheme.Unstructured).Object["spec"]); !reflect.DeepEqual(got, crdDefaulted) {
		t.Errorf("stored spec = %v, want %v", got, crdDefaulted)
	}
}

// storeOldWidget writes a Widget straight into the store, as one written before the
// schema had its defaults (and with a field the schema no longer declares).
func storeOldWidget(t *testing.T, s *testServer, name string) {
	t.Helper()
	u := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "crd.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": "default", "uid": "u-" + name, "generation": int64(1)},
		"spec":     map[string]any{"size": int64(1), "parts": []any{map[string]any{"name": "a"}}, "retired": true},
	}}
	if _, err := s.store.Create(context.Background(), storage.Key(crdWidgetsGR, "default", name), u); err != nil {
		t.Fatal(err)
	}
}

func TestCRD_ObjectsStoredBeforeTheDefaultsAreReadDefaultedAndPruned(t *testing.T) {
	s := newCRDServer(t, nil)
	storeOldWidget(t, s, "old")
	check := func(what string, spec any) {
		t.Helper()
		if !reflect.DeepEqual(spec, crdDefaulted) {
			t.Errorf("%s: spec = %v, want %v", what, spec, crdDefaulted)
		}
	}
	check("get", get(s.do("GET", crdPath+"/old", "", "").json(t), "spec"))
	items, _ := s.do("GET", crdPath, "", "").json(t)["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("list items = %v", items)
	}
	check("list", get(items[0].(map[string]any), "spec"))
	check("get at v1beta1", get(s.do("GET", crdBetaPath+"/old", "", "").json(t), "spec"))

	r, err := http.Get(s.url + crdPath + "?watch=true&timeoutSeconds=1")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var ev struct {
		Type   string         `json:"type"`
		Object map[string]any `json:"object"`
	}
	line, err := bufio.NewReader(r.Body).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatal(err)
	}
	check("watch "+ev.Type, get(ev.Object, "spec"))

	// The store keeps what was written: reads default a copy.
	stored, err := s.store.Get(context.Background(), storage.Key(crdWidgetsGR, "default", "old"), storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := stored.(*scheme.Unstructured).Object["spec"].(map[string]any)
	if _, ok := spec["color"]; ok || spec["retired"] != true {
		t.Errorf("a read changed the stored object: %v", spec)
	}
}

func TestCRD_UpdatesStartFromTheDefaultedStoredObject(t *testing.T) {
	s := newCRDServer(t, nil)
	storeOldWidget(t, s, "old")
	// A metadata-only patch does not change the spec: the defaults read from storage
	// are no spec change, so the generation stays.
	r := s.do("PATCH", crdPath+"/old", mergeCT, `{"metadata":{"labels":{"a":"b"}}}`)
	if r.code != http.StatusOK {
		t.Fatalf("patch: %d %s", r.code, r.body)
	}
	m := r.json(t)
	if !reflect.DeepEqual(get(m, "spec"), crdDefaulted) {
		t.Errorf("patched spec = %v", get(m, "spec"))
	}
	if g := get(m, "metadata", "generation"); g != float64(1) {
		t.Errorf("generation = %v, want 1", g)
	}
}

func TestCRD_PatchesArePrunedDefaultedAndValidated(t *testing.T) {
	s := newCRDServer(t, nil)
	if r := s.do("POST", crdPath, "application/json", crdWidgetJSON("w", `{"size":1,"color":"red"}`)); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	tests := []struct {
		name, contentType, query, body string
		wantCode                       int
		check                          func(t *testing.T, r response)
	}{
		{"json patch removing a defaulted field gets the default back", jsonPatchCT, "", `[{"op":"remove","path":"/spec/color"}]`, 200,
			func(t *testing.T, r response) {
				if c := get(r.json(t), "spec", "color"); c != "blue" {
					t.Errorf("color = %v", c)
				}
			}},
		{"merge patch with an unknown field warns and prunes it", mergeCT, "", `{"spec":{"foo":1}}`, 200,
			func(t *testing.T, r response) {
				if w := warnings(r.header); !slices.Contains(w, `unknown field "spec.foo"`) {
					t.Errorf("warnings = %q", w)
				}
				if f := get(r.json(t), "spec", "foo"); f != nil {
					t.Errorf("spec.foo = %v", f)
				}
			}},
		{"merge patch with an unknown field under Strict", mergeCT, "?fieldValidation=Strict", `{"spec":{"foo":1}}`, 400,
			func(t *testing.T, r response) {
				if msg := r.json(t)["message"]; msg != `strict decoding error: unknown field "spec.foo"` {
					t.Errorf("message = %v", msg)
				}
			}},
		{"merge patch with an invalid value", mergeCT, "", `{"spec":{"replicas":11}}`, 422,
			func(t *testing.T, r response) {
				want := []string{`spec.replicas|FieldValueInvalid|Invalid value: 11: spec.replicas in body should be less than or equal to 10`}
				if got := causes(r.json(t)); !slices.Equal(got, want) {
					t.Errorf("causes = %q", got)
				}
			}},
		{"apply without a defaulted field gets the default", applyCT, "?fieldManager=m&force=true",
			"apiVersion: crd.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 2\n  parts:\n  - name: b\n", 200,
			func(t *testing.T, r response) {
				m := r.json(t)
				if p := get(m, "spec", "parts").([]any)[0]; !reflect.DeepEqual(p, map[string]any{"name": "b", "count": float64(1)}) {
					t.Errorf("parts[0] = %v", p)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do("PATCH", crdPath+"/w"+tt.query, tt.contentType, tt.body)
			if r.code != tt.wantCode {
				t.Fatalf("got %d %s", r.code, r.body)
			}
			tt.check(t, r)
		})
	}
}

func TestCRD_StatusWritesValidateTheStatus(t *testing.T) {
	s := newCRDServer(t, nil)
	r := s.do("POST", crdPath, "application/json", crdWidgetJSON("w", `{"size":1}`))
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r = s.do("PATCH", crdPath+"/w/status", mergeCT, `{"status":{"phase":"Gone"}}`)
	want := []string{`status.phase|FieldValueNotSupported|Unsupported value: "Gone": supported values: "Pending", "Ready"`}
	if got := causes(r.json(t)); r.code != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("got %d %s", r.code, r.body)
	}
	if r = s.do("PATCH", crdPath+"/w/status", mergeCT, `{"status":{"phase":"Ready"}}`); r.code != http.StatusOK {
		t.Errorf("valid status: %d %s", r.code, r.body)
	}
}

// recordingRules is a structural.RuleCompiler standing in for package cel: its one
// rule says spec.size may not decrease (a transition rule, self >= oldSelf).
type recordingRules struct {
	mu       sync.Mutex
	compiled int
	calls    [][2]any // (new size, old size or nil)
}

func (c *recordingRules) Compile(*structural.Schema, *validation.Path) (structural.RuleValidator, validation.ErrorList) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.compiled++
	return c, nil
}

func (c *recordingRules) Validate(_ context.Context, obj, old map[string]any) validation.ErrorList {
	size, _ := scheme.NestedField(obj, "spec", "size")
	var oldSize any
	if old != nil {
		oldSize, _ = scheme.NestedField(old, "spec", "size")
	}
	c.mu.Lock()
	c.calls = append(c.calls, [2]any{size, oldSize})
	c.mu.Unlock()
	if n, ok := size.(int64); ok && oldSize != nil && n < oldSize.(int64) {
		return validation.ErrorList{validation.Invalid(validation.NewPath("spec", "size"), n, "may not decrease")}
	}
	return nil
}

const crdRuleSchema = `{"type":"object","properties":{"spec":{"type":"object",
  "x-kubernetes-validations":[{"rule":"self.size >= oldSelf.size","message":"may not decrease"}],
  "properties":{"size":{"type":"integer"},"color":{"type":"string","enum":["red","blue"]}}}}}`

func newRuleServer(t *testing.T, rules structural.RuleCompiler) *testServer {
	return newServer(t, func(o *rest.Options) {
		addCRDWidgets(t, o.Scheme, crdSchema(t, crdRuleSchema))
		o.Rules = rules
	})
}

func TestCRD_RulesRunOnCreateAndWithTheOldObjectOnUpdate(t *testing.T) {
	rules := &recordingRules{}
	s := newRuleServer(t, rules)
	if rules.compiled != 2 {
		t.Errorf("rules compiled %d times, want once per served version (2)", rules.compiled)
	}
	if r := s.do("POST", crdPath, "application/json", crdWidgetJSON("w", `{"size":3}`)); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r := s.do("PATCH", crdPath+"/w", mergeCT, `{"spec":{"size":2}}`)
	want := []string{`spec.size|FieldValueInvalid|Invalid value: 2: may not decrease`}
	if got := causes(r.json(t)); r.code != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("decrease: %d %s", r.code, r.body)
	}
	if r := s.do("PATCH", crdPath+"/w", mergeCT, `{"spec":{"size":4}}`); r.code != http.StatusOK {
		t.Errorf("increase: %d %s", r.code, r.body)
	}
	wantCalls := [][2]any{{int64(3), nil}, {int64(2), int64(3)}, {int64(4), int64(3)}}
	if !reflect.DeepEqual(rules.calls, wantCalls) {
		t.Errorf("rule calls (new, old) = %v, want %v", rules.calls, wantCalls)
	}
}

func TestCRD_SchemaErrorsThatBlockRulesSkipThemWithKubesError(t *testing.T) {
	rules := &recordingRules{}
	s := newRuleServer(t, rules)
	r := s.do("POST", crdPath, "application/json", crdWidgetJSON("w", `{"size":3,"color":"pink"}`))
	want := []string{
		`<nil>|FieldValueInvalid|Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
		`spec.color|FieldValueNotSupported|Unsupported value: "pink": supported values: "red", "blue"`,
	}
	if got := causes(r.json(t)); r.code != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
		t.Errorf("got %d %s", r.code, r.body)
	}
	if len(rules.calls) != 0 {
		t.Errorf("rules ran on an object with blocking errors: %v", rules.calls)
	}
}

func TestNew_RefusesSchemaRulesWithoutARuleCompiler(t *testing.T) {
	s := scheme.New()
	addCRDWidgets(t, s, crdSchema(t, crdRuleSchema))
	_, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: newMemoryStore(t)})
	if err == nil {
		t.Fatal("New accepted CEL rules it cannot evaluate")
	}
	for _, want := range []string{"Widget.crd.example.com", "x-kubernetes-validations", "openAPIV3Schema.properties[spec]", "Options.Rules", "cel.New()", "github.com/apikit-dev/apikit/cel"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// Depends on structural.Compile's structural checks (helper "structprune").
func TestNew_RefusesANonStructuralSchemaNamingTheKind(t *testing.T) {
	s := scheme.New()
	addCRDWidgets(t, s, crdSchema(t, `{"type":"object","properties":{"spec":{"properties":{"size":{"type":"integer"}}}}}`))
	_, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: newMemoryStore(t)})
	if err == nil || !strings.Contains(err.Error(), "Widget.crd.example.com") {
		t.Fatalf("err = %v", err)
	}
}

func TestCRD_DeprecatedVersionsWarnOnEveryVerb(t *testing.T) {
	s := newCRDServer(t, nil)
	beta := strings.ReplaceAll(crdWidgetJSON("w", `{"size":1}`), "crd.example.com/v1", "crd.example.com/v1beta1")
	requests := []struct{ method, path, contentType, body string }{
		{"POST", crdBetaPath, "application/json", beta},
		{"GET", crdBetaPath + "/w", "", ""},
		{"GET", crdBetaPath, "", ""},
		{"PATCH", crdBetaPath + "/w", mergeCT, `{"spec":{"size":2}}`},
		{"GET", crdBetaPath + "/missing", "", ""},
		{"DELETE", crdBetaPath + "/w", "", ""},
	}
	for _, rq := range requests {
		r := s.do(rq.method, rq.path, rq.contentType, rq.body)
		if w := warnings(r.header); !slices.Equal(w, []string{crdDeprecate}) {
			t.Errorf("%s %s (%d): warnings = %q, want %q", rq.method, rq.path, r.code, w, crdDeprecate)
		}
	}
	if w := s.do("GET", crdPath, "", "").header.Values("Warning"); len(w) != 0 {
		t.Errorf("v1 is not deprecated but warns %q", w)
	}
}

func TestCRD_DeprecationWarningTextIsTheResourcesOwn(t *testing.T) {
	s := newServer(t, func(o *rest.Options) {
		addCRDWidgets(t, o.Scheme, crdSchema(t, crdWidgetSchema))
		res, _ := o.Scheme.Resource(crdWidgetsGR)
		res.Deprecations["v1beta1"] = "v1beta1 widgets go away in 2027"
	})
	if w := warnings(s.do("GET", crdBetaPath, "", "").header); !slices.Equal(w, []string{"v1beta1 widgets go away in 2027"}) {
		t.Errorf("warnings = %q", w)
	}
}

func newMemoryStore(t testing.TB) storage.Interface {
	st := memory.New(memory.Options{})
	t.Cleanup(st.Close)
	return st
}

// asJSON returns v as encoding/json reads it back (numbers as float64).
func asJSON(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
