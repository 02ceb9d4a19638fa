package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

func TestJSONSerializer_DecodeFindsTheKind(t *testing.T) {
	s := NewJSON(testScheme())
	widget := widgetGV.WithKind("Widget")
	tests := []struct {
		name      string
		doc       string
		defaults  *scheme.GroupVersionKind
		into      scheme.Kinded
		wantGVK   scheme.GroupVersionKind
		wantType  string
		wantIssue []string
	}{
		{"kind from the body", `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"color":"red"}}`, nil, nil, widget, "*codec.Widget", nil},
		{"apiVersion and kind after other fields", `{"spec":{"color":"red"},"kind":"Widget","apiVersion":"example.com/v1"}`, nil, nil, widget, "*codec.Widget", nil},
		{"kind defaulted", `{"apiVersion":"example.com/v1"}`, &widget, nil, widget, "*codec.Widget", nil},
		{"group and version defaulted", `{"kind":"Widget"}`, &widget, nil, widget, "*codec.Widget", nil},
		{"everything defaulted", `{"spec":{}}`, &widget, nil, widget, "*codec.Widget", nil},
		{"defaults from into", `{"spec":{}}`, nil, &Widget{}, widget, "*codec.Widget", nil},
		{"list kind", `{"apiVersion":"example.com/v1","kind":"WidgetList","items":[{"spec":{"color":"a"}}]}`, nil, nil, widgetGV.WithKind("WidgetList"), "*codec.WidgetList", nil},
		{"schema-only kind is unstructured", `{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"anything":1}}`, nil, nil, widgetGV.WithKind("Gadget"), "*scheme.Unstructured", nil},
		{"schema-only list kind", `{"apiVersion":"example.com/v1","kind":"GadgetList","items":[{"a":1}]}`, nil, nil, widgetGV.WithKind("GadgetList"), "*scheme.UnstructuredList", nil},
		{"unstructured into accepts any kind", `{"apiVersion":"other.io/v2","kind":"Thing","x":1}`, nil, &scheme.Unstructured{}, scheme.GroupVersionKind{Group: "other.io", Version: "v2", Kind: "Thing"}, "*scheme.Unstructured", nil},
		{"into of another kind is replaced", `{"apiVersion":"example.com/v1","kind":"WidgetList"}`, nil, &Widget{}, widgetGV.WithKind("WidgetList"), "*codec.WidgetList", nil},
		{"issues come back", `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"Color":"x","color":"a","color":"b"}}`, nil, nil, widget, "*codec.Widget",
			[]string{`unknown field "spec.Color"`, `duplicate field "spec.color"`}},
		{"unstructured duplicates", `{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"a":1,"a":2}}`, nil, nil, widgetGV.WithKind("Gadget"), "*scheme.Unstructured",
			[]string{`duplicate field "spec.a"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Decode([]byte(tt.doc), tt.defaults, tt.into)
			if err != nil {
				t.Fatal(err)
			}
			if res.GVK != tt.wantGVK {
				t.Errorf("gvk = %v, want %v", res.GVK, tt.wantGVK)
			}
			if got := typeName(res.Object); got != tt.wantType {
				t.Errorf("object is %s, want %s", got, tt.wantType)
			}
			if got := res.Object.GetObjectKind().GroupVersionKind(); got != tt.wantGVK {
				t.Errorf("object says %v, want %v", got, tt.wantGVK)
			}
			if tt.into != nil && tt.wantType == typeName(tt.into) && res.Object != tt.into {
				t.Error("into was not used")
			}
			got := res.Issues.Warnings()
			if len(got) == 0 {
				got = nil
			}
			if diff := cmp.Diff(tt.wantIssue, got); diff != "" {
				t.Errorf("issues (-want +got):\n%s", diff)
			}
		})
	}
}

func typeName(v any) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%T", v)
}

func TestJSONSerializer_DecodeErrors(t *testing.T) {
	s := NewJSON(testScheme())
	tests := []struct {
		name  string
		doc   string
		into  scheme.Kinded
		check func(error) bool
	}{
		{"missing kind", `{"apiVersion":"example.com/v1"}`, nil, func(err error) bool {
			var e *MissingKindError
			return errors.As(err, &e) && strings.HasPrefix(err.Error(), "Object 'Kind' is missing in '{")
		}},
		{"missing kind into unstructured", `{"apiVersion":"example.com/v1"}`, &scheme.Unstructured{}, func(err error) bool {
			var e *MissingKindError
			return errors.As(err, &e)
		}},
		{"missing version", `{"kind":"Widget"}`, nil, func(err error) bool {
			var e *MissingVersionError
			return errors.As(err, &e) && strings.Contains(err.Error(), "Object 'apiVersion' is missing")
		}},
		{"unregistered kind", `{"apiVersion":"example.com/v1","kind":"Nope"}`, nil, func(err error) bool {
			var e *scheme.NotRegisteredError
			return errors.As(err, &e) && e.GVK.Kind == "Nope"
		}},
		{"bad apiVersion", `{"apiVersion":"a/b/c","kind":"Widget"}`, nil, func(err error) bool { return strings.Contains(err.Error(), "a/b/c") }},
		{"non-string kind", `{"apiVersion":"example.com/v1","kind":5}`, nil, func(err error) bool {
			var e *TypeError
			return errors.As(err, &e) && e.Path == "kind"
		}},
		{"not an object", `[1,2]`, nil, func(err error) bool {
			var e *TypeError
			return errors.As(err, &e) && e.Value == "array"
		}},
		{"empty body", ``, nil, func(err error) bool {
			var e *SyntaxError
			return errors.As(err, &e)
		}},
		{"malformed after the kind", `{"apiVersion":"example.com/v1","kind":"Widget","spec":{`, nil, func(err error) bool {
			var e *SyntaxError
			return errors.As(err, &e) && strings.Contains(err.Error(), "Widget")
		}},
		{"overflow", `{"apiVersion":"example.com/v1","kind":"Widget","spec":{"replicas":3000000000}}`, nil, func(err error) bool {
			var e *TypeError
			return errors.As(err, &e) && e.Path == "spec.replicas"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Decode([]byte(tt.doc), nil, tt.into)
			if err == nil || !tt.check(err) {
				t.Fatalf("unexpected error: %v", err)
			}
		})
	}
}

func TestJSONSerializer_EncodeMatchesEncodingJSON(t *testing.T) {
	s := NewJSON(testScheme())
	res, err := s.Decode(widgetJSON(5), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Encode(&buf, res.Object); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.NewEncoder(&want).Encode(res.Object); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want.String() {
		t.Errorf("typed encode differs:\n%s\n%s", buf.String(), want.String())
	}

	u := &scheme.Unstructured{}
	if _, err := Unmarshal(widgetJSON(5), u); err != nil {
		t.Fatal(err)
	}
	u.Object["html"] = "<&>"
	buf.Reset()
	want.Reset()
	if err := s.Encode(&buf, u); err != nil {
		t.Fatal(err)
	}
	if err := json.NewEncoder(&want).Encode(u.Object); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want.String() {
		t.Errorf("unstructured encode differs:\n%s\n%s", buf.String(), want.String())
	}

	l := &scheme.UnstructuredList{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "GadgetList"}, Items: []scheme.Unstructured{*u}}
	buf.Reset()
	if err := s.Encode(&buf, l); err != nil {
		t.Fatal(err)
	}
	want.Reset()
	lb, _ := l.MarshalJSON()
	want.Write(lb)
	want.WriteByte('\n')
	if buf.String() != want.String() {
		t.Errorf("unstructured list encode differs:\n%s\n%s", buf.String(), want.String())
	}
}

func TestJSONSerializer_TypedObjectRoundTrip(t *testing.T) {
	s := NewJSON(testScheme())
	res, err := s.Decode(widgetJSON(20), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Encode(&buf, res.Object); err != nil {
		t.Fatal(err)
	}
	res2, err := s.Decode(buf.Bytes(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mustJSON(res.Object), mustJSON(res2.Object)); diff != "" {
		t.Errorf("round trip (-first +second):\n%s", diff)
	}
}

func TestYAMLSerializer_DecodeAndEncode(t *testing.T) {
	s := NewYAML(testScheme())
	doc := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
  labels:
    app: a
    app: b
spec:
  color: red
  colour: red
  replicas: 2
  parts:
  - name: p1
    count: 1
  - name: p2
    cuont: 2
`
	res, err := s.Decode([]byte(doc), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := res.Object.(*Widget)
	if w.Name != "w1" || w.Labels["app"] != "b" || *w.Spec.Replicas != 2 || len(w.Spec.Parts) != 2 {
		t.Errorf("got %+v", w)
	}
	want := []string{`duplicate field "metadata.labels.app"`, `unknown field "spec.colour"`, `unknown field "spec.parts[1].cuont"`}
	if diff := cmp.Diff(want, res.Issues.Warnings()); diff != "" {
		t.Errorf("issues (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := s.Encode(&buf, w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "kind: Widget\n") || !strings.Contains(buf.String(), "  color: red\n") {
		t.Errorf("yaml output:\n%s", buf.String())
	}
	back, err := s.Decode(buf.Bytes(), nil, nil)
	if err != nil || mustJSON(back.Object) != mustJSON(w) {
		t.Errorf("yaml round trip: %v\n%s\n%s", err, mustJSON(back.Object), mustJSON(w))
	}
}

func TestCodecs_SelectsByMediaType(t *testing.T) {
	c := NewCodecs(testScheme())
	if diff := cmp.Diff([]string{MediaTypeJSON, MediaTypeYAML}, c.MediaTypes()); diff != "" {
		t.Errorf("media types (-want +got):\n%s", diff)
	}
	tests := []struct {
		contentType string
		want        string
	}{
		{"application/json", MediaTypeJSON},
		{"Application/JSON; charset=utf-8", MediaTypeJSON},
		{"application/yaml", MediaTypeYAML},
		{"application/vnd.kubernetes.protobuf", ""},
		{"garbage", ""},
	}
	for _, tt := range tests {
		s, ok := c.ForMediaType(tt.contentType)
		got := ""
		if ok {
			got = s.MediaType()
		}
		if got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.contentType, got, tt.want)
		}
	}
	yamlOnly := NewCodecs(testScheme(), fakeSerializer{MediaTypeJSON}, fakeSerializer{MediaTypeCBOR})
	if s, _ := yamlOnly.ForMediaType(MediaTypeJSON); s != (fakeSerializer{MediaTypeJSON}) {
		t.Errorf("a later serializer must replace one of the same media type, got %T", s)
	}
	if got := yamlOnly.MediaTypes(); len(got) != 3 || got[2] != MediaTypeCBOR {
		t.Errorf("media types = %v", got)
	}
}

type fakeSerializer struct{ mt string }

func (f fakeSerializer) MediaType() string { return f.mt }
func (f fakeSerializer) Decode([]byte, *scheme.GroupVersionKind, scheme.Kinded) (Result, error) {
	return Result{}, errors.New("fake")
}
func (f fakeSerializer) Encode(io.Writer, scheme.Kinded) error {
	return nil
}
