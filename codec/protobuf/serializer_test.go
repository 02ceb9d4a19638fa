package protobuf

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

func ptr[T any](v T) *T { return &v }

var t0 = scheme.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC).Local())

func fullMeta() scheme.ObjectMeta {
	return scheme.ObjectMeta{
		Name: "w1", GenerateName: "w-", Namespace: "ns", SelfLink: "/x", UID: "uid-1",
		ResourceVersion: "42", Generation: 3, CreationTimestamp: t0, DeletionTimestamp: &t0,
		DeletionGracePeriodSeconds: ptr(int64(30)),
		Labels:                     map[string]string{"b": "2", "a": "1"},
		Annotations:                map[string]string{"note": "x"},
		OwnerReferences: []scheme.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u",
			Controller: ptr(true), BlockOwnerDeletion: ptr(false)}},
		Finalizers: []string{"f1", "f2"},
		ManagedFields: []scheme.ManagedFieldsEntry{{Manager: "kubectl", Operation: scheme.ManagedFieldsOperationApply,
			APIVersion: "v1", Time: &t0, FieldsType: "FieldsV1", FieldsV1: &scheme.FieldsV1{Raw: []byte(`{"f:spec":{}}`)},
			Subresource: "status"}},
	}
}

func sampleWidget(parts int) *Widget {
	w := &Widget{
		TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
		ObjectMeta: fullMeta(),
		Spec:       WidgetSpec{Color: "red", Replicas: ptr(int32(-2))},
		Status: WidgetStatus{Phase: "Ready", Replicas: 2, ObservedGeneration: 3,
			Conditions: []scheme.Condition{{Type: "Ready", Status: scheme.ConditionTrue, LastTransitionTime: t0, Reason: "R", Message: "m"}}},
	}
	for i := 0; i < parts; i++ {
		w.Spec.Parts = append(w.Spec.Parts, WidgetPart{Name: "part", Count: int32(i)})
	}
	return w
}

// listItem is a Widget as list items travel: without apiVersion and kind, which
// protobuf list items do not carry.
func listItem(parts int) Widget {
	w := sampleWidget(parts)
	w.TypeMeta = scheme.TypeMeta{}
	return *w
}

func sampleStatus() *scheme.Status {
	return &scheme.Status{
		TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Status"},
		ListMeta: scheme.ListMeta{ResourceVersion: "7", RemainingItemCount: ptr(int64(1))},
		Status:   scheme.StatusFailure, Message: "widgets \"w\" is invalid", Reason: scheme.StatusReasonInvalid, Code: 422,
		Details: &scheme.StatusDetails{Name: "w", Group: "toys.example.com", Kind: "widgets", UID: "u", RetryAfterSeconds: 1,
			Causes: []scheme.StatusCause{{Type: scheme.CauseTypeFieldValueInvalid, Message: "bad", Field: "spec.color"}}},
	}
}

func encode(t testing.TB, s *Serializer, obj scheme.Kinded) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Encode(&buf, obj); err != nil {
		t.Fatalf("Encode(%T): %v", obj, err)
	}
	return buf.Bytes()
}

func TestSerializer_RoundTripsEveryEncodableKind(t *testing.T) {
	s := New(testScheme())
	pom := &scheme.PartialObjectMetadata{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: fullMeta()}
	tests := []struct {
		name string
		obj  scheme.Kinded
	}{
		{"Status with details and causes", sampleStatus()},
		{"Status that is empty", &scheme.Status{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Status"}}},
		{"PartialObjectMetadata with every metadata field", pom},
		{"PartialObjectMetadataList", &scheme.PartialObjectMetadataList{
			TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
			ListMeta: scheme.ListMeta{ResourceVersion: "9", Continue: "c"},
			Items:    []scheme.PartialObjectMetadata{{ObjectMeta: fullMeta()}, {ObjectMeta: scheme.ObjectMeta{Name: "b"}}}}},
		{"Widget registered by field numbers", sampleWidget(3)},
		{"WidgetList", &WidgetList{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "WidgetList"},
			ListMeta: scheme.ListMeta{ResourceVersion: "5"}, Items: []Widget{listItem(1), listItem(0)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !s.Supports(tt.obj.GetObjectKind().GroupVersionKind(), tt.obj) {
				t.Error("Supports says no")
			}
			data := encode(t, s, tt.obj)
			if !bytes.HasPrefix(data, Magic) {
				t.Fatalf("no k8s prefix: %q", data[:8])
			}
			res, err := s.Decode(data, nil, nil)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.obj, res.Object); diff != "" {
				t.Errorf("round trip differs (-want +got):\n%s", diff)
			}
			if again := encode(t, s, res.Object); !bytes.Equal(again, data) {
				t.Errorf("re-encoding differs:\n%x\n%x", data, again)
			}
		})
	}
}

func TestEncode_StatusMatchesGogoLayout(t *testing.T) {
	st := &scheme.Status{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: "Failure", Code: 404}
	got := encode(t, New(scheme.New()), st)
	want := []byte("k8s\x00" +
		"\x0a\x0c\x0a\x02v1\x12\x06Status" + // typeMeta
		"\x12\x18" + // raw
		"\x0a\x06\x0a\x00\x12\x00\x1a\x00" + // metadata: selfLink, resourceVersion, continue
		"\x12\x07Failure\x1a\x00\x22\x00" + // status, message, reason
		"\x30\x94\x03" + // code 404
		"\x1a\x00\x22\x00") // contentEncoding, contentType
	if !bytes.Equal(got, want) {
		t.Errorf("Status bytes:\n got %q\nwant %q", got, want)
	}
}

func TestEncode_UnstructuredWidgetIsByteIdenticalToTyped(t *testing.T) {
	s := New(testScheme())
	w := sampleWidget(2)
	j, err := codec.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	u := &scheme.Unstructured{}
	if _, err := codec.Unmarshal(j, &u.Object); err != nil {
		t.Fatal(err)
	}
	typed, unstr := encode(t, s, w), encode(t, s, u)
	if !bytes.Equal(typed, unstr) {
		t.Fatalf("unstructured encoding differs from typed:\n%x\n%x", typed, unstr)
	}
	res, err := s.Decode(typed, nil, &scheme.Unstructured{})
	if err != nil {
		t.Fatal(err)
	}
	back := res.Object.(*scheme.Unstructured)
	if got := back.Object["spec"].(map[string]any)["color"]; got != "red" {
		t.Errorf("spec.color = %v", got)
	}
	if got := back.GetName(); got != "w1" {
		t.Errorf("name = %q", got)
	}
	if again := encode(t, s, back); !bytes.Equal(again, typed) {
		t.Errorf("re-encoding the decoded unstructured differs")
	}
}

type table struct {
	scheme.TypeMeta `json:",inline"`
	Rows            []any `json:"rows"`
}

type gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Color string `json:"color"`
		Size  int    `json:"size"`
	} `json:"spec"`
}

func TestEncode_KindWithoutProtobufFailsWithErrNotProtobufAndWritesNothing(t *testing.T) {
	s := testScheme()
	gv := scheme.GroupVersion{Group: "g", Version: "v1"}
	// Registered, but the Go type has a field the registration does not number.
	if err := RegisterFields(s, gv.WithKind("Gadget"),
		Field{Path: "metadata", Number: 1, Type: TypeObjectMeta},
		Field{Path: "spec", Number: 2, Type: TypeMessage},
		Field{Path: "spec.color", Number: 1, Type: TypeString}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		obj  scheme.Kinded
	}{
		{"meta.k8s.io Table (protobuf=false upstream)", &table{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "Table"}}},
		{"unstructured kind without registered fields", &scheme.Unstructured{Object: map[string]any{"apiVersion": "x/v1", "kind": "Y"}}},
		{"Go type with a field the registration does not number", &gadget{TypeMeta: scheme.TypeMeta{APIVersion: "g/v1", Kind: "Gadget"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if New(s).Supports(tt.obj.GetObjectKind().GroupVersionKind(), tt.obj) {
				t.Error("Supports says yes")
			}
			var buf bytes.Buffer
			err := New(s).Encode(&buf, tt.obj)
			var npe *NotProtobufError
			if !errors.Is(err, ErrNotProtobuf) || !errors.As(err, &npe) {
				t.Fatalf("err = %v, want ErrNotProtobuf", err)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes before failing", buf.Len())
			}
		})
	}
}

func TestDecode_RejectsDataWithoutThePrefix(t *testing.T) {
	s := New(testScheme())
	for _, in := range []string{"", "{}", "k8s", "k8s\x01\x0a\x00", "k8s\x00"} {
		_, err := s.Decode([]byte(in), nil, nil)
		if err == nil {
			t.Errorf("Decode(%q) succeeded", in)
		}
		if in != "k8s\x00" && !errors.Is(err, ErrNoMagic) {
			t.Errorf("Decode(%q) = %v, want ErrNoMagic", in, err)
		}
	}
}

func TestDecode_TruncatedOrCorruptBodiesFailWithErrMalformed(t *testing.T) {
	s := New(testScheme())
	good := encode(t, s, sampleWidget(2))
	for cut := len(Magic) + 1; cut < len(good); cut += 7 {
		if _, err := s.Decode(good[:cut], nil, nil); err == nil {
			// Some prefixes end on a field boundary and are valid messages.
			continue
		} else if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNotProtobuf) {
			var mk *codec.MissingKindError
			if !errors.As(err, &mk) {
				t.Errorf("cut %d: unexpected error kind %v", cut, err)
			}
		}
	}
	huge := append(append([]byte{}, Magic...), 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f)
	if _, err := s.Decode(huge, nil, nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("length beyond the data: %v", err)
	}
}

func TestEnvelope_RoundTripsUnknownFields(t *testing.T) {
	u := Unknown{APIVersion: "v1", Kind: "Status", Raw: []byte{1, 2}, ContentEncoding: "gzip", ContentType: "application/json"}
	got, err := DecodeEnvelope(AppendEnvelope(nil, &u))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(u, got); diff != "" {
		t.Error(diff)
	}
}

func TestWatch_EventsRoundTripThroughFrames(t *testing.T) {
	s := New(testScheme())
	var buf bytes.Buffer
	events := []watch.Event{
		{Type: watch.Added, Object: sampleWidget(1)},
		{Type: watch.Error, Object: sampleStatus()},
	}
	for _, ev := range events {
		if err := s.EncodeEvent(&buf, ev); err != nil {
			t.Fatal(err)
		}
	}
	fr := NewFrameReader(&buf, 0)
	for _, want := range events {
		frame, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.DecodeEvent(frame, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Type != want.Type || !cmp.Equal(got.Object, want.Object) {
			t.Errorf("event = %v %+v, want %v", got.Type, got.Object, want.Type)
		}
	}
	if _, err := fr.ReadFrame(); err != io.EOF {
		t.Errorf("after the last frame: %v, want EOF", err)
	}
}

func TestFrameReader_BoundsFramesByMaximumAndData(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"header larger than the maximum", []byte{0xff, 0xff, 0xff, 0xff}, ErrFrameTooLarge},
		{"body shorter than its header", []byte{0, 0, 0, 10, 1, 2}, io.ErrUnexpectedEOF},
		{"partial header", []byte{0, 0}, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewFrameReader(bytes.NewReader(tt.in), 1<<20).ReadFrame()
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	var buf bytes.Buffer
	if _, err := NewFrameWriter(&buf).Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if got := buf.Bytes(); !bytes.Equal(got, []byte{0, 0, 0, 3, 'a', 'b', 'c'}) {
		t.Errorf("frame = %v", got)
	}
}

type discoveryList struct {
	Kind         string         `json:"kind"`
	APIVersion   string         `json:"apiVersion"`
	GroupVersion string         `json:"groupVersion"`
	Resources    []discoveryRes `json:"resources"`
}

type discoveryRes struct {
	Name               string   `json:"name"`
	SingularName       string   `json:"singularName"`
	Namespaced         bool     `json:"namespaced"`
	Group              string   `json:"group,omitempty"`
	Version            string   `json:"version,omitempty"`
	Kind               string   `json:"kind"`
	Verbs              []string `json:"verbs"`
	ShortNames         []string `json:"shortNames,omitempty"`
	Categories         []string `json:"categories,omitempty"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty"`
}

func TestEncodeAs_APIResourceListFromAPlainStruct(t *testing.T) {
	s := New(scheme.New())
	in := &discoveryList{GroupVersion: "toys.example.com/v1", Resources: []discoveryRes{
		{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", Verbs: []string{"get", "list"}, ShortNames: []string{"wd"}},
		{Name: "widgets/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{}},
	}}
	gvk := scheme.GroupVersionKind{Version: "v1", Kind: "APIResourceList"}
	var buf bytes.Buffer
	if err := s.EncodeAs(&buf, gvk, in); err != nil {
		t.Fatal(err)
	}
	u, err := DecodeEnvelope(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var out discoveryList
	if err := s.decodeObject(u.Raw, gvk, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, &out); diff != "" {
		t.Error(diff)
	}
}

func TestRegisterFields_RejectsBadRegistrations(t *testing.T) {
	gvk := scheme.GroupVersionKind{Group: "g", Version: "v1", Kind: "K"}
	tests := []struct {
		name   string
		fields []Field
	}{
		{"duplicate number", []Field{{Path: "a", Number: 1, Type: TypeString}, {Path: "b", Number: 1, Type: TypeString}}},
		{"child of a non-message", []Field{{Path: "a", Number: 1, Type: TypeString}, {Path: "a.b", Number: 1, Type: TypeString}}},
		{"reserved number", []Field{{Path: "a", Number: 19000, Type: TypeString}}},
		{"zero number", []Field{{Path: "a", Number: 0, Type: TypeString}}},
		{"unknown type", []Field{{Path: "a", Number: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := RegisterFields(scheme.New(), gvk, tt.fields...); err == nil {
				t.Error("registration succeeded")
			}
		})
	}
}
