package protobuf

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/codec/internal/encodetest"
	"github.com/apikit-dev/apikit/scheme"
)

func TestEncode_BufferAndOtherWritersGetTheSameBytes(t *testing.T) {
	tm := scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
	big := &scheme.PartialObjectMetadataList{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}}
	for i := range 6000 { // over the small-buffer size class
		big.Items = append(big.Items, scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: scheme.ObjectMeta{
			Name: fmt.Sprintf("item-%05d", i), Namespace: "default", CreationTimestamp: t0,
			Labels: map[string]string{"app": "demo", "tier": "backend", "z": "last", "a": "first"},
		}})
	}
	tests := []struct {
		name string
		obj  scheme.Kinded
	}{
		{"small object", &scheme.PartialObjectMetadata{TypeMeta: tm, ObjectMeta: scheme.ObjectMeta{Name: "one"}}},
		{"large list", big},
	}
	ser := New(testScheme())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { encodetest.BufferAndWriterAgree(t, ser, tt.obj) })
	}
}

func TestDecode_StringsSurviveTheInputBeingReused(t *testing.T) {
	pom := &scheme.PartialObjectMetadata{
		TypeMeta:   scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
		ObjectMeta: scheme.ObjectMeta{Name: "n", Namespace: "ns", UID: "u", Labels: map[string]string{"k": "v"}, Annotations: map[string]string{"a": "b"}},
	}
	tests := []struct {
		name string
		obj  scheme.Kinded
	}{
		{"PartialObjectMetadata with labels and annotations", pom},
		{"PartialObjectMetadata with owner references and managed fields", &scheme.PartialObjectMetadata{
			TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: fullMeta()}},
		{"Status with details and causes", sampleStatus()},
		{"PartialObjectMetadataList", &scheme.PartialObjectMetadataList{
			TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
			ListMeta: scheme.ListMeta{ResourceVersion: "9", Continue: "c"},
			Items:    []scheme.PartialObjectMetadata{{ObjectMeta: fullMeta()}, {ObjectMeta: scheme.ObjectMeta{Name: "b"}}}}},
	}
	ser := New(testScheme())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := ser.Encode(&buf, tt.obj); err != nil {
				t.Fatal(err)
			}
			data := buf.Bytes()
			res, err := ser.Decode(data, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range data { // the decoded strings must not alias the input
				data[i] = 'X'
			}
			if diff := cmp.Diff(tt.obj, res.Object); diff != "" {
				t.Errorf("decoded object changed with its input (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecode_ListItemsAreAllocatedAtTheirCount(t *testing.T) {
	for _, n := range []int{1, 3, 17} {
		t.Run(fmt.Sprintf("%d items", n), func(t *testing.T) {
			in := &scheme.PartialObjectMetadataList{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}}
			for i := range n {
				in.Items = append(in.Items, scheme.PartialObjectMetadata{ObjectMeta: scheme.ObjectMeta{Name: fmt.Sprint(i)}})
			}
			res, err := New(testScheme()).Decode(encode(t, New(testScheme()), in), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			items := res.Object.(*scheme.PartialObjectMetadataList).Items
			if len(items) != n || cap(items) != n {
				t.Errorf("items: len %d cap %d, want both %d", len(items), cap(items), n)
			}
		})
	}
}

func TestCountField_CountsOneFieldAndStopsAtMalformedInput(t *testing.T) {
	msg := appendString(appendString(appendVarintField(appendString(nil, 2, "a"), 1, 7), 2, "bb"), 3, "c")
	tests := []struct {
		name string
		data []byte
		num  protowire.Number
		want int
	}{
		{"repeated field among others", msg, 2, 2},
		{"field that appears once", msg, 1, 1},
		{"absent field", msg, 9, 0},
		{"empty message", nil, 2, 0},
		{"truncated value counts what came before", append(appendString(nil, 2, "a"), 0x12, 0x05, 'x'), 2, 1},
		{"group is not skipped", append(appendString(nil, 2, "a"), 0x13), 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := countField(tt.data, tt.num); got != tt.want {
				t.Errorf("countField = %d, want %d", got, tt.want)
			}
		})
	}
}
