package conversiontest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/conversion/conversiontest"
	"github.com/apikit-dev/apikit/conversion/internal/gadgets"
	"github.com/apikit-dev/apikit/scheme"
)

// The tests round-trip the Gadgets of the test group gadgets.test
// (conversion/internal/gadgets).

type options struct {
	lossyV2   bool // v2 -> hub forgets the tags
	defaultV1 bool // v1 defaults size to 5
}

func newScheme(o options) *scheme.Scheme {
	s := scheme.New()
	gadgets.AddToScheme(s)
	if o.lossyV2 {
		// Nested in the registered top-level function, this one converts the spec.
		conversion.Register(s, func(in *gadgets.V2GadgetSpec, out *gadgets.GadgetSpec, sc conversion.Scope) error {
			if err := sc.AutoConvert(in, out); err != nil {
				return err
			}
			out.Tags = nil
			return nil
		})
	}
	if o.defaultV1 {
		conversion.RegisterDefaults(s, func(g *gadgets.V1Gadget) {
			if g.Spec.Size == 0 {
				g.Spec.Size = 5
			}
		})
	}
	return s
}

// v2SizingOnlyWithASize keeps v2's spec.sizing to what the hub can express: the hub's size 0
// is no sizing at all, so a v2 object with sizing {size: 0} cannot come back as it was.
var v2SizingOnlyWithASize = conversiontest.FillFunc(func(spec *gadgets.V2GadgetSpec, f *conversiontest.Filler) {
	f.FillDefault(spec)
	if spec.Sizing != nil && spec.Sizing.Size == 0 {
		spec.Sizing = nil
	}
})

// recorder is a testing.TB that records failures instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func jsonEncode(obj scheme.Kinded) ([]byte, error)     { return json.Marshal(obj) }
func jsonDecode(data []byte, into scheme.Kinded) error { return json.Unmarshal(data, into) }

func TestRoundTrip_PassesForLosslessConversions(t *testing.T) {
	tests := []struct {
		name string
		opts []conversiontest.Option
	}{
		{"in memory", nil},
		{"through a JSON codec", []conversiontest.Option{conversiontest.Codec(jsonEncode, jsonDecode)}},
		{"both directions", []conversiontest.Option{conversiontest.Versioned(), v2SizingOnlyWithASize}},
		{"both directions through a codec", []conversiontest.Option{conversiontest.Versioned(), v2SizingOnlyWithASize, conversiontest.Codec(jsonEncode, jsonDecode)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			conversiontest.RoundTrip(r, newScheme(options{}), gadgets.Kind, append(tt.opts, conversiontest.Iterations(300))...)
			if len(r.errors) > 0 {
				t.Errorf("RoundTrip failed a lossless conversion:\n%s", strings.Join(r.errors, "\n"))
			}
		})
	}
}

func TestRoundTrip_CatchesALossyConversion(t *testing.T) {
	r := &recorder{TB: t}
	conversiontest.RoundTrip(r, newScheme(options{lossyV2: true}), gadgets.Kind, conversiontest.Iterations(100), conversiontest.Seed(7))
	if len(r.errors) != 1 {
		t.Fatalf("RoundTrip reported %d failures, want 1: %q", len(r.errors), r.errors)
	}
	msg := r.errors[0]
	for _, want := range []string{"internal -> v2 -> internal", "seed ", "Tags"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure %q does not mention %q", msg, want)
		}
	}
}

func TestRoundTrip_DefaultingThatChangesFilledObjectsFailsUnlessConstrained(t *testing.T) {
	s := newScheme(options{defaultV1: true})
	r := &recorder{TB: t}
	conversiontest.RoundTrip(r, s, gadgets.Kind, conversiontest.Iterations(100), conversiontest.Versions("v1"))
	if len(r.errors) == 0 {
		t.Fatal("defaulting of size 0 to 5 went unnoticed")
	}
	r = &recorder{TB: t}
	conversiontest.RoundTrip(r, s, gadgets.Kind, conversiontest.Iterations(100), conversiontest.Versions("v1"),
		conversiontest.FillFunc(func(spec *gadgets.GadgetSpec, f *conversiontest.Filler) {
			f.FillDefault(spec)
			if spec.Size == 0 {
				spec.Size = 5
			}
		}))
	if len(r.errors) > 0 {
		t.Errorf("constrained fill still failed: %s", r.errors[0])
	}
}

func TestRoundTrip_ReportsMissingVersions(t *testing.T) {
	s := scheme.New()
	s.AddKnownTypeWithName(gadgets.Internal.WithKind("Gadget"), &gadgets.Gadget{})
	r := &recorder{TB: t}
	conversiontest.RoundTrip(r, s, gadgets.Kind)
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "no external version") {
		t.Errorf("errors = %q", r.errors)
	}
	r = &recorder{TB: t}
	conversiontest.RoundTrip(r, scheme.New(), gadgets.Kind)
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "no internal version") {
		t.Errorf("errors = %q", r.errors)
	}
}

func TestFiller_SameSeedSameValues(t *testing.T) {
	differs := 0
	for seed := uint64(0); seed < 50; seed++ {
		a, b, c := &gadgets.Gadget{}, &gadgets.Gadget{}, &gadgets.Gadget{}
		conversiontest.NewFiller(seed).Fill(a)
		conversiontest.NewFiller(seed).Fill(b)
		conversiontest.NewFiller(seed + 1000).Fill(c)
		if diff := cmp.Diff(a, b, cmp.Comparer(func(x, y scheme.Time) bool { return x.Equal(&y) })); diff != "" {
			t.Fatalf("seed %d filled differently:\n%s", seed, diff)
		}
		if !cmp.Equal(a, c, cmp.Comparer(func(x, y scheme.Time) bool { return x.Equal(&y) })) {
			differs++
		}
	}
	if differs < 45 {
		t.Errorf("only %d of 50 seeds gave objects different from another seed's", differs)
	}
}

func TestFiller_CoversNilEmptyAndFull(t *testing.T) {
	var nilTags, emptyTags, fullTags, nilInner, timesSet int
	for seed := uint64(0); seed < 200; seed++ {
		th := &gadgets.Gadget{}
		conversiontest.NewFiller(seed).Fill(th)
		switch {
		case th.Spec.Tags == nil:
			nilTags++
		case len(th.Spec.Tags) == 0:
			emptyTags++
		default:
			fullTags++
		}
		if th.Spec.Owner == nil {
			nilInner++
		}
		if !th.CreationTimestamp.IsZero() {
			timesSet++
			if th.CreationTimestamp.Nanosecond() != 0 || th.CreationTimestamp.Location().String() != "UTC" {
				t.Fatalf("time %v is not at second precision in UTC", th.CreationTimestamp)
			}
		}
		if th.APIVersion != "" || th.Kind != "" {
			t.Fatal("TypeMeta was filled")
		}
	}
	if nilTags == 0 || emptyTags == 0 || fullTags == 0 || nilInner == 0 || nilInner == 200 || timesSet == 0 {
		t.Errorf("nil %d, empty %d, full %d slices; %d nil pointers; %d times set", nilTags, emptyTags, fullTags, nilInner, timesSet)
	}
}
