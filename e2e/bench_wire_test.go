package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	toysv1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// Side-by-side benchmarks of a LIST on the wire: 500 Widgets of ~10 KB each (~5 MB),
// encoded and decoded in JSON, CBOR and protobuf by apikit and by k8s.io/apimachinery.
// Compare with
//
//	go test ./e2e -run '^$' -bench 'WireList' -benchtime 20x -count 6 > out.txt
//	benchstat -col /impl out.txt
//
// JSON and CBOR compare the same typed list (apikit's WidgetList and its client-go
// twin, the same bytes). apimachinery cannot encode the Widget twin as protobuf (it
// has no generated marshallers), so protobuf compares what both do encode: the
// PartialObjectMetadataList of the same 500 Widgets (what client-go's metadata client
// reads); apikit's protobuf WidgetList is measured on its own (kind=WidgetList).

const wireListItems = 500

// wireLists returns the benchmark list in apikit's and apimachinery's types.
func wireLists(tb testing.TB) (*toysv1.WidgetList, *k8sWidgetList) {
	tb.Helper()
	ours := &toysv1.WidgetList{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "WidgetList"}}
	ours.ResourceVersion = "123456"
	for i := range wireListItems {
		w := widgetFixture(200)
		w.TypeMeta = scheme.TypeMeta{}
		w.Name = fmt.Sprintf("widget-%04d", i)
		ours.Items = append(ours.Items, *w)
	}
	data, err := json.Marshal(ours)
	if err != nil {
		tb.Fatal(err)
	}
	theirs := &k8sWidgetList{}
	if err := json.Unmarshal(data, theirs); err != nil {
		tb.Fatal(err)
	}
	return ours, theirs
}

// wireMetaLists returns the PartialObjectMetadataList of the benchmark list.
func wireMetaLists(tb testing.TB, list *toysv1.WidgetList) (*scheme.PartialObjectMetadataList, *metav1.PartialObjectMetadataList) {
	tb.Helper()
	tm := scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
	ours := &scheme.PartialObjectMetadataList{
		TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: list.ListMeta,
	}
	for _, w := range list.Items {
		ours.Items = append(ours.Items, scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: w.ObjectMeta})
	}
	data, err := json.Marshal(ours)
	if err != nil {
		tb.Fatal(err)
	}
	theirs := &metav1.PartialObjectMetadataList{}
	if err := json.Unmarshal(data, theirs); err != nil {
		tb.Fatal(err)
	}
	return ours, theirs
}

// wireSide is one implementation's encoder and decoder of one format.
type wireSide struct {
	encode func(*bytes.Buffer) error
	decode func([]byte) error
}

func BenchmarkWireList(b *testing.B) {
	s := api.NewScheme()
	ours, theirs := wireLists(b)
	oursMeta, theirsMeta := wireMetaLists(b, ours)
	ks := k8sProtoScheme(b)
	k8sProto := kproto.NewSerializer(ks, ks)
	k8sJSON, k8sCBORSer := k8sStrictJSON(), k8sCBOR()
	ourJSON, ourCBOR, ourProto := codec.NewJSON(s), cbor.New(s), protobuf.New(s)

	decodeOurs := func(ser codec.Serializer, want string) func([]byte) error {
		return func(data []byte) error {
			res, err := ser.Decode(data, nil, nil)
			if err == nil && res.GVK.Kind != want {
				err = fmt.Errorf("decoded %s", res.GVK.Kind)
			}
			return err
		}
	}
	decodeTheirs := func(dec runtime.Decoder, into func() runtime.Object) func([]byte) error {
		return func(data []byte) error {
			var in runtime.Object
			if into != nil {
				in = into()
			}
			_, _, err := dec.Decode(data, nil, in)
			return err
		}
	}
	cases := []struct {
		name             string
		apikit, apimachy *wireSide
	}{
		{"format=json/kind=WidgetList",
			&wireSide{func(w *bytes.Buffer) error { return ourJSON.Encode(w, ours) }, decodeOurs(ourJSON, "WidgetList")},
			&wireSide{func(w *bytes.Buffer) error { return k8sJSON.Encode(theirs, w) }, decodeTheirs(k8sJSON, nil)}},
		{"format=cbor/kind=WidgetList",
			&wireSide{func(w *bytes.Buffer) error { return ourCBOR.Encode(w, ours) }, decodeOurs(ourCBOR, "WidgetList")},
			&wireSide{func(w *bytes.Buffer) error { return k8sCBORSer.Encode(theirs, w) }, decodeTheirs(k8sCBORSer, nil)}},
		{"format=protobuf/kind=WidgetList",
			&wireSide{func(w *bytes.Buffer) error { return ourProto.Encode(w, ours) }, decodeOurs(ourProto, "WidgetList")},
			nil},
		{"format=protobuf/kind=PartialObjectMetadataList",
			&wireSide{func(w *bytes.Buffer) error { return ourProto.Encode(w, oursMeta) }, decodeOurs(ourProto, "PartialObjectMetadataList")},
			&wireSide{func(w *bytes.Buffer) error { return k8sProto.Encode(theirsMeta, w) },
				decodeTheirs(k8sProto, func() runtime.Object { return &metav1.PartialObjectMetadataList{} })}},
	}
	for _, c := range cases {
		for _, side := range []struct {
			impl string
			ws   *wireSide
		}{{"apikit", c.apikit}, {"apimachinery", c.apimachy}} {
			if side.ws == nil {
				continue
			}
			var buf bytes.Buffer
			if err := side.ws.encode(&buf); err != nil {
				b.Fatalf("%s %s: %v", c.name, side.impl, err)
			}
			data := bytes.Clone(buf.Bytes())
			b.Run(c.name+"/op=encode/impl="+side.impl, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					buf.Reset()
					if err := side.ws.encode(&buf); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(c.name+"/op=decode/impl="+side.impl, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := side.ws.decode(data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// The two sides of BenchmarkWireList must read each other's bytes, or they would not
// be doing the same work.
func TestWireList_BothSidesReadTheSameBytes(t *testing.T) {
	s := api.NewScheme()
	ours, theirs := wireLists(t)
	var a, k bytes.Buffer
	if err := codec.NewJSON(s).Encode(&a, ours); err != nil {
		t.Fatal(err)
	}
	if err := k8sStrictJSON().Encode(theirs, &k); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), k.Bytes()) {
		t.Errorf("JSON lists differ: %d vs %d bytes", a.Len(), k.Len())
	}
	a.Reset()
	k.Reset()
	if err := cbor.New(s).Encode(&a, ours); err != nil {
		t.Fatal(err)
	}
	if err := k8sCBOR().Encode(theirs, &k); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), k.Bytes()) {
		t.Errorf("CBOR lists differ: %d vs %d bytes", a.Len(), k.Len())
	}
	oursMeta, theirsMeta := wireMetaLists(t, ours)
	a.Reset()
	k.Reset()
	ks := k8sProtoScheme(t)
	if err := protobuf.New(s).Encode(&a, oursMeta); err != nil {
		t.Fatal(err)
	}
	if err := kproto.NewSerializer(ks, ks).Encode(theirsMeta, &k); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), k.Bytes()) {
		t.Errorf("protobuf PartialObjectMetadataLists differ: %d vs %d bytes", a.Len(), k.Len())
	}
}
