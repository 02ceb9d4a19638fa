package cbor

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
)

// The differential tests hold the typed encoder and decoder to fxamacker's path, the
// reference: same bytes for every value, and for every input the same value, error
// and field issues.

// oddTypes exercises what a plan must get right beyond the scheme's types: embedding
// and name conflicts, every omitempty kind, pointers to pointers, values fxamacker
// encodes on its own (floats, interfaces, byte slices, arrays, other maps), recursion
// and fields a plan must not see.
type oddTypes struct {
	embeddedA
	Conflict     string            `json:"conflict"`
	Plain        string            // no tag: the Go name
	Skipped      string            `json:"-"`
	unexported   string            //nolint:unused // must not be encoded
	Bool         bool              `json:"bool,omitempty"`
	Int8         int8              `json:"int8,omitempty"`
	Int64        int64             `json:"int64"`
	Uint16       uint16            `json:"uint16,omitempty"`
	Uint64       uint64            `json:"uint64"`
	Float32      float32           `json:"float32,omitempty"`
	Float64      float64           `json:"float64"`
	Bytes        []byte            `json:"bytes,omitempty"`
	Array        [2]int32          `json:"array"`
	EmptyArray   [0]int            `json:"emptyArray,omitempty"`
	PtrPtr       **string          `json:"ptrPtr,omitempty"`
	Any          any               `json:"any,omitempty"`
	AnyMap       map[string]any    `json:"anyMap,omitempty"`
	IntMap       map[string]int    `json:"intMap"`
	StringMap    map[string]string `json:"stringMap,omitempty"`
	Strings      []string          `json:"strings"`
	Time         scheme.Time       `json:"time,omitempty"`
	TimePtr      *scheme.Time      `json:"timePtr,omitempty"`
	Micro        scheme.MicroTime  `json:"micro"`
	Fields       *scheme.FieldsV1  `json:"fields,omitempty"`
	Duration     time.Duration     `json:"duration,omitempty"`
	Next         *oddTypes         `json:"next,omitempty"`
	Children     []oddTypes        `json:"children,omitempty"`
	Long         string            `json:"aVeryLongFieldNameOfMoreThan24Bytes,omitempty"`
	Named        namedString       `json:"named,omitempty"`
	Struct       innerStruct       `json:"struct,omitempty"`
	CBORTagged   cborTagged        `json:"cborTagged"`
	Meta         scheme.ObjectMeta `json:"metadata,omitempty"`
	Conditions   []scheme.Condition
	ManagedField scheme.ManagedFieldsEntry `json:"managedField"`
	ZeroStruct   innerStruct               `json:"zeroStruct,omitzero"`
	ZeroTime     scheme.Time               `json:"zeroTime,omitempty,omitzero"`
	ZeroInt      int                       `json:",omitzero"`
	ZeroMicro    scheme.MicroTime          `json:"zeroMicro,omitzero"`
}

type embeddedA struct {
	Conflict string `json:"conflict"` // shadowed by the outer field
	Deep     string `json:"deep"`
	embeddedB
}

type embeddedB struct {
	Deep   string `json:"deep"` // shadowed by embeddedA.Deep
	Deeper int    `json:"deeper,omitempty"`
}

// withEmbeddedPtr embeds a pointer, which plans leave to fxamacker.
type withEmbeddedPtr struct {
	*embeddedPtr
	Own string `json:"own"`
}

type embeddedPtr struct {
	ViaPointer string `json:"viaPointer"`
}

type namedString string

type innerStruct struct {
	A string `json:"a,omitempty"`
	B []int  `json:"b,omitempty"`
}

// cborTagged has a cbor tag, which plans leave to fxamacker.
type cborTagged struct {
	X int `cbor:"x" json:"notX"`
}

// diffTypes are the types the differential tests generate values of.
var diffTypes = []reflect.Type{
	reflect.TypeFor[toys.WidgetV1](),
	reflect.TypeFor[toys.WidgetListV1](),
	reflect.TypeFor[scheme.ObjectMeta](),
	reflect.TypeFor[scheme.Status](),
	reflect.TypeFor[oddTypes](),
	reflect.TypeFor[withEmbeddedPtr](),
}

// filler makes random values of a type from a seed, favouring the edges: zero values,
// empty and nil containers, lengths around CBOR's head sizes, extreme integers.
type filler struct {
	r     *rand.Rand
	depth int
}

func newFiller(seed []byte) *filler {
	var s [32]byte
	copy(s[:], seed)
	return &filler{r: rand.New(rand.NewChaCha8(s))}
}

func (f *filler) length() int {
	switch f.r.IntN(8) {
	case 0:
		return 0
	case 1:
		return 23 + f.r.IntN(3)
	case 2:
		return 255 + f.r.IntN(3)
	}
	return 1 + f.r.IntN(6)
}

func (f *filler) string() string {
	n := f.length()
	if f.r.IntN(4) == 0 {
		n = f.r.IntN(4) // short ones collide as map keys
	}
	const alphabet = "abcAB-./_0\u00e9"
	var b strings.Builder
	for b.Len() < n {
		if f.r.IntN(50) == 0 {
			b.WriteByte(0xff) // not UTF-8: Go strings may hold anything
			continue
		}
		b.WriteString(string([]rune(alphabet)[f.r.IntN(len([]rune(alphabet)))]))
	}
	return b.String()
}

func (f *filler) int64() int64 {
	switch f.r.IntN(6) {
	case 0:
		return 0
	case 1:
		return math.MinInt64 + f.r.Int64N(2)
	case 2:
		return math.MaxInt64 - f.r.Int64N(2)
	case 3:
		return int64(f.r.IntN(600)) - 300
	}
	return int64(f.r.Uint64()) >> f.r.IntN(64)
}

func (f *filler) time() time.Time {
	switch f.r.IntN(5) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(10000+f.r.IntN(10), 1, 2, 3, 4, 5, 0, time.UTC)
	}
	return time.Unix(f.r.Int64N(4e9), f.r.Int64N(1e9)).In(time.FixedZone("x", 3600*(f.r.IntN(5)-2)))
}

// fill sets v (settable) to a random value.
func (f *filler) fill(v reflect.Value) {
	if f.r.IntN(6) == 0 {
		return // the zero value
	}
	f.depth++
	defer func() { f.depth-- }()
	switch v.Type() {
	case reflect.TypeFor[scheme.Time]():
		v.Set(reflect.ValueOf(scheme.Time{Time: f.time()}))
		return
	case reflect.TypeFor[scheme.MicroTime]():
		v.Set(reflect.ValueOf(scheme.MicroTime{Time: f.time()}))
		return
	case reflect.TypeFor[scheme.FieldsV1]():
		v.Set(reflect.ValueOf(scheme.FieldsV1{Raw: []byte(`{"f:spec":{"f:x":{}}}`)}))
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := f.int64()
		v.SetInt(n)
		if v.Int() != n { // truncated: keep the sign of small ones
			v.SetInt(n % 100)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(uint64(f.int64()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, math.Copysign(0, -1), 1.5, -2, 1e300, 3.4e38, 0.1}[f.r.IntN(7)])
	case reflect.String:
		v.SetString(f.string())
	case reflect.Pointer:
		if f.depth > 6 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		if f.depth > 6 {
			return
		}
		n := f.r.IntN(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			f.fill(v.Index(i))
		}
	case reflect.Map:
		if f.depth > 6 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for n := f.r.IntN(5); n > 0; n-- {
			k := reflect.New(v.Type().Key()).Elem()
			f.fill(k)
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		var x any
		switch f.r.IntN(5) {
		case 0:
			x = f.string()
		case 1:
			x = f.int64()
		case 2:
			x = 2.5
		case 3:
			x = map[string]any{f.string(): f.int64(), "b": []any{true, nil}}
		default:
			x = []any{f.string()}
		}
		v.Set(reflect.ValueOf(x))
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() || v.Type().Field(i).Anonymous {
				if fv := v.Field(i); fv.CanSet() {
					f.fill(fv)
				} else if fv.Kind() == reflect.Struct {
					f.fill(reflect.NewAt(fv.Type(), fv.Addr().UnsafePointer()).Elem())
				}
			}
		}
	}
}

// fxEncode is the reference: the whole value through fxamacker.
func fxEncode(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(selfDescribed)
	err := enc.MarshalToBuffer(v, &buf)
	return buf.Bytes(), err
}

func checkTypedEncode(t *testing.T, v any) {
	t.Helper()
	want, wantErr := fxEncode(v)
	got, err := appendTyped(append([]byte(nil), selfDescribed...), v)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%T: typed error %v, fxamacker's %v", v, err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("%T: typed encoding differs\n typed %x\nfxamacker %x", v, got, want)
	}
}

func TestTypedEncode_SameBytesAsFxamacker(t *testing.T) {
	for _, typ := range diffTypes[:len(diffTypes)-1] {
		if _, ok := resolveFields(typ); !ok {
			t.Fatalf("%v is left to fxamacker: the test would not exercise the plans", typ)
		}
	}
	for _, typ := range diffTypes {
		t.Run(typ.Name(), func(t *testing.T) {
			checkTypedEncode(t, reflect.New(typ).Interface()) // the zero value
			for seed := range 300 {
				var s [8]byte
				binary.LittleEndian.PutUint64(s[:], uint64(seed))
				v := reflect.New(typ)
				newFiller(s[:]).fill(v.Elem())
				checkTypedEncode(t, v.Interface())
			}
		})
	}
	t.Run("fixture", func(t *testing.T) {
		checkTypedEncode(t, widget(200))
	})
}

func TestTypedEncode_ErrorsAreFxamackers(t *testing.T) {
	for name, v := range map[string]any{
		"NaN":             &oddTypes{Float64: math.NaN()},
		"infinity inside": &oddTypes{Any: map[string]any{"x": math.Inf(1)}},
		"bad FieldsV1":    &oddTypes{Fields: &scheme.FieldsV1{Raw: []byte("{")}},
	} {
		t.Run(name, func(t *testing.T) {
			_, wantErr := fxEncode(v)
			if wantErr == nil {
				t.Fatal("fxamacker encoded it")
			}
			checkTypedEncode(t, v)
		})
	}
}

// FuzzTypedCodec generates a value of each differential type from the fuzz input and
// checks the typed encoder against fxamacker.
func FuzzTypedCodec(f *testing.F) {
	f.Add([]byte("seed"))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, seed []byte) {
		for _, typ := range diffTypes {
			v := reflect.New(typ)
			newFiller(seed).fill(v.Elem())
			checkTypedEncode(t, v.Interface())
		}
	})
}

var _ = testapi.NewScheme
