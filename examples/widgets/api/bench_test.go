package api_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/examples/widgets/api/v1alpha1"
	"github.com/apikit-dev/apikit/scheme"
)

// benchWidget is a v1alpha1 Widget with 20 parts, labels, annotations and status.
func benchWidget() *v1alpha1.Widget {
	w := &v1alpha1.Widget{
		TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1alpha1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{
			Name: "bench", Namespace: "default", UID: "0b7e3f4a-5c1d-4e2f-9a8b-1c2d3e4f5a6b",
			ResourceVersion: "12345", Generation: 3,
			CreationTimestamp: scheme.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)),
			Labels:            map[string]string{"app": "widgets", "tier": "backend"},
			Annotations: map[string]string{
				"note":                        "benchmark",
				v1alpha1.ConditionsAnnotation: `[{"type":"Ready","status":"True","lastTransitionTime":"2024-05-06T07:08:09Z","reason":"Done","message":"all parts present"}]`,
			},
			Finalizers: []string{"toys.example.com/cleanup"},
		},
		Spec: v1alpha1.WidgetSpec{
			Paint:   "blue",
			Scaling: &v1alpha1.WidgetScaling{Replicas: int32Ptr(3)},
		},
		Status: v1alpha1.WidgetStatus{Phase: "Ready", Replicas: 3, ObservedGeneration: 3},
	}
	for i := range 20 {
		w.Spec.Parts = append(w.Spec.Parts, v1alpha1.WidgetPart{Name: fmt.Sprintf("part-%02d", i), Count: int32(i)})
	}
	return w
}

func BenchmarkConvert_V1alpha1ToHubToV1(b *testing.B) {
	s := api.NewScheme()
	in := benchWidget()
	b.ReportAllocs()
	for b.Loop() {
		var h hub.Widget
		if err := conversion.Convert(s, in, &h); err != nil {
			b.Fatal(err)
		}
		var out v1.Widget
		if err := conversion.Convert(s, &h, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDeepCopy_Widget(b *testing.B) {
	s := api.NewScheme()
	var w v1.Widget
	var h hub.Widget
	if err := conversion.Convert(s, benchWidget(), &h); err != nil {
		b.Fatal(err)
	}
	if err := conversion.Convert(s, &h, &w); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if c := scheme.DeepCopy(&w); c == &w {
			b.Fatal("DeepCopy returned its input")
		}
	}
}

// benchV1Widget is benchWidget converted to v1, as the server would store and serve it.
func benchV1Widget(b *testing.B, s *scheme.Scheme) *v1.Widget {
	b.Helper()
	out, err := conversion.ToVersion(s, benchWidget(), v1.GroupVersion)
	if err != nil {
		b.Fatal(err)
	}
	return out.(*v1.Widget)
}

func BenchmarkCodecJSON_EncodeWidget(b *testing.B) {
	s := api.NewScheme()
	w := benchV1Widget(b, s)
	ser := codec.NewJSON(s)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := ser.Encode(&buf, w); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func BenchmarkCodecJSON_DecodeWidget(b *testing.B) {
	s := api.NewScheme()
	ser := codec.NewJSON(s)
	var buf bytes.Buffer
	if err := ser.Encode(&buf, benchV1Widget(b, s)); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := ser.Decode(data, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := res.Object.(*v1.Widget); !ok {
			b.Fatalf("decoded a %T, want *v1.Widget", res.Object)
		}
	}
}
