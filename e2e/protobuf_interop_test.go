package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

// k8sProtoScheme registers the apimachinery kinds the interop cases use.
func k8sProtoScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	metav1.AddMetaToScheme(s)
	s.AddKnownTypes(schema.GroupVersion{Version: "v1"}, &metav1.APIResourceList{})
	if err := autoscalingv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// apikit's view of autoscaling/v1 Scale and discovery's APIResourceList, shaped like
// rest.Scale and rest/discovery.APIResourceList (the JSON names are what count).
type pbScale struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Replicas int32 `json:"replicas,omitempty"`
	} `json:"spec,omitempty"`
	Status struct {
		Replicas int32  `json:"replicas"`
		Selector string `json:"selector,omitempty"`
	} `json:"status,omitempty"`
}

type pbAPIResourceList struct {
	Kind         string          `json:"kind"`
	APIVersion   string          `json:"apiVersion"`
	GroupVersion string          `json:"groupVersion"`
	Resources    []pbAPIResource `json:"resources"`
}

type pbAPIResource struct {
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

// apikitMeta is fullMetaV1 in apikit's types.
// pbConvertJSON copies in to out through JSON.
func pbConvertJSON(t testing.TB, in, out any) {
	t.Helper()
	j, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, out); err != nil {
		t.Fatal(err)
	}
}

func apikitMeta(t testing.TB) scheme.ObjectMeta {
	var m scheme.ObjectMeta
	pbConvertJSON(t, fullMetaV1(), &m)
	return m
}

type protoCase struct {
	name string
	k8s  runtime.Object
	ours scheme.Kinded
	gvk  scheme.GroupVersionKind // for values without TypeMeta
	into func() any              // apikit decode target
}

func protoCases(t testing.TB) []protoCase {
	remaining := int64(2)
	k8sStatus := &metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		ListMeta: metav1.ListMeta{ResourceVersion: "11", RemainingItemCount: &remaining},
		Status:   metav1.StatusFailure, Message: `widgets.toys.example.com "w" is invalid`, Reason: metav1.StatusReasonInvalid, Code: 422,
		Details: &metav1.StatusDetails{Name: "w", Group: "toys.example.com", Kind: "widgets", UID: "u1", RetryAfterSeconds: 3,
			Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: "bad color", Field: "spec.color"}, {Type: metav1.CauseTypeFieldValueRequired}}},
	}
	var ourStatus scheme.Status
	pbConvertJSON(t, k8sStatus, &ourStatus)

	k8sPOM := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: fullMetaV1()}
	ourPOM := &scheme.PartialObjectMetadata{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: apikitMeta(t)}

	k8sList := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "12", Continue: "token"},
		Items:    []metav1.PartialObjectMetadata{{ObjectMeta: fullMetaV1()}, {ObjectMeta: metav1.ObjectMeta{Name: "second", Namespace: "ns1"}}}}
	ourList := &scheme.PartialObjectMetadataList{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: scheme.ListMeta{ResourceVersion: "12", Continue: "token"},
		Items:    []scheme.PartialObjectMetadata{{ObjectMeta: apikitMeta(t)}, {ObjectMeta: scheme.ObjectMeta{Name: "second", Namespace: "ns1"}}}}

	k8sScale := &autoscalingv1.Scale{TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns1", UID: "u", ResourceVersion: "5", CreationTimestamp: metav1.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))},
		Spec:       autoscalingv1.ScaleSpec{Replicas: 3}, Status: autoscalingv1.ScaleStatus{Replicas: 2, Selector: "app=w"}}
	var ourScale pbScale
	pbConvertJSON(t, k8sScale, &ourScale)

	k8sRes := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "APIResourceList"}, GroupVersion: "toys.example.com/v1",
		APIResources: []metav1.APIResource{
			{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", Verbs: metav1.Verbs{"create", "get", "list"}, ShortNames: []string{"wd"}, Categories: []string{"all"}, StorageVersionHash: "abc"},
			{Name: "widgets/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: metav1.Verbs{"get", "patch"}},
			{Name: "widgets/status", Kind: "Widget", Verbs: metav1.Verbs{}},
		}}
	var ourRes pbAPIResourceList
	pbConvertJSON(t, k8sRes, &ourRes)

	return []protoCase{
		{name: "Status with details", k8s: k8sStatus, ours: &ourStatus, into: func() any { return &scheme.Status{} }},
		{name: "PartialObjectMetadata with full metadata", k8s: k8sPOM, ours: ourPOM, into: func() any { return &scheme.PartialObjectMetadata{} }},
		{name: "PartialObjectMetadataList", k8s: k8sList, ours: ourList, into: func() any { return &scheme.PartialObjectMetadataList{} }},
		{name: "autoscaling/v1 Scale", k8s: k8sScale, ours: &ourScale, into: func() any { return &pbScale{} }},
		{name: "APIResourceList", k8s: k8sRes, gvk: scheme.GroupVersionKind{Version: "v1", Kind: "APIResourceList"}, into: func() any { return &pbAPIResourceList{} }},
	}
}

func k8sProtoEncode(t testing.TB, s *kproto.Serializer, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Encode(obj, &buf); err != nil {
		t.Fatalf("apimachinery encode %T: %v", obj, err)
	}
	return buf.Bytes()
}

func TestProtobufInterop_BytesIdenticalToApimachinery(t *testing.T) {
	ks := k8sProtoScheme(t)
	k8s := kproto.NewSerializer(ks, ks)
	ours := protobuf.New(scheme.New())
	for _, c := range protoCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want := k8sProtoEncode(t, k8s, c.k8s)
			var buf bytes.Buffer
			var err error
			if c.ours != nil {
				err = ours.Encode(&buf, c.ours)
			} else {
				var v pbAPIResourceList
				pbConvertJSON(t, c.k8s, &v)
				err = ours.EncodeAs(&buf, c.gvk, &v)
			}
			if err != nil {
				t.Fatalf("apikit encode: %v", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("bytes differ\napikit:       %x\napimachinery: %x", buf.Bytes(), want)
			}
		})
	}
}

func TestProtobufInterop_ApimachineryBytesDecodeInApikit(t *testing.T) {
	ks := k8sProtoScheme(t)
	k8s := kproto.NewSerializer(ks, ks)
	ours := protobuf.New(scheme.New())
	for _, c := range protoCases(t) {
		t.Run(c.name, func(t *testing.T) {
			data := k8sProtoEncode(t, k8s, c.k8s)
			u, err := protobuf.DecodeEnvelope(data)
			if err != nil {
				t.Fatal(err)
			}
			got := c.into()
			if kinded, ok := got.(scheme.Kinded); ok {
				if _, err := ours.Decode(data, nil, kinded); err != nil {
					t.Fatalf("apikit decode: %v", err)
				}
			} else if err := decodeAsForTest(ours, u, c.gvk, got); err != nil {
				t.Fatalf("apikit decode: %v", err)
			}
			// Same content as apimachinery's object, compared through JSON.
			var wantJSON, gotJSON any
			pbConvertJSON(t, c.k8s, &wantJSON)
			pbConvertJSON(t, got, &gotJSON)
			if m, ok := gotJSON.(map[string]any); ok && c.gvk.Kind != "" {
				m["kind"], m["apiVersion"] = wantJSON.(map[string]any)["kind"], wantJSON.(map[string]any)["apiVersion"]
			}
			if diff := cmp.Diff(wantJSON, gotJSON); diff != "" {
				t.Errorf("decoded object differs (-apimachinery +apikit):\n%s", diff)
			}
		})
	}
}

// decodeAsForTest decodes the raw message of an envelope into a value without
// apiVersion and kind, by wrapping it in a Kinded shell the serializer fills.
func decodeAsForTest(s *protobuf.Serializer, u protobuf.Unknown, gvk scheme.GroupVersionKind, into any) error {
	// The built-in schema reads it as an Unstructured; JSON carries it into the struct.
	res, err := s.Decode(protobuf.AppendEnvelope(nil, &u), nil, &scheme.Unstructured{})
	if err != nil {
		return err
	}
	j, err := json.Marshal(res.Object.(*scheme.Unstructured).Object)
	if err != nil {
		return err
	}
	return json.Unmarshal(j, into)
}

func TestProtobufInterop_ApikitBytesDecodeInApimachinery(t *testing.T) {
	ks := k8sProtoScheme(t)
	k8s := kproto.NewSerializer(ks, ks)
	ours := protobuf.New(scheme.New())
	for _, c := range protoCases(t) {
		if c.ours == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := ours.Encode(&buf, c.ours); err != nil {
				t.Fatal(err)
			}
			obj, _, err := k8s.Decode(buf.Bytes(), nil, nil)
			if err != nil {
				t.Fatalf("apimachinery decode: %v", err)
			}
			if again := k8sProtoEncode(t, k8s, obj); !bytes.Equal(again, buf.Bytes()) {
				t.Errorf("apimachinery re-encodes differently:\n%x\n%x", again, buf.Bytes())
			}
			var wantJSON, gotJSON any
			pbConvertJSON(t, c.k8s, &wantJSON)
			pbConvertJSON(t, obj, &gotJSON)
			if diff := cmp.Diff(wantJSON, gotJSON); diff != "" {
				t.Errorf("decoded object differs (-want +apimachinery):\n%s", diff)
			}
		})
	}
}

func TestProtobufInterop_WatchFramesBothWays(t *testing.T) {
	ks := k8sProtoScheme(t)
	k8s := kproto.NewSerializer(ks, ks)
	raw := kproto.NewRawSerializer(ks, ks)
	ours := protobuf.New(scheme.New())
	cases := protoCases(t)
	events := []struct {
		typ   watch.EventType
		k8s   runtime.Object
		ours  scheme.Kinded
		ptype func() scheme.Kinded
	}{
		{watch.Added, cases[1].k8s, cases[1].ours, func() scheme.Kinded { return &scheme.PartialObjectMetadata{} }},
		{watch.Error, cases[0].k8s, cases[0].ours, func() scheme.Kinded { return &scheme.Status{} }},
	}
	// apimachinery's watch stream: the raw WatchEvent with the enveloped object, framed.
	var k8sStream bytes.Buffer
	fw := kproto.LengthDelimitedFramer.NewFrameWriter(&k8sStream)
	for _, ev := range events {
		we := &metav1.WatchEvent{Type: string(ev.typ), Object: runtime.RawExtension{Raw: k8sProtoEncode(t, k8s, ev.k8s)}}
		if err := raw.Encode(we, fw); err != nil {
			t.Fatal(err)
		}
	}
	var ourStream bytes.Buffer
	for _, ev := range events {
		if err := ours.EncodeEvent(&ourStream, watch.Event{Type: ev.typ, Object: ev.ours}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(ourStream.Bytes(), k8sStream.Bytes()) {
		t.Errorf("watch streams differ\napikit:       %x\napimachinery: %x", ourStream.Bytes(), k8sStream.Bytes())
	}

	// apimachinery's frames decode in apikit.
	fr := protobuf.NewFrameReader(bytes.NewReader(k8sStream.Bytes()), 0)
	for _, ev := range events {
		frame, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ours.DecodeEvent(frame, ev.ptype())
		if err != nil {
			t.Fatal(err)
		}
		if got.Type != ev.typ || !cmp.Equal(got.Object, ev.ours) {
			t.Errorf("apikit decoded %s %+v, want %+v", got.Type, got.Object, ev.ours)
		}
	}
	if _, err := fr.ReadFrame(); err != io.EOF {
		t.Errorf("after the last frame: %v", err)
	}

	// apikit's frames decode in apimachinery.
	kr := kproto.LengthDelimitedFramer.NewFrameReader(io.NopCloser(bytes.NewReader(ourStream.Bytes())))
	buf := make([]byte, 1<<16)
	for _, ev := range events {
		n, err := kr.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		var we metav1.WatchEvent
		if _, _, err := raw.Decode(buf[:n], nil, &we); err != nil {
			t.Fatalf("apimachinery WatchEvent decode: %v", err)
		}
		obj, _, err := k8s.Decode(we.Object.Raw, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if we.Type != string(ev.typ) || !bytes.Equal(k8sProtoEncode(t, k8s, obj), k8sProtoEncode(t, k8s, ev.k8s)) {
			t.Errorf("apimachinery decoded %s %T differently", we.Type, obj)
		}
	}
}

// BenchmarkProtobufMeta compares apikit and apimachinery on the same objects.
func BenchmarkProtobufMeta(b *testing.B) {
	ks := k8sProtoScheme(b)
	k8s := kproto.NewSerializer(ks, ks)
	ours := protobuf.New(scheme.New())
	for _, c := range protoCases(b)[:3] {
		data := k8sProtoEncode(b, k8s, c.k8s)
		b.Run(c.name+"/Encode/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := k8s.Encode(c.k8s, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/Encode/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := ours.Encode(io.Discard, c.ours); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/Decode/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				into := reflect.New(reflect.TypeOf(c.k8s).Elem()).Interface().(runtime.Object)
				if _, _, err := k8s.Decode(data, nil, into); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/Decode/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ours.Decode(data, nil, c.into().(scheme.Kinded)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
