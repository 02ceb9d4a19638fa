package v1_test

import (
	"bytes"
	"testing"

	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

func TestProtobuf_WidgetAndWarehouseRoundTrip(t *testing.T) {
	s := api.NewScheme()
	ser := protobuf.New(s)
	replicas := int32(2)
	objs := []scheme.Kinded{
		&v1.Widget{
			TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
			ObjectMeta: scheme.ObjectMeta{Name: "w", Namespace: "ns", Labels: map[string]string{"a": "b"}},
			Spec:       v1.WidgetSpec{Color: "red", Replicas: &replicas, Parts: []v1.WidgetPart{{Name: "gear", Count: 3}}},
			Status:     v1.WidgetStatus{Phase: "Ready", Replicas: 2, ObservedGeneration: 1},
		},
		&v1.Warehouse{
			TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Warehouse"},
			ObjectMeta: scheme.ObjectMeta{Name: "depot"},
			Spec:       v1.WarehouseSpec{Location: "north", Capacity: 40},
		},
	}
	for _, obj := range objs {
		var buf bytes.Buffer
		if err := ser.Encode(&buf, obj); err != nil {
			t.Fatalf("encode %T: %v", obj, err)
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte("k8s\x00")) {
			t.Fatalf("%T: no protobuf envelope", obj)
		}
		res, err := ser.Decode(buf.Bytes(), nil, nil)
		if err != nil {
			t.Fatalf("decode %T: %v", obj, err)
		}
		if d := cmp.Diff(obj, res.Object); d != "" {
			t.Errorf("%T round trip (-want +got):\n%s", obj, d)
		}
	}
}
