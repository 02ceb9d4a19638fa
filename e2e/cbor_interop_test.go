package e2e

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	toysv1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kcbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor"
)

// apikit's CBOR serializer and apimachinery's must write the same bytes for the same
// objects, and each must read what the other wrote.

func k8sCBOR() kcbor.Serializer {
	s := newK8sScheme()
	return kcbor.NewSerializer(s, s, kcbor.Strict(true))
}

func k8sEncodeCBOR(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := k8sCBOR().Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func apikitEncodeCBOR(t testing.TB, obj scheme.Kinded) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := cbor.New(api.NewScheme()).Encode(&buf, obj); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// interopWidgets are the objects compared: empty and full fixtures, a deletion
// timestamp, managed fields and a zero-valued spec.
func interopWidgets(t testing.TB) map[string]*toysv1.Widget {
	withDeletion := widgetFixture(3)
	del := scheme.NewTime(time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC))
	grace := int64(30)
	withDeletion.DeletionTimestamp, withDeletion.DeletionGracePeriodSeconds = &del, &grace
	withDeletion.Finalizers = []string{"example.com/cleanup"}
	withDeletion.ManagedFields = []scheme.ManagedFieldsEntry{{
		Manager: "kubectl", Operation: scheme.ManagedFieldsOperationApply, APIVersion: "toys.example.com/v1",
		Time: &del, FieldsType: "FieldsV1", FieldsV1: &scheme.FieldsV1{Raw: []byte(`{"f:spec":{"f:color":{},"f:replicas":{}}}`)},
	}}
	ctrl := true
	withDeletion.OwnerReferences = []scheme.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "u-1", Controller: &ctrl}}
	return map[string]*toysv1.Widget{
		"parts=0":          widgetFixture(0),
		"parts=20":         widgetFixture(20),
		"parts=200":        widgetFixture(200),
		"deleting+managed": withDeletion,
		"minimal": {
			TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
			ObjectMeta: scheme.ObjectMeta{Name: "m"},
		},
	}
}

// toK8s converts through JSON, which the JSON tests prove byte-identical.
func toK8s(t testing.TB, w *toysv1.Widget) *k8sWidget {
	t.Helper()
	var kw k8sWidget
	b, err := json.Marshal(w)
	if err == nil {
		err = json.Unmarshal(b, &kw)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &kw
}

func TestCBORInterop_TypedWidgetBytesIdentical(t *testing.T) {
	for name, w := range interopWidgets(t) {
		t.Run(name, func(t *testing.T) {
			ours := apikitEncodeCBOR(t, w)
			theirs := k8sEncodeCBOR(t, toK8s(t, w))
			if !bytes.Equal(ours, theirs) {
				t.Fatalf("bytes differ\n ours %s\nk8s's %s", hex.EncodeToString(ours), hex.EncodeToString(theirs))
			}
		})
	}
}

func TestCBORInterop_ApimachineryBytesDecodeInApikit(t *testing.T) {
	ser := cbor.New(api.NewScheme())
	for name, w := range interopWidgets(t) {
		t.Run(name, func(t *testing.T) {
			theirs := k8sEncodeCBOR(t, toK8s(t, w))
			res, err := ser.Decode(theirs, nil, nil)
			if err != nil || len(res.Issues) > 0 {
				t.Fatal(err, res.Issues)
			}
			// Times decode in the local zone: compare the wire forms.
			want, _ := json.Marshal(w)
			got, _ := json.Marshal(res.Object)
			if !bytes.Equal(want, got) {
				t.Errorf("decoded object differs\nwant %s\n got %s", want, got)
			}
		})
	}
}

func TestCBORInterop_ApikitBytesDecodeInApimachinery(t *testing.T) {
	for name, w := range interopWidgets(t) {
		t.Run(name, func(t *testing.T) {
			ours := apikitEncodeCBOR(t, w)
			obj, _, err := k8sCBOR().Decode(ours, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Re-encoding what apimachinery decoded gives the same bytes back.
			if again := k8sEncodeCBOR(t, obj); !bytes.Equal(again, ours) {
				t.Fatalf("apimachinery's re-encoding differs\n ours %x\nk8s's %x", ours, again)
			}
		})
	}
}

func TestCBORInterop_UnstructuredBothDirections(t *testing.T) {
	ser := cbor.New(api.NewScheme())
	for name, w := range interopWidgets(t) {
		t.Run(name, func(t *testing.T) {
			m := unstructuredFromJSON(t, w)
			ours := apikitEncodeCBOR(t, &scheme.Unstructured{Object: m})
			ku := &unstructured.Unstructured{Object: unstructuredFromJSON(t, w)}
			theirs := k8sEncodeCBOR(t, ku)
			if !bytes.Equal(ours, theirs) {
				t.Fatalf("bytes differ\n ours %x\nk8s's %x", ours, theirs)
			}
			var u scheme.Unstructured
			if _, err := ser.Decode(theirs, nil, &u); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ku.Object, u.Object) {
				t.Errorf("apikit decodes apimachinery's bytes differently\nk8s    %#v\napikit %#v", ku.Object, u.Object)
			}
			back := &unstructured.Unstructured{}
			if _, _, err := k8sCBOR().Decode(ours, nil, back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(u.Object, back.Object) {
				t.Errorf("apimachinery decodes apikit's bytes differently\napikit %#v\nk8s    %#v", u.Object, back.Object)
			}
		})
	}
}

func TestCBORInterop_ListsBytesIdentical(t *testing.T) {
	var list toysv1.WidgetList
	list.APIVersion, list.Kind, list.ResourceVersion = "toys.example.com/v1", "WidgetList", "99"
	var klist k8sWidgetList
	klist.APIVersion, klist.Kind, klist.ResourceVersion = "toys.example.com/v1", "WidgetList", "99"
	for i := 0; i < 5; i++ {
		w := widgetFixture(i)
		list.Items = append(list.Items, *w)
		klist.Items = append(klist.Items, *toK8s(t, w))
	}
	ours, theirs := apikitEncodeCBOR(t, &list), k8sEncodeCBOR(t, &klist)
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("typed list bytes differ\n ours %x\nk8s's %x", ours, theirs)
	}
	ul := &scheme.UnstructuredList{Object: map[string]any{"apiVersion": "toys.example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "99"}}}
	kul := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "toys.example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "99"}}}
	for i := 0; i < 3; i++ {
		ul.Items = append(ul.Items, scheme.Unstructured{Object: unstructuredFromJSON(t, widgetFixture(i))})
		kul.Items = append(kul.Items, unstructured.Unstructured{Object: unstructuredFromJSON(t, widgetFixture(i))})
	}
	ours, theirs = apikitEncodeCBOR(t, ul), k8sEncodeCBOR(t, kul)
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("unstructured list bytes differ\n ours %x\nk8s's %x", ours, theirs)
	}
	var got scheme.UnstructuredList
	if _, err := cbor.New(api.NewScheme()).Decode(theirs, nil, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 3 || got.Items[2].GetName() != "widget-1" {
		t.Errorf("decoded list has %d items", len(got.Items))
	}
}

func TestCBORInterop_WatchEventBytesIdentical(t *testing.T) {
	ser := cbor.New(api.NewScheme())
	w := widgetFixture(2)
	var ours bytes.Buffer
	if err := ser.EncodeEvent(&ours, watch.Event{Type: watch.Modified, Object: w}); err != nil {
		t.Fatal(err)
	}
	// apimachinery's watch encoder: the object encoded alone, embedded raw in a
	// metav1.WatchEvent, encoded by the stream serializer.
	s := newK8sScheme()
	stream := kcbor.NewSerializer(s, s, kcbor.Transcode(false))
	raw := k8sEncodeCBOR(t, toK8s(t, w))
	var theirs bytes.Buffer
	if err := stream.Encode(&metav1.WatchEvent{Type: "MODIFIED", Object: runtime.RawExtension{Raw: raw}}, &theirs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours.Bytes(), theirs.Bytes()) {
		t.Fatalf("event bytes differ\n ours %x\nk8s's %x", ours.Bytes(), theirs.Bytes())
	}
	// And apikit reads apimachinery's stream of two events.
	theirs.Write(theirs.Bytes())
	dec := cbor.NewEventDecoder(&theirs, ser)
	for i := 0; i < 2; i++ {
		ev, err := dec.Decode(nil)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != watch.Modified || ev.Object.(*toysv1.Widget).Name != "widget-1" {
			t.Errorf("event %d: %s %#v", i, ev.Type, ev.Object)
		}
	}
}

// unstructuredFromJSON is the unstructured form of w, with integers as int64 like both
// libraries decode them.
func unstructuredFromJSON(t testing.TB, w *toysv1.Widget) map[string]any {
	t.Helper()
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	return u.Object
}
