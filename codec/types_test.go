package codec

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
)

// Widget is the kind the benchmarks and scheme tests use: the v1 Widget of
// toys.example.com, the API apikit's tests share (internal/testapi), as a type of this
// package so that the tests can name it (*codec.Widget) and register it under the group
// example.com.
type Widget toys.WidgetV1

type (
	WidgetSpec   = toys.WidgetSpec
	Part         = toys.WidgetPart
	WidgetStatus = toys.WidgetStatus
)

type WidgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

var widgetGV = scheme.GroupVersion{Group: "example.com", Version: "v1"}

func testScheme() *scheme.Scheme {
	s := scheme.New()
	s.AddKnownTypes(widgetGV, &Widget{}, &WidgetList{})
	s.AddUnstructuredKind(widgetGV.WithKind("Gadget"))
	s.AddUnstructuredKind(widgetGV.WithKind("GadgetList"))
	return s
}

// widgetJSON renders a Widget document with n parts.
func widgetJSON(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default","uid":"5f0c2a4e-8d1b-4c43-9a55-1b2c3d4e5f60","resourceVersion":"12345","generation":3,"creationTimestamp":"2024-05-01T10:00:00Z","labels":{"app":"demo","tier":"backend"},"annotations":{"example.com/note":"a widget for benchmarks"}},"spec":{"color":"blue","replicas":3,"parts":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"part-%04d","count":%d}`, i, i*7)
	}
	b.WriteString(`]},"status":{"phase":"Running","replicas":3,"observedGeneration":3,"conditions":[{"type":"Ready","status":"True","observedGeneration":3,"lastTransitionTime":"2024-05-01T10:05:00Z","reason":"AllGood","message":"all parts present"},{"type":"Progressing","status":"False","lastTransitionTime":"2024-05-01T10:04:00Z","reason":"Done","message":""}]}}`)
	return []byte(b.String())
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
