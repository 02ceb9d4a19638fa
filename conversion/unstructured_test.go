package conversion_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/conversion/conversiontest"
	"github.com/apikit-dev/apikit/scheme"
)

type edgeInner struct {
	X int    `json:"x"`
	Y string `json:"y,omitempty"`
}

type EdgeEmbedded struct {
	P string `json:"p"`
	X int    `json:"x"` // shadowed by edgeInner.X? no: same depth, both untagged... see Edge
}

type upper string

func (u upper) MarshalText() ([]byte, error) { return []byte(strings.ToUpper(string(u))), nil }
func (u *upper) UnmarshalText(b []byte) error {
	*u = upper(strings.ToLower(string(b)))
	return nil
}

type ptrJSON struct{ N int }

func (p *ptrJSON) MarshalJSON() ([]byte, error) {
	return []byte(`{"n":` + strconv.Itoa(p.N) + `,"f":1.5}`), nil
}
func (p *ptrJSON) UnmarshalJSON(b []byte) error {
	var m struct{ N int }
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	p.N = m.N
	return nil
}

// Edge has a field of every shape encoding/json treats specially.
type Edge struct {
	edgeInner
	*EdgeEmbedded `json:",inline"`
	Named         edgeInner          `json:"named"`
	Skip          string             `json:"-"`
	Dash          string             `json:"-,"`
	Quoted        int64              `json:"quoted,string"`
	QuotedB       bool               `json:"qb,string,omitempty"`
	U64           uint64             `json:"u64"`
	U8            uint8              `json:",omitempty"`
	I8            int8               `json:"i8"`
	F32           float32            `json:"f32"`
	F64           float64            `json:"f64,omitempty"`
	Bytes         []byte             `json:"bytes"`
	Arr           [2]int16           `json:"arr"`
	IntMap        map[int32]string   `json:"intMap"`
	Nested        map[string][]int   `json:"nested,omitempty"`
	Any           any                `json:"any"`
	Ptrs          []*edgeInner       `json:"ptrs"`
	Time          scheme.Time        `json:"time"`
	TimeP         *scheme.Time       `json:"timeP,omitempty"`
	Zero          edgeInner          `json:"zero,omitzero"`
	ZeroT         scheme.Time        `json:"zeroT,omitzero"`
	Fields        *scheme.FieldsV1   `json:"fields,omitempty"`
	Upper         upper              `json:"upper"`
	PtrJSON       ptrJSON            `json:"ptrJSON"`
	Conds         []scheme.Condition `json:"conds,omitempty"`
	Str           string
	unexported    string
}

// jsonRoundTrip is what ToUnstructured must equal: json.Marshal, then decoding into a
// map with integral numbers as int64.
func jsonRoundTrip(t testing.TB, obj any) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return numbers(m).(map[string]any)
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

func edgeFiller(seed uint64) *conversiontest.Filler {
	f := conversiontest.NewFiller(seed)
	conversiontest.SetFillFunc(f, func(e *Edge, f *conversiontest.Filler) {
		f.FillDefault(e)
		e.U64 >>= 1 // above MaxInt64 a uint64 travels as float64, which loses digits
		switch f.Rand().IntN(4) {
		case 0:
			e.Any = map[string]any{"a": []any{"s", true, nil, int64(3), 2.5, float64(4)}, "b": map[string]any{}}
		case 1:
			e.Any = float64(f.Rand().IntN(100))
		case 2:
			e.Any = &edgeInner{X: 1}
		}
	})
	return f
}

func TestToUnstructured_MatchesEncodingJSONOnRandomObjects(t *testing.T) {
	tests := []struct {
		name string
		new  func() any
	}{
		{"edge cases of encoding/json", func() any { return &Edge{} }},
		{"a Kubernetes-style object", func() any { return &Gadget{} }},
		{"a list", func() any { return &V1GadgetList{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := uint64(0); seed < 300; seed++ {
				obj := tt.new()
				edgeFiller(seed).Fill(obj)
				got, err := conversion.ToUnstructured(obj)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if diff := cmp.Diff(jsonRoundTrip(t, obj), got); diff != "" {
					t.Fatalf("seed %d: ToUnstructured differs from the JSON round trip (-json +got):\n%s", seed, diff)
				}
			}
		})
	}
}

func TestFromUnstructured_MatchesEncodingJSONOnRandomObjects(t *testing.T) {
	tests := []struct {
		name string
		new  func() any
	}{
		{"edge cases of encoding/json", func() any { return &Edge{} }},
		{"a Kubernetes-style object", func() any { return &Gadget{} }},
		{"a list", func() any { return &V1GadgetList{} }},
	}
	opts := cmp.Options{timeCmp, cmpopts.IgnoreUnexported(Edge{}), cmp.AllowUnexported()}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := uint64(0); seed < 300; seed++ {
				obj := tt.new()
				edgeFiller(seed).Fill(obj)
				if e, ok := obj.(*Edge); ok {
					e.Any = nil // json.Unmarshal gives float64 for every number in an any; we keep int64
				}
				m, err := conversion.ToUnstructured(obj)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(obj)
				want, got := tt.new(), tt.new()
				if err := json.Unmarshal(b, want); err != nil {
					t.Fatal(err)
				}
				if err := conversion.FromUnstructured(m, got); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if diff := cmp.Diff(want, got, opts...); diff != "" {
					t.Fatalf("seed %d: FromUnstructured differs from json.Unmarshal (-json +got):\n%s", seed, diff)
				}
			}
		})
	}
}

func TestToUnstructured_SpecialValues(t *testing.T) {
	tests := []struct {
		name string
		obj  any
	}{
		{"invalid UTF-8 becomes U+FFFD per byte", &struct{ S string }{S: "a\xff\xfeb\xe2\x82"}},
		{"large uint64 becomes float64", &struct{ U uint64 }{U: math.MaxUint64}},
		{"integral floats become int64", &struct{ F, G float64 }{F: 3, G: -0.0}},
		{"huge floats stay float64", &struct{ F, G float64 }{F: 1e20, G: 1e21}},
		{"tiny floats", &struct{ F float32 }{F: 1e-7}},
		{"float32 keeps its short form", &struct{ F float32 }{F: 0.1}},
		{"zero time is null", &struct{ T scheme.Time }{}},
		{"nil pointer embedded struct is skipped", &Edge{}},
		{"a struct value cannot use pointer-receiver MarshalJSON", struct{ E Edge }{E: Edge{PtrJSON: ptrJSON{N: 4}}}},
		{"an interface value cannot either", &struct{ A any }{A: ptrJSON{N: 5}}},
		{"but a pointer in an interface can", &struct{ A any }{A: &ptrJSON{N: 6}}},
		{"nil map and slice are null", &struct {
			M map[string]int
			S []int
		}{}},
		{"empty map and slice stay empty", &struct {
			M map[string]int
			S []int
		}{M: map[string]int{}, S: []int{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := conversion.ToUnstructured(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(jsonRoundTrip(t, tt.obj), got); diff != "" {
				t.Errorf("(-json +got):\n%s", diff)
			}
		})
	}
}

func TestToUnstructured_Errors(t *testing.T) {
	tests := []struct {
		name string
		obj  any
	}{
		{"NaN", &struct{ F float64 }{F: math.NaN()}},
		{"infinity", &struct{ F float64 }{F: math.Inf(1)}},
		{"not an object", ptr(3)},
		{"channel", &struct{ C chan int }{C: make(chan int)}},
		{"nil", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := conversion.ToUnstructured(tt.obj); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestFromUnstructured_NumbersAndRanges(t *testing.T) {
	type nums struct {
		I8  int8    `json:"i8"`
		U16 uint16  `json:"u16"`
		I64 int64   `json:"i64"`
		F32 float32 `json:"f32"`
		F64 float64 `json:"f64"`
		S   string  `json:"s"`
		P   *int32  `json:"p"`
	}
	tests := []struct {
		name    string
		in      map[string]any
		want    nums
		wantErr string
	}{
		{"int64 into every numeric kind", map[string]any{"i8": int64(-128), "u16": int64(65535), "i64": int64(math.MaxInt64), "f32": int64(2), "f64": int64(-7)},
			nums{I8: -128, U16: 65535, I64: math.MaxInt64, F32: 2, F64: -7}, ""},
		{"integral float64 into integers", map[string]any{"i8": float64(5), "u16": float64(6)}, nums{I8: 5, U16: 6}, ""},
		{"other Go numbers", map[string]any{"i8": 3, "u16": uint8(4), "f64": float32(0.5), "p": int64(9)}, nums{I8: 3, U16: 4, F64: 0.5, P: ptr[int32](9)}, ""},
		{"nulls leave zero values", map[string]any{"i8": nil, "s": nil, "p": nil}, nums{}, ""},
		{"unknown keys are ignored", map[string]any{"other": "x", "I8": int64(4)}, nums{}, ""},
		{"int8 overflow", map[string]any{"i8": int64(128)}, nums{}, "i8: value 128 overflows int8"},
		{"negative into uint", map[string]any{"u16": int64(-1)}, nums{}, "u16: value -1 overflows uint16"},
		{"uint16 overflow", map[string]any{"u16": int64(70000)}, nums{}, "u16: value 70000 overflows uint16"},
		{"fraction into integer", map[string]any{"i64": 1.5}, nums{}, "i64: cannot unmarshal number 1.5"},
		{"float64 beyond int64", map[string]any{"i64": 1e19}, nums{}, "i64: value 1e+19 overflows int64"},
		{"float32 overflow", map[string]any{"f32": 1e39}, nums{}, "f32: value 1e+39 overflows float32"},
		{"pointer overflow", map[string]any{"p": int64(1) << 40}, nums{}, "p: value 1099511627776 overflows int32"},
		{"string into number", map[string]any{"i64": "5"}, nums{}, "i64: cannot unmarshal string into Go value of type int64"},
		{"number into string", map[string]any{"s": int64(5)}, nums{}, "s: cannot unmarshal number into Go value of type string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got nums
			err := conversion.FromUnstructured(tt.in, &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromUnstructured_Values(t *testing.T) {
	type holder struct {
		T    scheme.Time       `json:"t"`
		TP   *scheme.Time      `json:"tp"`
		Up   upper             `json:"up"`
		PJ   ptrJSON           `json:"pj"`
		Any  any               `json:"any"`
		Tags []string          `json:"tags"`
		M    map[string]string `json:"m"`
		B    []byte            `json:"b"`
	}
	in := map[string]any{
		"t":    "2024-01-02T03:04:05Z",
		"tp":   "2025-01-02T03:04:05Z",
		"up":   "LOUD",
		"pj":   map[string]any{"n": int64(7)},
		"any":  map[string]any{"x": []any{int64(1)}},
		"tags": []string{"a", "b"}, // a Go slice put into the map by hand
		"m":    map[string]any{"k": "v"},
		"b":    "aGk=",
	}
	var got holder
	if err := conversion.FromUnstructured(in, &got); err != nil {
		t.Fatal(err)
	}
	if got.T.UTC().Format("2006-01-02T15:04:05Z") != "2024-01-02T03:04:05Z" || got.TP == nil || got.TP.Year() != 2025 {
		t.Errorf("times: %v %v", got.T, got.TP)
	}
	if got.Up != "loud" || got.PJ.N != 7 || string(got.B) != "hi" || got.M["k"] != "v" || len(got.Tags) != 2 {
		t.Errorf("values: %+v", got)
	}
	in["any"].(map[string]any)["x"].([]any)[0] = int64(2)
	if got.Any.(map[string]any)["x"].([]any)[0] != int64(1) {
		t.Error("FromUnstructured kept a reference into the map")
	}
	err := conversion.FromUnstructured(map[string]any{"t": "yesterday"}, &got)
	if err == nil || !strings.Contains(err.Error(), "t: ") {
		t.Errorf("bad time: err = %v", err)
	}
}

func TestFromUnstructured_ZeroesTheTargetFirst(t *testing.T) {
	g := sampleGadget()
	if err := conversion.FromUnstructured(map[string]any{"spec": map[string]any{"color": "blue"}}, g); err != nil {
		t.Fatal(err)
	}
	if g.Name != "" || g.Spec.Tags != nil || g.Spec.Color != "blue" {
		t.Errorf("target not zeroed first: %+v", g)
	}
	if err := conversion.FromUnstructured(nil, 5); err == nil {
		t.Error("non-pointer accepted")
	}
}

func TestUnstructured_RoundTripIsIdentityForKubernetesObjects(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		in := &Gadget{}
		conversiontest.NewFiller(seed).Fill(in)
		m, err := conversion.ToUnstructured(in)
		if err != nil {
			t.Fatal(err)
		}
		var out Gadget
		if err := conversion.FromUnstructured(m, &out); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(in, &out, timeCmp, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("seed %d (-in +out):\n%s", seed, diff)
		}
	}
}

func TestToUnstructured_OfUnstructuredCopies(t *testing.T) {
	u := &scheme.Unstructured{Object: map[string]any{"a": map[string]any{"b": float64(2)}}}
	m, err := conversion.ToUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	if m["a"].(map[string]any)["b"] != int64(2) {
		t.Errorf("number not normalized: %#v", m)
	}
	m["a"].(map[string]any)["b"] = "x"
	if u.Object["a"].(map[string]any)["b"] != float64(2) {
		t.Error("result shares memory with the input")
	}
	var back scheme.Unstructured
	if err := conversion.FromUnstructured(m, &back); err != nil || back.Object["a"].(map[string]any)["b"] != "x" {
		t.Errorf("FromUnstructured into Unstructured: %v %v", err, back.Object)
	}
	if !errors.Is(nil, nil) {
		t.Skip()
	}
}
