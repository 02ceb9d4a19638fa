package cbor

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/conversion/conversiontest"
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
	EmbeddedA
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

type EmbeddedA struct {
	Conflict string `json:"conflict"` // shadowed by the outer field
	Deep     string `json:"deep"`
	EmbeddedB
}

type EmbeddedB struct {
	Deep   string `json:"deep"` // shadowed by EmbeddedA.Deep
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

// newFiller returns conversiontest's filler of random values, set to favour what a
// CBOR codec must get right: string lengths around the sizes of CBOR heads, bytes that
// are not UTF-8, integers at the ends of their range, times in other zones and beyond
// year 9999, floats CBOR shortens, and interfaces holding every kind of value.
func newFiller(seed []byte) *conversiontest.Filler {
	var s [8]byte
	copy(s[:], seed)
	f := conversiontest.NewFiller(binary.LittleEndian.Uint64(s[:]) ^ uint64(len(seed)))
	f.MaxDepth, f.MaxLen = 3, 2 // oddTypes nests itself: keep documents small
	conversiontest.SetFillFunc(f, func(s *string, f *conversiontest.Filler) { *s = edgeString(f.Rand()) })
	conversiontest.SetFillFunc(f, func(n *int64, f *conversiontest.Filler) { *n = edgeInt(f.Rand()) })
	conversiontest.SetFillFunc(f, func(n *int32, f *conversiontest.Filler) {
		*n = []int32{0, 1, -1, math.MaxInt32, math.MinInt32, int32(f.Rand().Uint32())}[f.Rand().IntN(6)]
	})
	conversiontest.SetFillFunc(f, func(n *uint64, f *conversiontest.Filler) { *n = uint64(edgeInt(f.Rand())) })
	conversiontest.SetFillFunc(f, func(x *float64, f *conversiontest.Filler) {
		*x = []float64{0, math.Copysign(0, -1), 1.5, -2, 1e300, 3.4e38, 0.1, 65504}[f.Rand().IntN(8)]
	})
	conversiontest.SetFillFunc(f, func(t *scheme.Time, f *conversiontest.Filler) { t.Time = edgeTime(f.Rand()) })
	conversiontest.SetFillFunc(f, func(t *scheme.MicroTime, f *conversiontest.Filler) { t.Time = edgeTime(f.Rand()) })
	conversiontest.SetFillFunc(f, func(x *any, f *conversiontest.Filler) {
		r := f.Rand()
		*x = []any{nil, edgeString(r), edgeInt(r), 2.5, true,
			map[string]any{edgeString(r): edgeInt(r), "b": []any{false, nil}}, []any{edgeString(r)}}[r.IntN(7)]
	})
	return f
}

func edgeString(r *rand.Rand) string {
	n := []int{0, 1, 2, 5, 23, 24, 25, 255, 256}[r.IntN(9)]
	const alphabet = "abcAB-./_0\u00e9"
	var b strings.Builder
	for b.Len() < n {
		if r.IntN(50) == 0 {
			b.WriteByte(0xff) // not UTF-8: Go strings may hold anything
			continue
		}
		b.WriteString(string([]rune(alphabet)[r.IntN(len([]rune(alphabet)))]))
	}
	return b.String()
}

func edgeInt(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return math.MinInt64 + r.Int64N(2)
	case 2:
		return math.MaxInt64 - r.Int64N(2)
	case 3:
		return int64(r.IntN(600)) - 300
	}
	return int64(r.Uint64()) >> r.IntN(64)
}

func edgeTime(r *rand.Rand) time.Time {
	switch r.IntN(5) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(10000+r.IntN(10), 1, 2, 3, 4, 5, 0, time.UTC)
	}
	return time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(time.FixedZone("x", 3600*(r.IntN(5)-2)))
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
				newFiller(s[:]).Fill(v.Interface())
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

// checkTypedDecode decodes data into a new value of typ with Unmarshal (the typed
// decoder first) and with the fxamacker path, and fails on any difference in value,
// field issues or error. It reports whether the typed decoder took the document.
func checkTypedDecode(t *testing.T, typ reflect.Type, data []byte) bool {
	t.Helper()
	return checkTypedDecodeInto(t, typ, data, nil)
}

// checkTypedDecodeInto is checkTypedDecode into values that prefill (when not nil)
// sets first, the same way on both sides.
func checkTypedDecodeInto(t *testing.T, typ reflect.Type, data []byte, prefill func(v reflect.Value)) bool {
	t.Helper()
	fresh := func() reflect.Value {
		v := reflect.New(typ)
		if prefill != nil {
			prefill(v.Elem())
		}
		return v
	}
	want := fresh()
	wantIssues, wantErr := unmarshalFx(data, want.Interface())
	got := fresh()
	issues, err := Unmarshal(data, got.Interface())
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%v: error %v, fxamacker's %v\ninput %x", typ, err, wantErr, data)
	}
	if !reflect.DeepEqual(issues, wantIssues) {
		t.Fatalf("%v: issues %v, fxamacker's %v\ninput %x", typ, issues, wantIssues, data)
	}
	if !reflect.DeepEqual(got.Interface(), want.Interface()) {
		t.Fatalf("%v: decoded\n%#v\nfxamacker decoded\n%#v\ninput %x", typ, got.Elem().Interface(), want.Elem().Interface(), data)
	}
	return unmarshalTyped(data, fresh().Interface())
}

// mutate changes data in one of the ways hostile or sloppy input differs from a good
// document: a byte changed, dropped, repeated or cut off.
func mutate(r *rand.Rand, data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	out := bytes.Clone(data)
	i := r.IntN(len(out))
	switch r.IntN(5) {
	case 0:
		out[i] = byte(r.Uint32())
	case 1:
		out[i] ^= 1 << r.IntN(8)
	case 2:
		out = append(out[:i], out[i+1:]...)
	case 3:
		out = append(out[:i+1], out[i:]...)
	default:
		out = out[:i]
	}
	return out
}

func TestTypedDecode_SameAsFxamacker(t *testing.T) {
	for _, typ := range diffTypes {
		t.Run(typ.Name(), func(t *testing.T) {
			typed, seeds := 0, 300
			if testing.Short() || typ == reflect.TypeFor[oddTypes]() {
				seeds = 60 // its documents are large, and all go through fxamacker
			}
			for seed := range seeds {
				var s [8]byte
				binary.LittleEndian.PutUint64(s[:], uint64(seed))
				f := newFiller(s[:])
				v := reflect.New(typ)
				f.Fill(v.Interface())
				data, err := fxEncode(v.Interface())
				if err != nil {
					continue
				}
				if checkTypedDecode(t, typ, data) {
					typed++
				}
				for range 10 {
					checkTypedDecode(t, typ, mutate(f.Rand(), data))
				}
				// Into a value that holds something already: fxamacker keeps what the
				// document does not name and decodes into pointers, slices and maps.
				checkTypedDecodeInto(t, typ, data, fillSeed(seed))
				checkTypedDecodeInto(t, typ, mutate(f.Rand(), data), fillSeed(seed+1))
			}
			t.Logf("%v: the typed decoder took %d of %d documents", typ, typed, seeds)
		})
	}
}

// The typed decoder must take the documents of the benchmarks and the common shapes,
// or it is no faster.
func TestTypedDecode_TakesPlainDocuments(t *testing.T) {
	for name, c := range map[string]struct {
		typ  reflect.Type
		data []byte
	}{
		"widget":                {reflect.TypeFor[toys.WidgetV1](), encode(t, widget(20))},
		"widget without tag":    {reflect.TypeFor[toys.WidgetV1](), encode(t, widget(3))[3:]},
		"list":                  {reflect.TypeFor[toys.WidgetListV1](), encode(t, &toys.WidgetListV1{Items: []toys.WidgetV1{*widget(2), *widget(0)}})},
		"text-string keys":      {reflect.TypeFor[toys.WidgetV1](), widgetDoc("spec", doc("color", "red"))},
		"null fields and empty": {reflect.TypeFor[toys.WidgetV1](), hexDoc(t, "a2 4473706563 a2 45636f6c6f72 f6 457061727473 80 486d65746164617461 a0")},
	} {
		t.Run(name, func(t *testing.T) {
			if !checkTypedDecode(t, c.typ, c.data) {
				t.Fatalf("left to fxamacker: %x", c.data)
			}
		})
	}
}

func hexDoc(t *testing.T, h string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzTypedCodec generates a value of each differential type from the fuzz input and
// checks the typed encoder against fxamacker, then decodes its encoding, a mutation of
// it and the fuzz input itself both ways.
func FuzzTypedCodec(f *testing.F) {
	f.Add([]byte("seed"))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	var buf bytes.Buffer
	_ = New(testapi.NewScheme()).Encode(&buf, widget(2))
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, seed []byte) {
		for _, typ := range diffTypes {
			v := reflect.New(typ)
			fl := newFiller(seed)
			fl.Fill(v.Interface())
			checkTypedEncode(t, v.Interface())
			if data, err := fxEncode(v.Interface()); err == nil {
				checkTypedDecode(t, typ, data)
				checkTypedDecode(t, typ, mutate(fl.Rand(), data))
			}
			checkTypedDecode(t, typ, seed)
		}
	})
}

// intItem encodes n as a CBOR integer.
func intItem(n int64) []byte { return appendInt(nil, n) }

// uintItem encodes n as a CBOR unsigned integer.
func uintItem(n uint64) []byte { return appendHead(nil, majorUint, n) }

// The edges random mutation rarely reaches: repeated names and keys, integers at and
// beyond their type's range, nulls and the self-described tag in odd places.
func TestTypedDecode_EdgesSameAsFxamacker(t *testing.T) {
	widgetType := reflect.TypeFor[toys.WidgetV1]()
	statusType := reflect.TypeFor[scheme.Status]()
	managed := func(fieldsV1 any) []byte {
		return widgetDoc("metadata", doc("managedFields", arr(doc("manager", "m", "fieldsType", "FieldsV1", "fieldsV1", fieldsV1))))
	}
	tests := map[string]struct {
		typ   reflect.Type
		data  []byte
		typed bool // whether the typed decoder takes it
	}{
		"repeated field":                {widgetType, widgetDoc("spec", doc("color", "red", "color", "blue")), false},
		"repeated top field":            {widgetType, widgetDoc("kind", "Other"), false},
		"repeated label":                {widgetType, widgetDoc("metadata", doc("labels", doc("a", "1", "a", "2"))), false},
		"label value null":              {widgetType, widgetDoc("metadata", doc("labels", doc("a", []byte{0xf6}))), false},
		"labels null":                   {widgetType, widgetDoc("metadata", doc("labels", []byte{0xf6})), true},
		"int32 max":                     {widgetType, widgetDoc("spec", doc("replicas", intItem(math.MaxInt32))), true},
		"int32 max+1":                   {widgetType, widgetDoc("spec", doc("replicas", intItem(math.MaxInt32+1))), false},
		"int32 min":                     {widgetType, widgetDoc("spec", doc("replicas", intItem(math.MinInt32))), true},
		"int32 min-1":                   {widgetType, widgetDoc("spec", doc("replicas", intItem(math.MinInt32-1))), false},
		"int64 max":                     {widgetType, widgetDoc("metadata", doc("generation", intItem(math.MaxInt64))), true},
		"int64 max+1":                   {widgetType, widgetDoc("metadata", doc("generation", uintItem(math.MaxInt64+1))), false},
		"int64 min":                     {widgetType, widgetDoc("metadata", doc("generation", intItem(math.MinInt64))), true},
		"int64 min-1":                   {widgetType, widgetDoc("metadata", doc("generation", appendHead(nil, majorNegInt, math.MaxInt64+1))), false},
		"negative into uint":            {widgetType, widgetDoc("spec", doc("parts", arr(doc("name", "a", "count", intItem(-1))))), true},
		"int as string":                 {widgetType, widgetDoc("spec", doc("color", intItem(3))), false},
		"float":                         {widgetType, widgetDoc("spec", doc("replicas", []byte{0xf9, 0x3c, 0x00})), false},
		"undefined":                     {widgetType, widgetDoc("spec", doc("color", []byte{0xf7})), false},
		"tag inside":                    {widgetType, widgetDoc("spec", doc("color", append([]byte{0xd9, 0xd9, 0xf7}, appendBytes(nil, "red")...))), false},
		"two tags in front":             {widgetType, append([]byte{0xd9, 0xd9, 0xf7, 0xd9, 0xd9, 0xf7}, widgetDoc()...), true},
		"null document":                 {widgetType, []byte{0xf6}, true},
		"trailing byte":                 {widgetType, append(widgetDoc(), 0), false},
		"empty input":                   {widgetType, nil, false},
		"indefinite map":                {widgetType, []byte{0xbf, 0xff}, false},
		"unknown field":                 {widgetType, widgetDoc("spec", doc("colour", "red")), false},
		"invalid UTF-8 text":            {widgetType, widgetDoc("spec", doc("color", append(appendHead(nil, majorText, 1), 0xff))), false},
		"bad time":                      {widgetType, widgetDoc("metadata", doc("creationTimestamp", "yesterday")), false},
		"time as text":                  {widgetType, widgetDoc("metadata", doc("creationTimestamp", appendText(nil, "2025-06-01T12:00:00Z"))), true},
		"array claims 2^32":             {widgetType, widgetDoc("spec", doc("parts", []byte{0x9b, 0, 0, 0, 1, 0, 0, 0, 0})), false},
		"map claims more":               {statusType, []byte{0xb9, 0xff, 0xff, 0x41, 0x61}, false},
		"empty parts":                   {widgetType, widgetDoc("spec", doc("parts", arr())), true},
		"status details null":           {statusType, doc("details", []byte{0xf6}), true},
		"status code bool":              {statusType, doc("code", []byte{0xf5}), false},
		"non-string key":                {statusType, append(appendHead(nil, majorMap, 1), 0x01, 0x01), false},
		"value missing":                 {statusType, append(appendHead(nil, majorMap, 1), appendBytes(nil, "code")...), false},
		"null where a map is":           {widgetType, widgetDoc("metadata", []byte{0xf6}, "spec", doc()), true},
		"text value byte string":        {widgetType, widgetDoc("spec", doc("color", appendText(nil, "red"))), true},
		"fieldsV1":                      {widgetType, managed(doc("f:spec", doc("f:color", doc()))), true},
		"fieldsV1 null":                 {widgetType, managed([]byte{0xf6}), true},
		"fieldsV1 a string":             {widgetType, managed("x"), true},
		"fieldsV1 repeated key":         {widgetType, managed(doc("f:a", doc(), "f:a", doc("f:b", doc()))), true},
		"fieldsV1 NaN inside":           {widgetType, managed(doc("f:a", []byte{0xf9, 0x7e, 0x00})), false},
		"fieldsV1 tagged":               {widgetType, managed(append([]byte{0xd9, 0xd9, 0xf7}, doc()...)), false},
		"fieldsV1 deeper than the plan": {widgetType, managed(append(bytes.Repeat([]byte{0x81}, maxTypedDepth), 0x01)), false},
		"fieldsV1 cut short":            {widgetType, managed([]byte{0xa1, 0x41, 0x61}), false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if typed := checkTypedDecode(t, tc.typ, tc.data); typed != tc.typed {
				t.Errorf("typed decoder took it: %v, want %v", typed, tc.typed)
			}
		})
	}
}

// fillSeed returns a prefill that sets a random value from seed.
func fillSeed(seed int) func(reflect.Value) {
	return func(v reflect.Value) {
		newFiller(binary.BigEndian.AppendUint64(nil, uint64(seed))).Fill(v.Addr().Interface())
	}
}

// Decoding into a struct that holds values: what the document names is overwritten
// (null clears pointers, slices and maps and leaves the rest), what it does not name
// stays, and pointers, slices and maps already there are decoded into by fxamacker.
func TestTypedDecode_IntoFilledValueSameAsFxamacker(t *testing.T) {
	three, yes := int32(3), true
	filled := func(v reflect.Value) {
		w := v.Addr().Interface().(*toys.WidgetV1)
		w.Kind, w.Name = "Old", "old"
		w.Spec.Replicas = &three
		w.Labels = map[string]string{"old": "1"}
		w.Finalizers = []string{"a", "b"}
		w.OwnerReferences = []scheme.OwnerReference{{Name: "o", Controller: &yes}}
		w.Spec.Parts = []toys.WidgetPart{{Name: "p", Count: 2}}
	}
	owner := func(kv ...any) []byte { return widgetDoc("metadata", doc("ownerReferences", arr(doc(kv...)))) }
	widgetType := reflect.TypeFor[toys.WidgetV1]()
	type flags struct {
		On  bool `json:"on"`
		Off bool `json:"off"`
	}
	setFlags := func(v reflect.Value) { v.Addr().Interface().(*flags).On = true }
	for name, c := range map[string]struct {
		typ     reflect.Type
		prefill func(reflect.Value)
		data    []byte
		typed   bool
	}{
		"false overwrites true":          {reflect.TypeFor[flags](), setFlags, doc("on", []byte{0xf4}, "off", []byte{0xf5}), true},
		"null bool kept":                 {reflect.TypeFor[flags](), setFlags, doc("on", []byte{0xf6}), true},
		"names overwritten, others kept": {nil, filled, widgetDoc("metadata", doc("name", "new")), true},
		"empty string overwrites":        {nil, filled, widgetDoc("metadata", doc("name", "")), true},
		"null pointer clears":            {nil, filled, widgetDoc("spec", doc("replicas", []byte{0xf6})), true},
		"null slice clears":              {nil, filled, widgetDoc("metadata", doc("finalizers", []byte{0xf6})), true},
		"null map clears":                {nil, filled, widgetDoc("metadata", doc("labels", []byte{0xf6})), true},
		"null string kept":               {nil, filled, widgetDoc("metadata", doc("name", []byte{0xf6})), true},
		"into a pointer":                 {nil, filled, widgetDoc("spec", doc("replicas", intItem(5))), false},
		"into a map":                     {nil, filled, widgetDoc("metadata", doc("labels", doc("new", "2"))), false},
		"into a slice":                   {nil, filled, widgetDoc("spec", doc("parts", arr(doc("count", intItem(1))))), false},
		"null bool pointer":              {nil, nil, owner("controller", []byte{0xf6}), true},
		"bad document restores":          {nil, filled, widgetDoc("metadata", doc("name", "new", "bogus", "x")), false},
	} {
		t.Run(name, func(t *testing.T) {
			typ := c.typ
			if typ == nil {
				typ = widgetType
			}
			if typed := checkTypedDecodeInto(t, typ, c.data, c.prefill); typed != c.typed {
				t.Errorf("typed decoder took it: %v, want %v", typed, c.typed)
			}
		})
	}
}
