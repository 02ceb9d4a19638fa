package registry

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
)

// TestSpecEqual_TypedAgreesWithTheUnstructuredForm checks specEqual's typed shortcut
// (Go values compared without metadata and status) against the rule it stands for: the
// unstructured forms of the whole objects compared outside metadata, status, apiVersion
// and kind.
func TestSpecEqual_TypedAgreesWithTheUnstructuredForm(t *testing.T) {
	one, two := int32(1), int32(2)
	base := func() *toys.Widget {
		return &toys.Widget{
			TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
			ObjectMeta: scheme.ObjectMeta{Name: "w", Labels: map[string]string{"a": "b"}, ResourceVersion: "5"},
			Spec:       toys.WidgetSpec{Color: "red", Replicas: &one, Parts: []toys.WidgetPart{{Name: "p", Count: 1}}},
			Status:     toys.WidgetStatus{Phase: "Ready"},
		}
	}
	tests := []struct {
		name   string
		both   func(*toys.Widget) // applied to both objects first, when set
		change func(*toys.Widget)
		want   bool
		// inStatus: the change is to status only, which counts for a resource without
		// a status subresource (withStatus).
		inStatus bool
	}{
		{"identical objects are equal", nil, func(*toys.Widget) {}, true, false},
		{"other metadata is equal", nil, func(w *toys.Widget) {
			w.Labels = map[string]string{"c": "d"}
			w.ResourceVersion = "6"
			w.ManagedFields = []scheme.ManagedFieldsEntry{{Manager: "m", Operation: "Update", FieldsType: "FieldsV1", FieldsV1: &scheme.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}
		}, true, false},
		{"other status is equal", nil, func(w *toys.Widget) { w.Status.Phase = "Pending" }, true, true},
		{"other type information is equal", nil, func(w *toys.Widget) { w.APIVersion = "" }, true, false},
		{"an equal value behind another pointer is equal", nil, func(w *toys.Widget) { r := int32(1); w.Spec.Replicas = &r }, true, false},
		{"an empty list that encodes as the absent one is equal", func(w *toys.Widget) { w.Spec.Parts = nil }, func(w *toys.Widget) { w.Spec.Parts = []toys.WidgetPart{} }, true, false},
		{"another scalar differs", nil, func(w *toys.Widget) { w.Spec.Replicas = &two }, false, false},
		{"a missing pointer differs", nil, func(w *toys.Widget) { w.Spec.Replicas = nil }, false, false},
		{"another list item differs", nil, func(w *toys.Widget) { w.Spec.Parts[0].Count = 2 }, false, false},
		{"an absent list differs", nil, func(w *toys.Widget) { w.Spec.Parts = nil }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := base(), base()
			if tt.both != nil {
				tt.both(a)
				tt.both(b)
			}
			tt.change(b)
			wantA, wantB := scheme.DeepCopy(a), scheme.DeepCopy(b)
			for _, c := range []struct {
				pair       [2]*toys.Widget
				withStatus bool
			}{{[2]*toys.Widget{a, b}, false}, {[2]*toys.Widget{b, a}, false}, {[2]*toys.Widget{a, b}, true}, {[2]*toys.Widget{b, a}, true}} {
				pair, want := c.pair, tt.want && !(c.withStatus && tt.inStatus)
				got, err := specEqual(pair[0], pair[1], c.withStatus)
				if err != nil {
					t.Fatal(err)
				}
				am, err := conversion.ObjectMap(pair[0])
				if err != nil {
					t.Fatal(err)
				}
				bm, err := conversion.ObjectMap(pair[1])
				if err != nil {
					t.Fatal(err)
				}
				if oracle := specMapsEqual(am, bm, c.withStatus); got != want || oracle != want {
					t.Errorf("withStatus %v: specEqual = %v, on the whole unstructured objects %v; want %v", c.withStatus, got, oracle, want)
				}
				ua, ub := &scheme.Unstructured{Object: am}, &scheme.Unstructured{Object: bm}
				if got, err := specEqual(ua, ub, c.withStatus); err != nil || got != want {
					t.Errorf("withStatus %v: specEqual of the unstructured forms = %v (%v); want %v", c.withStatus, got, err, want)
				}
			}
			if !reflect.DeepEqual(a, wantA) || !reflect.DeepEqual(b, wantB) {
				t.Errorf("specEqual changed its arguments: %+v, %+v", a, b)
			}
		})
	}
}

// diffSample has members of every kind jsonDiffers looks into, and some it must not.
type diffSample struct {
	Embedded
	B      bool              `json:"b"`
	I      int32             `json:"i,omitempty"`
	U      uint8             `json:"u"`
	F      float64           `json:"f,omitempty"`
	S      string            `json:"s"`
	P      *int              `json:"p,omitempty"`
	L      []string          `json:"l,omitempty"`
	Bytes  []byte            `json:"bytes"`
	A      [2]int            `json:"a"`
	M      map[string]int    `json:"m,omitempty"`
	Any    any               `json:"any"`
	Quoted int               `json:"quoted,string"`
	Hidden int               `json:"-"`
	T      scheme.Time       `json:"t"`
	Nested *diffSample       `json:"nested,omitempty"`
	Labels map[string]string `json:"labels"`
	Same   sameJSON          `json:"same"`
}

// sameJSON encodes alike whatever its value.
type sameJSON struct{ N int }

func (sameJSON) MarshalJSON() ([]byte, error) { return []byte(`"same"`), nil }

type Embedded struct {
	E string `json:"e"`
}

// TestJSONDiffers_OnlyWhereTheUnstructuredFormsDiffer checks jsonDiffers against the
// unstructured forms of random pairs of values: it may not know, but when it says
// they differ, they do.
func TestJSONDiffers_OnlyWhereTheUnstructuredFormsDiffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 16))
	pick := func(options ...any) any { return options[rng.IntN(len(options))] }
	random := func() *diffSample {
		one, two := 1, 2
		d := &diffSample{
			Embedded: Embedded{E: pick("", "e").(string)},
			B:        pick(true, false).(bool),
			I:        pick(int32(0), int32(1)).(int32),
			U:        pick(uint8(0), uint8(7)).(uint8),
			F:        pick(0.0, math.Copysign(0, -1), 1.5, math.NaN()).(float64),
			S:        pick("a", "b", "\xff", "\xfe", "\ufffd").(string),
			P:        pick((*int)(nil), &one, &two).(*int),
			L:        pick([]string(nil), []string{}, []string{"x"}, []string{"y"}, []string{"x", "y"}).([]string),
			Bytes:    pick([]byte(nil), []byte{}, []byte("ab")).([]byte),
			A:        pick([2]int{}, [2]int{1, 0}).([2]int),
			M:        pick(map[string]int(nil), map[string]int{}, map[string]int{"k": 1}, map[string]int{"k": 2, "\xff": 1}).(map[string]int),
			Any:      pick(nil, 1, 2, "1", int64(1), 1.0),
			Quoted:   pick(0, 3).(int),
			Hidden:   pick(0, 9).(int),
			T:        pick(scheme.Time{}, scheme.Time{Time: time.Unix(1, 0)}, scheme.Time{Time: time.Unix(1, 5)}).(scheme.Time),
			Labels:   pick(map[string]string(nil), map[string]string{"a": "b"}, map[string]string{"a": "c"}).(map[string]string),
			Same:     sameJSON{N: rng.IntN(2)},
		}
		if rng.IntN(3) == 0 {
			d.Nested = &diffSample{S: pick("a", "b").(string), A: [2]int{rng.IntN(2)}}
		}
		return d
	}
	said := 0
	for i := range 5000 {
		// b is a with one member of another random value.
		a, other := random(), random()
		b := new(diffSample)
		*b = *a
		k := rng.IntN(reflect.TypeFor[diffSample]().NumField())
		reflect.ValueOf(b).Elem().Field(k).Set(reflect.ValueOf(other).Elem().Field(k))
		if !jsonDiffers(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()) {
			continue
		}
		said++
		am, errA := conversion.ToUnstructured(a)
		bm, errB := conversion.ToUnstructured(b)
		if errA != nil || errB != nil {
			continue // NaN: nothing encodes
		}
		if reflect.DeepEqual(am, bm) {
			t.Fatalf("case %d: jsonDiffers says %+v and %+v differ; their unstructured forms are equal: %v", i, a, b, am)
		}
	}
	if said < 500 {
		t.Fatalf("jsonDiffers told a difference in %d of 5000 random pairs only", said)
	}
}
