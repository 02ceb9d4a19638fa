package api_test

import (
	"bytes"
	"testing"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/conversion/conversiontest"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	"github.com/apikit-dev/apikit/scheme"
)

var (
	widgetKind    = scheme.GroupKind{Group: api.Group, Kind: "Widget"}
	warehouseKind = scheme.GroupKind{Group: api.Group, Kind: "Warehouse"}
)

// fillWidgetSpec keeps what defaulting would change out of random hub specs (replicas is
// never nil in a defaulted object) and picks valid colors.
func fillWidgetSpec(spec *hub.WidgetSpec, f *conversiontest.Filler) {
	f.FillDefault(spec)
	spec.Color = []string{"red", "green", "blue"}[f.Rand().IntN(3)]
	if spec.Replicas == nil {
		spec.Replicas = new(int32)
	}
}

// fillWidget constrains one case no encoding can keep: a hub Widget with conditions and an
// empty (not nil) annotations map. v1alpha1 carries the conditions as the only annotation,
// and removing it again cannot tell an empty map from nil.
func fillWidget(w *hub.Widget, f *conversiontest.Filler) {
	f.FillDefault(w)
	if w.Status.Conditions != nil && w.Annotations != nil && len(w.Annotations) == 0 {
		w.Annotations = nil
	}
}

func jsonCodec(s *scheme.Scheme) conversiontest.Option {
	ser := codec.NewJSON(s)
	return conversiontest.Codec(
		func(obj scheme.Kinded) ([]byte, error) {
			var buf bytes.Buffer
			err := ser.Encode(&buf, obj)
			return buf.Bytes(), err
		},
		func(data []byte, into scheme.Kinded) error {
			_, err := ser.Decode(data, nil, into)
			return err
		},
	)
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		gk   scheme.GroupKind
		opts func(s *scheme.Scheme) []conversiontest.Option
	}{
		{"widget through the hub in memory", widgetKind, func(*scheme.Scheme) []conversiontest.Option {
			return []conversiontest.Option{
				conversiontest.Iterations(3000),
				conversiontest.FillFunc(fillWidgetSpec),
				conversiontest.FillFunc(fillWidget),
				conversiontest.Versioned(),
			}
		}},
		{"widget through the hub and JSON", widgetKind, func(s *scheme.Scheme) []conversiontest.Option {
			return append([]conversiontest.Option{},
				conversiontest.Iterations(1000),
				conversiontest.Seed(100_000),
				conversiontest.FillFunc(fillWidgetSpec),
				conversiontest.Versioned(),
				jsonCodec(s),
			)
		}},
		{"warehouse through the hub in memory", warehouseKind, func(*scheme.Scheme) []conversiontest.Option {
			return []conversiontest.Option{conversiontest.Iterations(3000), conversiontest.Versioned()}
		}},
		{"warehouse through the hub and JSON", warehouseKind, func(s *scheme.Scheme) []conversiontest.Option {
			return append([]conversiontest.Option{},
				conversiontest.Iterations(1000), conversiontest.Seed(100_000), conversiontest.Versioned(), jsonCodec(s))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := api.NewScheme()
			conversiontest.RoundTrip(t, s, tt.gk, tt.opts(s)...)
		})
	}
}

// The round trip must actually reach v1alpha1's differences: a sample of filled hub
// widgets has conditions, replicas and parts often enough.
func TestRoundTrip_FillerReachesTheFieldsThatDiffer(t *testing.T) {
	var withConditions, withParts, withAnnotations int
	for seed := range uint64(200) {
		f := conversiontest.NewFiller(seed)
		conversiontest.SetFillFunc(f, fillWidgetSpec)
		var w hub.Widget
		f.Fill(&w)
		if len(w.Status.Conditions) > 0 {
			withConditions++
		}
		if len(w.Spec.Parts) > 0 {
			withParts++
		}
		if len(w.Annotations) > 0 {
			withAnnotations++
		}
	}
	for name, n := range map[string]int{"conditions": withConditions, "parts": withParts, "annotations": withAnnotations} {
		if n < 50 {
			t.Errorf("only %d of 200 filled widgets have %s", n, name)
		}
	}
}
