package conversiontest

import (
	"math"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// Filler fills Go values with random content by reflection, for round-trip tests. It
// reaches every field kind: strings, numbers (zero, small or anywhere in range), bools,
// pointers (nil or set), slices and maps (nil, empty or with elements), arrays, nested structs. scheme.Time gets a random instant
// at second precision in UTC, scheme.FieldsV1 a small valid JSON field set, and
// scheme.TypeMeta stays empty (internal objects carry no apiVersion or kind). Interface
// fields stay nil. Functions set with SetFillFunc replace the default for their type, for
// values with constraints (enums, fields a version cannot represent).
//
// The same seed always produces the same values.
type Filler struct {
	// NilChance is the probability that a pointer, slice or map is left nil (and, with the
	// same probability again, that a slice or map is made empty). Default 0.2.
	NilChance float64
	// MaxLen bounds the number of elements of slices and maps and the length of strings
	// (twice it for strings). Default 3.
	MaxLen int
	// MaxDepth bounds how deep pointers, slices and maps nest, so recursive types end.
	// Default 6.
	MaxDepth int

	rand  *rand.Rand
	funcs map[reflect.Type]func(v reflect.Value, f *Filler)
	depth int
}

// NewFiller returns a Filler whose values are determined by seed.
func NewFiller(seed uint64) *Filler {
	return &Filler{
		NilChance: 0.2,
		MaxLen:    3,
		MaxDepth:  6,
		rand:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		funcs:     map[reflect.Type]func(reflect.Value, *Filler){},
	}
}

// SetFillFunc makes f fill every value of type T with fn. Inside fn, f.FillDefault(obj)
// fills obj with the usual rules, after which fn constrains what it must; f.Fill fills
// other values.
func SetFillFunc[T any](f *Filler, fn func(obj *T, f *Filler)) {
	f.funcs[reflect.TypeFor[T]()] = func(v reflect.Value, f *Filler) {
		fn(v.Addr().Interface().(*T), f)
	}
}

// Rand returns the Filler's source of randomness, for fill functions.
func (f *Filler) Rand() *rand.Rand { return f.rand }

// Fill fills *ptr with random content; ptr must be a non-nil pointer.
func (f *Filler) Fill(ptr any) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic("conversiontest: Fill needs a non-nil pointer")
	}
	f.fill(v.Elem())
}

var (
	typeMetaType = reflect.TypeFor[scheme.TypeMeta]()
	timeType     = reflect.TypeFor[scheme.Time]()
	stdTimeType  = reflect.TypeFor[time.Time]()
	fieldsV1Type = reflect.TypeFor[scheme.FieldsV1]()
)

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._"

// String returns a random string of up to 2*MaxLen characters.
func (f *Filler) String() string {
	n := f.rand.IntN(2*f.MaxLen + 1)
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[f.rand.IntN(len(letters))]
	}
	return string(b)
}

// Time returns a random instant between 1990 and 2100 at second precision in UTC.
func (f *Filler) Time() time.Time {
	return time.Unix(631152000+f.rand.Int64N(3471292800), 0).UTC()
}

func (f *Filler) nilNow() bool { return f.rand.Float64() < f.NilChance }

// FillDefault fills *ptr with the default rules for its own type, ignoring a fill
// function set for that type (but not for the values inside it): a fill function calls it
// to fill the object and then constrains a few fields.
func (f *Filler) FillDefault(ptr any) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic("conversiontest: FillDefault needs a non-nil pointer")
	}
	f.fillDefault(v.Elem())
}

func (f *Filler) fill(v reflect.Value) {
	if fn, ok := f.funcs[v.Type()]; ok {
		fn(v, f)
		return
	}
	f.fillDefault(v)
}

func (f *Filler) fillDefault(v reflect.Value) {
	t := v.Type()
	switch t {
	case typeMetaType:
		v.SetZero()
		return
	case timeType:
		v.SetZero()
		if !f.nilNow() {
			v.Set(reflect.ValueOf(scheme.NewTime(f.Time())))
		}
		return
	case stdTimeType:
		v.Set(reflect.ValueOf(f.Time()))
		return
	case fieldsV1Type: // never empty: an empty field set travels as null
		v.Set(reflect.ValueOf(scheme.FieldsV1{Raw: []byte(`{"f:` + f.String() + `":{}}`)}))
		return
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		if f.nilNow() { // zero is the value defaulting looks for
			v.SetZero()
			return
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(f.rand.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		n := int64(f.rand.Uint64())
		if f.rand.IntN(2) == 0 {
			n %= 1000 // small values are common in real objects
		}
		v.SetInt(n << (64 - bits) >> (64 - bits))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		bits := t.Bits()
		n := f.rand.Uint64()
		if f.rand.IntN(2) == 0 {
			n %= 1000
		}
		v.SetUint(n << (64 - bits) >> (64 - bits))
	case reflect.Float32, reflect.Float64:
		var x float64
		switch f.rand.IntN(3) {
		case 0:
			x = float64(f.rand.IntN(2000) - 1000)
		case 1:
			x = f.rand.NormFloat64() * 1000
		default:
			x = math.Float64frombits(f.rand.Uint64())
			if math.IsNaN(x) || math.IsInf(x, 0) {
				x = 0.5
			}
		}
		if t.Kind() == reflect.Float32 && (math.Abs(x) > math.MaxFloat32) {
			x = 1.5
		}
		v.SetFloat(x)
	case reflect.Complex64, reflect.Complex128:
		v.SetComplex(complex(f.rand.NormFloat64(), f.rand.NormFloat64()))
	case reflect.String:
		v.SetString(f.String())
	case reflect.Pointer:
		if f.nilNow() || f.depth >= f.MaxDepth {
			v.SetZero()
			return
		}
		p := reflect.New(t.Elem())
		if t.Elem() == timeType { // a zero time travels as null, so a pointer to one cannot
			p.Elem().Set(reflect.ValueOf(scheme.NewTime(f.Time())))
			v.Set(p)
			return
		}
		f.depth++
		f.fill(p.Elem())
		f.depth--
		v.Set(p)
	case reflect.Slice:
		if f.nilNow() || f.depth >= f.MaxDepth {
			v.SetZero()
			return
		}
		n := 0
		if !f.nilNow() {
			n = 1 + f.rand.IntN(f.MaxLen)
		}
		s := reflect.MakeSlice(t, n, n)
		f.depth++
		for i := 0; i < n; i++ {
			f.fill(s.Index(i))
		}
		f.depth--
		v.Set(s)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			f.fill(v.Index(i))
		}
	case reflect.Map:
		if f.nilNow() || f.depth >= f.MaxDepth {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(t)
		n := 0
		if !f.nilNow() {
			n = 1 + f.rand.IntN(f.MaxLen)
		}
		f.depth++
		for i := 0; i < n; i++ {
			k := reflect.New(t.Key()).Elem()
			e := reflect.New(t.Elem()).Elem()
			f.fill(k)
			f.fill(e)
			m.SetMapIndex(k, e)
		}
		f.depth--
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	default:
		v.SetZero() // interfaces, functions, channels
	}
}
