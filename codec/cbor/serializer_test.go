package cbor

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

func widget(parts int) *toys.WidgetV1 {
	replicas := int32(3)
	ts := scheme.NewTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	w := &toys.WidgetV1{
		TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{
			Name: "widget-1", Namespace: "default", UID: "6c8a7e0e", ResourceVersion: "12345",
			Generation: 4, CreationTimestamp: ts,
			Labels:      map[string]string{"app": "demo", "tier": "backend"},
			Annotations: map[string]string{"example.com/note": "a widget"},
		},
		Spec: toys.WidgetSpec{Color: "blue", Replicas: &replicas},
		Status: toys.WidgetStatus{Phase: "Ready", Replicas: 3, Conditions: []scheme.Condition{
			{Type: "Ready", Status: scheme.ConditionTrue, LastTransitionTime: ts, Reason: "AllPartsPresent", Message: "ok"},
		}},
	}
	for i := 0; i < parts; i++ {
		w.Spec.Parts = append(w.Spec.Parts, toys.WidgetPart{Name: "part-" + strings.Repeat("x", i%7), Count: int32(i%17 + 1)})
	}
	return w
}

func encode(t testing.TB, obj scheme.Kinded) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := New(testapi.NewScheme()).Encode(&buf, obj); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jsonOf is the wire form used to compare objects whose times decode in another zone.
func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEncode_GoldenBytesOfSmallObject(t *testing.T) {
	w := &toys.WidgetV1{
		TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{Name: "a"},
		Spec:       toys.WidgetSpec{Color: "blue"},
	}
	got := hex.EncodeToString(encode(t, w))
	want := "d9d9f7" + // self-described CBOR tag 55799
		"a5" + // map of 5 pairs, keys sorted by their encoding: shorter first
		"44" + hex.EncodeToString([]byte("kind")) + "46" + hex.EncodeToString([]byte("Widget")) +
		"44" + hex.EncodeToString([]byte("spec")) + "a1" + "45" + hex.EncodeToString([]byte("color")) + "44" + hex.EncodeToString([]byte("blue")) +
		"46" + hex.EncodeToString([]byte("status")) + "a0" + // status is a struct: never omitted, like encoding/json
		"48" + hex.EncodeToString([]byte("metadata")) + "a1" + "44" + hex.EncodeToString([]byte("name")) + "41" + "61" +
		"4a" + hex.EncodeToString([]byte("apiVersion")) + "53" + hex.EncodeToString([]byte("toys.example.com/v1"))
	if got != want {
		t.Fatalf("bytes\n got %s\nwant %s", got, want)
	}
}

func TestEncode_ValueRules(t *testing.T) {
	ts := scheme.NewTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.FixedZone("x", 3600)))
	tests := []struct {
		name string
		v    any
		want string // hex after the self-described tag
	}{
		{"time is its RFC 3339 UTC string as a byte string", ts, "54" + hex.EncodeToString([]byte("2025-06-01T11:00:00Z"))},
		{"zero time is null", scheme.Time{}, "f6"},
		{"float takes its shortest exact form", 1.5, "f93e00"},
		{"float that needs 64 bits keeps them", 0.1, "fb3fb999999999999a"},
		{"integer is shortest", int64(500), "1901f4"},
		{"negative integer", int64(-1), "20"},
		{"nil slice is null", []string(nil), "f6"},
		{"nil map is null", map[string]any(nil), "f6"},
		{"map keys are sorted by encoding", map[string]any{"bb": true, "a": false, "c": nil}, "a341" + "61f4" + "4163f6" + "426262f5"},
		{"fieldsV1 is transcoded from its JSON", scheme.FieldsV1{Raw: []byte(`{"f:a":{}}`)}, "a1" + "43" + hex.EncodeToString([]byte("f:a")) + "a0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(bytes.TrimPrefix(b, selfDescribed)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestEncode_RejectsNaNAndInfinity(t *testing.T) {
	for _, v := range []float64{nan(), inf()} {
		u := &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X", "f": v}}
		if err := New(testapi.NewScheme()).Encode(io.Discard, u); err == nil {
			t.Errorf("%v encoded without error", v)
		}
	}
}

func nan() float64 { z := 0.0; return z / z }
func inf() float64 { z := 0.0; return 1 / z }

func TestRoundTrip_TypedAndUnstructured(t *testing.T) {
	s := New(testapi.NewScheme())
	for _, parts := range []int{0, 3, 200} {
		w := widget(parts)
		data := encode(t, w)

		res, err := s.Decode(data, nil, nil)
		if err != nil || len(res.Issues) > 0 {
			t.Fatalf("parts=%d typed: %v %v", parts, err, res.Issues)
		}
		if got, want := jsonOf(t, res.Object), jsonOf(t, w); got != want {
			t.Errorf("parts=%d typed round trip\n got %s\nwant %s", parts, got, want)
		}
		if !bytes.Equal(encode(t, res.Object), data) {
			t.Errorf("parts=%d: re-encoding the decoded object changes the bytes", parts)
		}

		var u scheme.Unstructured
		res, err = s.Decode(data, nil, &u)
		if err != nil || len(res.Issues) > 0 {
			t.Fatalf("parts=%d unstructured: %v %v", parts, err, res.Issues)
		}
		if res.GVK.Kind != "Widget" || u.GetName() != "widget-1" {
			t.Errorf("unstructured: gvk %v name %q", res.GVK, u.GetName())
		}
		if g, ok := u.Object["metadata"].(map[string]any)["generation"].(int64); !ok || g != 4 {
			t.Errorf("integers decode as int64, got %T", u.Object["metadata"].(map[string]any)["generation"])
		}
		if !bytes.Equal(encode(t, &u), data) {
			t.Errorf("parts=%d: unstructured re-encoding differs from the typed encoding", parts)
		}
	}
}

func TestDecode_UnstructuredNumbersAndStrings(t *testing.T) {
	u := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Thing",
		"i": int64(-7), "f": 2.5, "whole": 3.0, "s": "text", "b": true, "n": nil,
		"l": []any{int64(1), "x"},
	}}
	var got scheme.Unstructured
	if _, err := New(testapi.NewScheme()).Decode(encode(t, u), nil, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(u.Object, got.Object) {
		t.Errorf("got %#v", got.Object)
	}
	if _, ok := got.Object["whole"].(float64); !ok {
		t.Errorf("a float with an integral value stays float64, got %T", got.Object["whole"])
	}
}

func TestDecode_AcceptsTextStringsAndNoTag(t *testing.T) {
	// {"apiVersion": "toys.example.com/v1", "kind": "Widget", "spec": {"color": "red"}}
	// with text strings and no self-described tag.
	data := []byte{0xa3}
	for _, kv := range [][2]string{{"apiVersion", "toys.example.com/v1"}, {"kind", "Widget"}} {
		data = appendText(appendText(data, kv[0]), kv[1])
	}
	data = appendText(data, "spec")
	data = append(data, 0xa1)
	data = appendText(appendText(data, "color"), "red")
	res, err := New(testapi.NewScheme()).Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Object.(*toys.WidgetV1); w.Spec.Color != "red" {
		t.Errorf("color %q", w.Spec.Color)
	}
}

func appendText(b []byte, s string) []byte {
	return append(appendHead(b, majorText, uint64(len(s))), s...)
}
func appendBytes(b []byte, s string) []byte {
	return append(appendHead(b, majorBytes, uint64(len(s))), s...)
}

// doc builds a CBOR map from key/value pairs; values are strings, nested docs ([]any
// of pairs) or raw []byte items.
func doc(kv ...any) []byte {
	b := appendHead(nil, majorMap, uint64(len(kv)/2))
	for i := 0; i < len(kv); i += 2 {
		b = appendBytes(b, kv[i].(string))
		switch v := kv[i+1].(type) {
		case string:
			b = appendBytes(b, v)
		case []byte:
			b = append(b, v...)
		}
	}
	return b
}

// widgetDoc is a toys.example.com/v1 Widget document with the given fields.
func widgetDoc(kv ...any) []byte {
	return doc(append([]any{"apiVersion", "toys.example.com/v1", "kind", "Widget"}, kv...)...)
}

func arr(items ...[]byte) []byte {
	b := appendHead(nil, majorArray, uint64(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

func TestDecode_StrictIssuesWithPaths(t *testing.T) {
	tests := []struct {
		name  string
		data  []byte
		into  scheme.Kinded
		want  []string
		check func(t *testing.T, obj scheme.Kinded)
	}{
		{
			name: "unknown fields at every depth",
			data: widgetDoc("bogus", "x", "spec", doc("color", "red", "colour", "x", "parts", arr(doc("name", "p", "nmae", "q"), doc("name", "r", "cnt", "1")))),
			want: []string{`unknown field "bogus"`, `unknown field "spec.colour"`, `unknown field "spec.parts[0].nmae"`, `unknown field "spec.parts[1].cnt"`},
			check: func(t *testing.T, obj scheme.Kinded) {
				if w := obj.(*toys.WidgetV1); w.Spec.Color != "red" || len(w.Spec.Parts) != 2 {
					t.Errorf("known fields still decode: %+v", w.Spec)
				}
			},
		},
		{
			name: "duplicate struct field keeps the first value",
			data: widgetDoc("spec", doc("color", "red", "color", "blue")),
			want: []string{`duplicate field "spec.color"`},
			check: func(t *testing.T, obj scheme.Kinded) {
				if c := obj.(*toys.WidgetV1).Spec.Color; c != "red" {
					t.Errorf("color %q", c)
				}
			},
		},
		{
			name: "duplicate map key keeps the last value",
			data: widgetDoc("metadata", doc("labels", doc("app", "a", "app", "b"))),
			want: []string{`duplicate field "metadata.labels.app"`},
			check: func(t *testing.T, obj scheme.Kinded) {
				if v := obj.(*toys.WidgetV1).Labels["app"]; v != "b" {
					t.Errorf("label %q", v)
				}
			},
		},
		{
			name: "duplicate key in an unstructured object",
			data: widgetDoc("spec", doc("color", "red", "color", "blue")),
			into: &scheme.Unstructured{},
			want: []string{`duplicate field "spec.color"`},
		},
		{
			name: "clean document has no issues",
			data: widgetDoc("spec", doc("color", "red")),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := New(testapi.NewScheme()).Decode(tt.data, nil, tt.into)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Issues.Warnings()
			if !reflect.DeepEqual(got, tt.want) && (len(got) > 0 || len(tt.want) > 0) {
				t.Errorf("issues %q, want %q", got, tt.want)
			}
			if tt.check != nil {
				tt.check(t, res.Object)
			}
			if len(tt.want) > 0 {
				var se *codec.StrictError
				if !errors.As(res.Issues.Err(), &se) || !strings.HasPrefix(se.Error(), "strict decoding error: ") {
					t.Errorf("Err() = %v", res.Issues.Err())
				}
			}
		})
	}
}

func TestDecode_RejectsWhatKubernetesRejects(t *testing.T) {
	head := []any{"apiVersion", "toys.example.com/v1", "kind", "Widget"}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty input", nil},
		{"not a map", []byte{0xd9, 0xd9, 0xf7, 0x01}},
		{"invalid UTF-8 text string", widgetDoc("spec", doc("color", appendHead(nil, majorText, 2)))},
		{"NaN", widgetDoc("spec", doc("color", []byte{0xf9, 0x7e, 0x00}))},
		{"integer overflowing int64 into any", append(append(doc(head...)[:0:0], 0xd9, 0xd9, 0xf7), doc("apiVersion", "v1", "kind", "X", "n", []byte{0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})...)},
		{"undefined simple value", widgetDoc("spec", doc("color", []byte{0xf7}))},
		{"string into an int field", widgetDoc("status", doc("replicas", "3"))},
		{"missing kind", doc("apiVersion", "toys.example.com/v1")},
		{"truncated", doc(head...)[:10]},
		{"trailing bytes", append(doc(head...), 0x00)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data
			if tt.name == "invalid UTF-8 text string" {
				data = append(data, 0xff, 0xfe)
			}
			var into scheme.Kinded
			if strings.Contains(tt.name, "int64") {
				into = &scheme.Unstructured{}
			}
			if _, err := New(testapi.NewScheme()).Decode(data, nil, into); err == nil {
				t.Errorf("decoded without error")
			}
		})
	}
}

func TestDecode_HostileInputFailsFast(t *testing.T) {
	s := New(testapi.NewScheme())
	deep := bytes.Repeat([]byte{0x81}, 20000)
	deep = append(deep, 0x00)
	tests := []struct {
		name string
		data []byte
	}{
		{"array header claiming 2^32 items", append(doc("apiVersion", "v1", "kind", "X", "a", []byte{0x9b, 0, 0, 0, 1, 0, 0, 0, 0})[:0:0], doc("apiVersion", "v1", "kind", "X", "a", []byte{0x9b, 0, 0, 0, 1, 0, 0, 0, 0})...)},
		{"array header claiming 2^31-1 items", doc("apiVersion", "v1", "kind", "X", "a", []byte{0x9a, 0x7f, 0xff, 0xff, 0xff})},
		{"map header claiming 2^32 pairs", doc("apiVersion", "v1", "kind", "X", "m", []byte{0xbb, 0, 0, 0, 1, 0, 0, 0, 0})},
		{"top-level map claiming 2^32 pairs", []byte{0xbb, 0, 0, 0, 1, 0, 0, 0, 0}},
		{"byte string claiming 2^62 bytes", doc("apiVersion", "v1", "kind", "X", "b", []byte{0x5b, 0x40, 0, 0, 0, 0, 0, 0, 0})},
		{"nesting deeper than 10000 levels", doc("apiVersion", "v1", "kind", "X", "d", deep)},
		{"indefinite-length array never closed", doc("apiVersion", "v1", "kind", "X", "a", []byte{0x9f, 0x01, 0x02})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, into := range []scheme.Kinded{&scheme.Unstructured{}, &toys.WidgetV1{}} {
				_, err := s.Decode(tt.data, nil, into)
				if err == nil {
					t.Fatalf("into %T: decoded without error", into)
				}
			}
			allocs := testing.AllocsPerRun(3, func() { _, _ = s.Decode(tt.data, nil, &scheme.Unstructured{}) })
			if allocs > 200 {
				t.Errorf("%v allocations for %d bytes of hostile input", allocs, len(tt.data))
			}
		})
	}
}

func TestDecode_DefaultsAndMissingKind(t *testing.T) {
	s := New(testapi.NewScheme())
	data := doc("spec", doc("color", "red"))
	if _, err := s.Decode(data, nil, nil); !errors.As(err, new(*codec.MissingKindError)) {
		t.Errorf("without defaults: %v, want a MissingKindError", err)
	}
	def := testapi.V1.WithKind("Widget")
	res, err := s.Decode(data, &def, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.GVK != def || res.Object.(*toys.WidgetV1).Kind != "Widget" {
		t.Errorf("gvk %v", res.GVK)
	}
}

func TestDecode_UnstructuredListDefaultsItemKinds(t *testing.T) {
	data := doc("apiVersion", "toys.example.com/v1", "kind", "WidgetList",
		"items", arr(doc("metadata", doc("name", "a")), doc("apiVersion", "other/v2", "kind", "Other")))
	var l scheme.UnstructuredList
	if _, err := New(testapi.NewScheme()).Decode(data, nil, &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 || l.Items[0].GetKind() != "Widget" || l.Items[0].GetAPIVersion() != "toys.example.com/v1" || l.Items[1].GetKind() != "Other" {
		t.Errorf("items %+v", l.Items)
	}
	if _, ok := l.Object["items"]; ok {
		t.Error("items stay in the list's Object")
	}
}

func TestCodecs_CBORIsNegotiable(t *testing.T) {
	s := testapi.NewScheme()
	c := codec.NewCodecs(s, New(s))
	ser, ok := c.ForMediaType("application/cbor")
	if !ok || ser.MediaType() != codec.MediaTypeCBOR {
		t.Fatalf("ForMediaType: %v %v", ser, ok)
	}
	m, err := codec.Negotiate("application/cbor", c.MediaTypes())
	if err != nil || m.Offered != codec.MediaTypeCBOR {
		t.Errorf("Negotiate: %v %v", m, err)
	}
}

func TestWatch_EventsRoundTripThroughAStream(t *testing.T) {
	s := New(testapi.NewScheme())
	var stream bytes.Buffer
	events := []watch.Event{
		{Type: watch.Added, Object: widget(1)},
		{Type: watch.Modified, Object: &scheme.Unstructured{Object: map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "u"}}}},
		{Type: watch.Error, Object: &scheme.Status{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: "Failure", Code: 410, Reason: "Expired", Message: "too old"}},
	}
	for _, ev := range events {
		if err := s.EncodeEvent(&stream, ev); err != nil {
			t.Fatal(err)
		}
	}
	// The first entry: tag, map of 2, "type" first (shorter key), then the tagged object.
	if want := "d9d9f7a2" + "44" + hex.EncodeToString([]byte("type")) + "45" + hex.EncodeToString([]byte("ADDED")) + "46" + hex.EncodeToString([]byte("object")) + "d9d9f7"; !strings.HasPrefix(hex.EncodeToString(stream.Bytes()), want) {
		t.Errorf("event head %x", stream.Bytes()[:40])
	}
	dec := NewEventDecoder(&oneByteReader{r: &stream}, s)
	for i, want := range events {
		got, err := dec.Decode(nil)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		wantObj := want.Object
		if u, ok := wantObj.(*scheme.Unstructured); ok {
			// Decoded with the scheme, an unstructured Widget comes back typed.
			wantObj = &toys.WidgetV1{TypeMeta: scheme.TypeMeta{APIVersion: u.GetAPIVersion(), Kind: u.GetKind()}, ObjectMeta: scheme.ObjectMeta{Name: u.GetName()}}
		}
		if got.Type != want.Type || jsonOf(t, got.Object) != jsonOf(t, wantObj) {
			t.Errorf("event %d: got %s %s", i, got.Type, jsonOf(t, got.Object))
		}
	}
	if _, err := dec.Decode(nil); err != io.EOF {
		t.Errorf("after the last event: %v, want io.EOF", err)
	}
}

// oneByteReader returns one byte per Read, to exercise reassembly of events.
type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestWatch_DecoderBoundsAndTruncation(t *testing.T) {
	s := New(testapi.NewScheme())
	tests := []struct {
		name string
		data []byte
		max  int
		want string
	}{
		{"event larger than the limit", AppendEvent(nil, watch.Added, encode(t, widget(50))), 512, "exceeds the limit"},
		{"byte string claiming 2^62 bytes", []byte{0xd9, 0xd9, 0xf7, 0xa2, 0x5b, 0x40, 0, 0, 0, 0, 0, 0, 0}, 1 << 16, "unexpected EOF"},
		{"stream ends inside an event", AppendEvent(nil, watch.Added, encode(t, widget(1)))[:30], 0, "unexpected EOF"},
		{"event that is not a map", []byte{0x01}, 0, "must be a map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := NewEventDecoder(bytes.NewReader(tt.data), s)
			dec.MaxEventSize = tt.max
			_, err := dec.Decode(nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// Unstructured targets read apiVersion and kind from the decoded map rather than a scan
// ahead; malformed type fields must fail them as they fail typed targets.
func TestDecode_UnstructuredRejectsMalformedTypeMetaLikeTyped(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"apiVersion is a number", doc("apiVersion", []byte{0x05}, "kind", "Widget")},
		{"kind is a map", doc("apiVersion", "toys.example.com/v1", "kind", doc("a", "b"))},
		{"apiVersion with two slashes", doc("apiVersion", "a/b/c", "kind", "Widget")},
	}
	s := New(testapi.NewScheme())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, typedErr := s.Decode(tt.data, nil, nil)
			if typedErr == nil {
				t.Fatal("decoded without error into a new object")
			}
			for _, into := range []scheme.Kinded{&scheme.Unstructured{}, &scheme.UnstructuredList{}} {
				_, err := s.Decode(tt.data, nil, into)
				if err == nil || err.Error() != typedErr.Error() {
					t.Errorf("into %T: error %v; the typed path fails with %v", into, err, typedErr)
				}
			}
		})
	}
}
