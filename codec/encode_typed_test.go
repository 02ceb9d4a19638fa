package codec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// Types that exercise encoding/json's rules one by one.

type valJSON struct{ N int }

func (v valJSON) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(" { \"v\" : %d } ", v.N)), nil
}

type ptrJSON struct{ N int }

func (p *ptrJSON) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("[\"ptr\",\t%d, \"<&>\u2028\"]", p.N)), nil
}

type valText struct{ S string }

func (v valText) MarshalText() ([]byte, error) { return []byte("text:" + v.S), nil }

type ptrText struct{ S string }

func (p *ptrText) MarshalText() ([]byte, error) { return []byte("ptext:" + p.S), nil }

type failJSON struct{}

func (failJSON) MarshalJSON() ([]byte, error) { return nil, errors.New("boom") }

type failText struct{}

func (failText) MarshalText() ([]byte, error) { return nil, errors.New("text boom") }

type badJSON struct{ Out string }

func (b badJSON) MarshalJSON() ([]byte, error) { return []byte(b.Out), nil }

type bothMarshalers struct{}

func (bothMarshalers) MarshalJSON() ([]byte, error) { return []byte(`"json"`), nil }
func (bothMarshalers) MarshalText() ([]byte, error) { return []byte("text"), nil }

type valZero struct{ N int }

func (v valZero) IsZero() bool { return v.N < 0 }

type ptrZero struct{ N int }

func (p *ptrZero) IsZero() bool { return p.N == 7 }

type textKey int

func (k textKey) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("k%03d", int(k))), nil }

type ptrTextKey struct{ s string }

func (k *ptrTextKey) MarshalText() ([]byte, error) { return []byte("pk-" + k.s), nil }

type namedString string

type textString string

func (s textString) MarshalText() ([]byte, error) { return []byte("ts:" + string(s)), nil }

type myByte byte

type jsonByte byte

func (b jsonByte) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`"b%d"`, b)), nil }

type EncEmbedded struct {
	A, B   string
	Shadow int `json:"shadow"`
}

type EmbeddedPtr struct {
	P string `json:"p,omitempty"`
	Q int
}

type embeddedUnexported struct {
	U string
	v int
}

type DupA struct{ X, Y int }
type DupB struct {
	X int
	Y int `json:"Y"`
}

type Inner2 struct{ Deep string }
type Mid struct {
	Inner2
	Deep2 string
}

type MyInt int

type embedding struct {
	EncEmbedded
	*EmbeddedPtr
	embeddedUnexported
	DupA
	DupB
	Mid
	MyInt
	A      string `json:"A"` // shadows EncEmbedded.A
	Shadow string // Go name "Shadow" differs from the tag "shadow": both kept
}

type tagged struct {
	Plain      string
	Renamed    string                     `json:"renamed"`
	Skipped    string                     `json:"-"`
	Dash       string                     `json:"-,"`
	OmitS      string                     `json:",omitempty"`
	OmitI      int                        `json:"oi,omitempty"`
	OmitU      uint8                      `json:"ou,omitempty"`
	OmitF      float64                    `json:"of,omitempty"`
	OmitB      bool                       `json:"ob,omitempty"`
	OmitP      *int                       `json:"op,omitempty"`
	OmitM      map[string]int             `json:"om,omitempty"`
	OmitSl     []int                      `json:"osl,omitempty"`
	OmitA0     [0]int                     `json:"oa0,omitempty"`
	OmitA1     [1]int                     `json:"oa1,omitempty"`
	OmitIf     any                        `json:"oif,omitempty"`
	OmitSt     struct{}                   `json:"ost,omitempty"`
	OmitMS     map[string]string          `json:"oms,omitempty"`
	ZeroSt     struct{ A int }            `json:"zst,omitzero"`
	ZeroSl     []int                      `json:"zsl,omitzero"`
	ZeroF      float64                    `json:"zf,omitzero"`
	ZeroVal    valZero                    `json:"zval,omitzero"`
	ZeroPtr    ptrZero                    `json:"zptr,omitzero"`
	ZeroPP     *valZero                   `json:"zpp,omitzero"`
	ZeroIf     interface{ IsZero() bool } `json:"zif,omitzero"`
	ZeroTime   time.Time                  `json:"ztime,omitzero"`
	ZeroBoth   string                     `json:"zboth,omitempty,omitzero"`
	Unexported string
	unexported string
	Quoted     int         `json:"qi,string"`
	QuotedS    string      `json:"qs,string"`
	QuotedB    bool        `json:"qb,string"`
	QuotedF    float32     `json:"qf,string"`
	QuotedP    *int64      `json:"qp,string"`
	QuotedN    json.Number `json:"qn,string"`
	QuotedM    valJSON     `json:"qm,string"`
	QuotedSl   []int       `json:"qsl,string"`
	BadName    string      `json:"a\"b"`
	Unicode    string      `json:"日本"`
	HTMLName   string      `json:"<a&b>"`
	Symbol     string      `json:"€"`
	Punct      string      `json:"!#$%&()*+-./:;<=>?@[]^_{|}~ "`
}

type marshalers struct {
	V      valJSON
	P      ptrJSON
	VP     *valJSON
	PP     *ptrJSON
	VT     valText
	PT     ptrText
	PTP    *ptrText
	Both   bothMarshalers
	VS     []valJSON
	PS     []ptrJSON
	PA     [2]ptrJSON
	PM     map[string]ptrJSON
	TM     map[string]ptrText
	I      any
	IM     json.Marshaler
	IT     fmt.Stringer
	Raw    json.RawMessage
	RawNil json.RawMessage
	RawP   *json.RawMessage
	Num    json.Number
	NumE   json.Number
	Time   time.Time
	TS     textString
	Bytes  []byte
	BytesN []byte
	MyB    []myByte
	JB     []jsonByte
	Arr    [3]byte
}

type stringer struct{ S string }

func (s stringer) String() string { return s.S }

type maps struct {
	Int    map[int]string
	Uint   map[uint16]bool
	Text   map[textKey]int
	PText  map[*ptrTextKey]int
	Named  map[namedString]int
	TSKey  map[textString]int
	Any    map[string]any
	Nested map[string]map[string][]int
	Nil    map[string]int
}

type node struct {
	Name string
	Next *node `json:",omitempty"`
}

type listNode struct {
	Kids []listNode
}

func intPtr(i int) *int       { return &i }
func int64Ptr(i int64) *int64 { return &i }

func fullObjectMeta() scheme.ObjectMeta {
	now := scheme.NewTime(time.Date(2024, 5, 1, 10, 0, 0, 0, time.FixedZone("x", 3600)))
	return scheme.ObjectMeta{
		Name: "w<1>", GenerateName: "w-", Namespace: "default", SelfLink: "/apis/x",
		UID: "5f0c", ResourceVersion: "12", Generation: 3,
		CreationTimestamp: now, DeletionTimestamp: &now, DeletionGracePeriodSeconds: int64Ptr(30),
		Labels:      map[string]string{"b": "2", "a": "1", "&": "\u2028"},
		Annotations: map[string]string{"note": "x\ny"},
		OwnerReferences: []scheme.OwnerReference{{APIVersion: "v1", Kind: "K", Name: "o", UID: "u",
			Controller: new(bool), BlockOwnerDeletion: new(bool)}},
		Finalizers: []string{"f1", "f2"},
		ManagedFields: []scheme.ManagedFieldsEntry{
			{Manager: "kubectl", Operation: scheme.ManagedFieldsOperationApply, APIVersion: "v1", Time: &now,
				FieldsType: "FieldsV1", FieldsV1: &scheme.FieldsV1{Raw: []byte(`{"f:spec": { "f:color" : {}}}`)}},
			{Manager: "m2", FieldsV1: &scheme.FieldsV1{}},
		},
	}
}

// encodeCases is the table of values every rule is checked on.
func encodeCases() map[string]any {
	one := 1
	cyc := &node{Name: "a"}
	cyc.Next = &node{Name: "b", Next: cyc}
	cycMap := map[string]any{}
	cycMap["self"] = cycMap
	cycSlice := []any{nil}
	cycSlice[0] = cycSlice
	m := marshalers{
		V: valJSON{1}, P: ptrJSON{2}, VP: &valJSON{3}, PT: ptrText{"p"}, PTP: &ptrText{"pp"}, VT: valText{"<v>"},
		VS: []valJSON{{4}}, PS: []ptrJSON{{5}}, PA: [2]ptrJSON{{6}, {7}}, PM: map[string]ptrJSON{"k": {8}},
		TM: map[string]ptrText{"k": {"m"}}, I: ptrJSON{9}, IM: valJSON{10}, IT: stringer{"s"},
		Raw: json.RawMessage(` { "a" : [ 1 , "<\u2029>" ] } `), RawP: &json.RawMessage{'1'},
		Num: "-12.5e+3", Time: time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC), TS: "t",
		Bytes: []byte("hello\xff"), BytesN: []byte{}, MyB: []myByte{1, 2}, JB: []jsonByte{1}, Arr: [3]byte{1, 2, 3},
	}
	return map[string]any{
		"nil":             nil,
		"string escapes":  "a\"b\\c\n\r\t\b\f\x00\x1f\x7f<>&\u2028\u2029\xff\xc3 é 😀",
		"named string":    namedString("x"),
		"floats":          []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 1e-7, 1e20, 1e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64},
		"float32s":        []float32{0, 1e-7, 1e21, 3.14, math.MaxFloat32, 16777216},
		"ints":            []any{int8(-128), int16(32767), uint8(255), uint64(math.MaxUint64), uintptr(7), int64(math.MinInt64)},
		"tagged zero":     tagged{},
		"tagged ptr zero": &tagged{},
		"tagged full": &tagged{Plain: "p", Renamed: "r", Skipped: "s", Dash: "d", OmitS: "o", OmitI: -1, OmitU: 1,
			OmitF: math.Copysign(0, -1), OmitB: true, OmitP: new(int), OmitM: map[string]int{}, OmitSl: []int{},
			OmitA1: [1]int{0}, OmitIf: 0, OmitMS: map[string]string{}, ZeroSt: struct{ A int }{1}, ZeroSl: []int{},
			ZeroF: math.Copysign(0, -1), ZeroVal: valZero{-1}, ZeroPtr: ptrZero{7}, ZeroPP: &valZero{-2},
			ZeroIf: valZero{3}, ZeroTime: time.Unix(0, 0), ZeroBoth: "z", Quoted: 5, QuotedS: `a"<b>`, QuotedB: true,
			QuotedF: 1.5, QuotedP: int64Ptr(-9), QuotedN: "12", QuotedM: valJSON{1}, QuotedSl: []int{1},
			BadName: "bad", Unicode: "u", HTMLName: "h", Symbol: "€", Punct: "p"},
		"tagged value ptrZero unaddressable": tagged{ZeroPtr: ptrZero{7}, ZeroIf: (*valZero)(nil)},
		"embedding zero":                     embedding{},
		"embedding full": &embedding{EncEmbedded: EncEmbedded{A: "ea", B: "eb", Shadow: 1}, EmbeddedPtr: &EmbeddedPtr{P: "p", Q: 2},
			embeddedUnexported: embeddedUnexported{U: "u", v: 1}, DupA: DupA{1, 2}, DupB: DupB{3, 4},
			Mid: Mid{Inner2{"deep"}, "d2"}, MyInt: 5, A: "a", Shadow: "s"},
		"marshalers by pointer":     &m,
		"marshalers by value":       m,
		"marshalers zero":           marshalers{},
		"slice of marshaler values": []ptrJSON{{1}},
		"array of marshaler values": [1]ptrJSON{{1}},
		"pointer to array":          &[1]ptrJSON{{1}},
		"map of pointer marshalers": map[string]*ptrJSON{"a": {1}, "b": nil},
		"interface slice":           []any{ptrJSON{1}, &ptrJSON{2}, valText{"x"}, &valText{"y"}, (*ptrJSON)(nil), json.Number("1"), map[string]int{"z": 1, "a": 2}, [2]int{1, 2}, struct{ X *int }{&one}},
		"maps zero":                 maps{},
		"maps full": maps{
			Int: map[int]string{-1: "a", 10: "b", 2: "c"}, Uint: map[uint16]bool{7: true, 65535: false},
			Text: map[textKey]int{3: 1, 1: 2}, PText: map[*ptrTextKey]int{{"b"}: 1, {"a"}: 2, nil: 3},
			Named: map[namedString]int{"y": 1, "x": 2}, TSKey: map[textString]int{"q": 1},
			Any: map[string]any{"f": 1.5, "n": nil, "l": []any{"<"}, "t": tagged{}}, Nested: map[string]map[string][]int{"a": {"b": nil, "c": {1}}},
		},
		"pointer chain":       &node{Name: "a", Next: &node{Name: "b"}},
		"recursive slices":    listNode{Kids: []listNode{{}, {Kids: []listNode{}}}},
		"pointer to pointer":  func() **int { p := &one; return &p }(),
		"nil pointer":         (*tagged)(nil),
		"bytes":               []byte("<>"),
		"time":                time.Date(2021, 2, 3, 4, 5, 6, 7, time.FixedZone("a", -7200)),
		"scheme time zero":    scheme.Time{},
		"scheme time":         scheme.NewTime(time.Date(2021, 2, 3, 4, 5, 6, 7, time.FixedZone("a", -7200))),
		"scheme time pointer": &scheme.Time{},
		"micro time zero":     scheme.MicroTime{},
		"micro time":          scheme.NewMicroTime(time.Date(2021, 2, 3, 4, 5, 6, 7000, time.FixedZone("a", -7200))),
		"micro time in struct": struct {
			T scheme.MicroTime  `json:"t"`
			P *scheme.MicroTime `json:"p,omitempty"`
		}{T: scheme.NewMicroTime(time.Unix(1700000000, 123456789))},
		"object meta full":  fullObjectMeta(),
		"object meta empty": scheme.ObjectMeta{},
		"list meta":         scheme.ListMeta{ResourceVersion: "1", Continue: "c", RemainingItemCount: int64Ptr(0)},
		"status": &scheme.Status{TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: scheme.StatusFailure,
			Message: "widgets \"x\" not found", Reason: scheme.StatusReasonNotFound, Code: 404,
			Details: &scheme.StatusDetails{Name: "x", Kind: "widgets", Causes: []scheme.StatusCause{{Type: scheme.CauseTypeFieldValueInvalid, Message: "m", Field: "spec.a"}}, RetryAfterSeconds: 1}},
		"condition":             scheme.Condition{Type: "Ready", Status: scheme.ConditionTrue, LastTransitionTime: scheme.NewTime(time.Unix(1700000000, 0))},
		"condition zero":        scheme.Condition{},
		"fields v1 value":       scheme.FieldsV1{Raw: []byte(" {\"a\" :\n1} ")},
		"fields v1 nil":         &scheme.FieldsV1{},
		"fields v1 escaped":     []scheme.FieldsV1{{Raw: []byte("{\"f:<a&b>\u2028\":{}, \"f:\xe2\x80\xa9\": {}}")}, {Raw: []byte("{\"f:<a&b>\u2028\":{}, \"f:\xe2\x80\xa9\": {}}")}},
		"error fields v1":       []scheme.FieldsV1{{Raw: []byte(`{"f:a":`)}, {Raw: []byte(`{"f:a":`)}},
		"unstructured ptr":      &scheme.Unstructured{Object: map[string]any{"kind": "X", "a": []any{1.5, "<"}}},
		"unstructured value":    scheme.Unstructured{Object: map[string]any{"kind": "X"}},
		"unstructured in slice": []scheme.Unstructured{{Object: map[string]any{"b": int64(1)}}},
		"unstructured list":     &scheme.UnstructuredList{Object: map[string]any{"kind": "XList"}, Items: []scheme.Unstructured{{Object: map[string]any{"a": true}}}},
		"widget": func() *Widget {
			var w Widget
			if _, err := Unmarshal(widgetJSON(3), &w); err != nil {
				panic(err)
			}
			return &w
		}(),
		// errors
		"error NaN":                 math.NaN(),
		"error NaN field":           struct{ F float32 }{float32(math.Inf(-1))},
		"error MarshalJSON":         struct{ F failJSON }{},
		"error MarshalJSON pointer": &failJSON{},
		"error MarshalText":         []failText{{}},
		"error MarshalText map key": map[textKeyFail]int{1: 1},
		"error invalid JSON":        badJSON{`{"a":}`},
		"error empty JSON":          []badJSON{{""}},
		"error trailing JSON":       map[string]badJSON{"x": {`1 2`}},
		"error chan":                struct{ C chan int }{},
		"error func in any":         []any{func() {}},
		"error complex":             complex(1, 2),
		"error map key type":        map[[2]int]int{},
		"error nil map bad key":     map[[2]int]int(nil),
		"error invalid number":      json.Number("1.2.3"),
		"error pointer cycle":       cyc,
		"error map cycle":           cycMap,
		"error slice cycle":         cycSlice,
	}
}

type textKeyFail int

func (textKeyFail) MarshalText() ([]byte, error) { return nil, errors.New("no key") }

// sameAsEncodingJSON fails t unless Marshal(v) equals json.Marshal(v) in bytes, or
// both fail with the same error type and message.
func sameAsEncodingJSON(t *testing.T, v any) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, gotErr := Marshal(v)
	switch {
	case wantErr != nil || gotErr != nil:
		if wantErr == nil || gotErr == nil || wantErr.Error() != gotErr.Error() ||
			reflect.TypeOf(wantErr) != reflect.TypeOf(gotErr) {
			t.Fatalf("errors differ:\nours:   %T %v\ntheirs: %T %v", gotErr, gotErr, wantErr, wantErr)
		}
		var wm, gm *json.MarshalerError
		if errors.As(wantErr, &wm) != errors.As(gotErr, &gm) || wm != nil && errors.Unwrap(wm).Error() != errors.Unwrap(gm).Error() {
			t.Fatalf("wrapped errors differ: %v vs %v", gotErr, wantErr)
		}
	case string(got) != string(want):
		t.Fatalf("output differs:\nours:   %s\ntheirs: %s", got, want)
	}
}

func TestMarshal_IsByteIdenticalToEncodingJSON(t *testing.T) {
	for name, v := range encodeCases() {
		t.Run(name, func(t *testing.T) {
			sameAsEncodingJSON(t, v)
			// Inside an interface field, a map value and a slice element the value is
			// met unaddressable, addressable and unaddressable again.
			sameAsEncodingJSON(t, struct{ X any }{v})
			if !strings.Contains(name, "cycle") {
				sameAsEncodingJSON(t, map[string]any{"x": v})
				sameAsEncodingJSON(t, []any{v})
			}
		})
	}
}

func TestMarshal_ErrorsExpectedWhereEncodingJSONFails(t *testing.T) {
	for name, v := range encodeCases() {
		if !strings.HasPrefix(name, "error ") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if _, err := Marshal(v); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestMarshal_WrapsMethodErrorsLikeEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"MarshalJSON", struct{ F failJSON }{}, "json: error calling MarshalJSON for type codec.failJSON: boom"},
		{"MarshalText", failText{}, "json: error calling MarshalText for type codec.failText: text boom"},
		{"invalid output", badJSON{"{"}, "json: error calling MarshalJSON for type codec.badJSON: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Marshal(tt.v)
			var me *json.MarshalerError
			if !errors.As(err, &me) || err.Error() != tt.want {
				t.Fatalf("got %T %v, want *json.MarshalerError %q", err, err, tt.want)
			}
		})
	}
}

func TestMarshal_DeepNonCyclicPointersEncodeLikeEncodingJSON(t *testing.T) {
	var head *node
	for i := 0; i < 3000; i++ {
		head = &node{Name: "n", Next: head}
	}
	sameAsEncodingJSON(t, head)
}

// Random values of a few struct types, generated by testing/quick with a fixed seed.

type RandLeaf struct {
	S  string            `json:"s,omitempty"`
	I  int16             `json:"i,string"`
	U  *uint32           `json:"u,omitempty"`
	F  float32           `json:"f,omitzero"`
	B  []byte            `json:"b"`
	M  map[string]string `json:"m,omitempty"`
	MI map[int8]bool
	A  [2]bool
}

type randMid struct {
	RandLeaf
	*EncEmbedded
	Leaves []RandLeaf           `json:"leaves"`
	ByName map[string]*RandLeaf `json:"byName,omitzero"`
	Time   scheme.Time          `json:"time,omitempty,omitzero"`
	PT     *scheme.Time         `json:"pt,omitempty"`
	Tx     map[textKey]ptrText  `json:"tx"`
	V      valJSON
}

type randTop struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Mid               randMid  `json:"mid"`
	MidP              *randMid `json:"midp,omitempty"`
	Conds             []scheme.Condition
	Float             float64 `json:",omitempty"`
	Parts             [3]Part
}

func TestMarshal_IsByteIdenticalForRandomValues(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	for _, typ := range []reflect.Type{reflect.TypeFor[RandLeaf](), reflect.TypeFor[randMid](), reflect.TypeFor[*randTop](), reflect.TypeFor[[]Widget]()} {
		t.Run(typ.String(), func(t *testing.T) {
			for i := 0; i < 300; i++ {
				x := randomValue(typ, r, 4).Interface()
				want, werr := json.Marshal(x)
				got, gerr := Marshal(x)
				if werr != nil || gerr != nil {
					if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
						t.Fatalf("value %d: errors differ: ours %v, theirs %v", i, gerr, werr)
					}
					continue
				}
				if string(got) != string(want) {
					t.Fatalf("value %d differs:\nours:   %s\ntheirs: %s", i, got, want)
				}
			}
		})
	}
}

// randomValue generates a value of t like testing/quick does, and also fills what
// quick cannot: times, and structs with unexported fields (left zero).
func randomValue(t reflect.Type, r *rand.Rand, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t {
	case reflect.TypeFor[scheme.Time]():
		if r.Intn(3) > 0 {
			v.Set(reflect.ValueOf(scheme.NewTime(time.Unix(r.Int63n(4e9), 0))))
		}
		return v
	case reflect.TypeFor[string](), reflect.TypeFor[float64](), reflect.TypeFor[float32]():
		if r.Intn(4) == 0 {
			return v // the zero value, for omitempty and omitzero
		}
	}
	switch t.Kind() {
	case reflect.String:
		if r.Intn(2) == 0 {
			v.SetString(randomString(randv2.New(randv2.NewPCG(uint64(r.Int63()), 1))))
			return v
		}
	case reflect.Float32, reflect.Float64:
		floats := []float64{0, math.Copysign(0, -1), 1.5, 1e-7, 1e21, -2.5e-30, 123456.75}
		v.SetFloat(floats[r.Intn(len(floats))])
		return v
	case reflect.Pointer:
		if depth <= 0 || r.Intn(3) == 0 {
			return v
		}
		v.Set(randomValue(t.Elem(), r, depth-1).Addr())
		return v
	case reflect.Slice:
		if depth <= 0 || r.Intn(4) == 0 {
			return v
		}
		n := r.Intn(4)
		v.Set(reflect.MakeSlice(t, n, n))
		for i := 0; i < n; i++ {
			v.Index(i).Set(randomValue(t.Elem(), r, depth-1))
		}
		return v
	case reflect.Map:
		if depth <= 0 || r.Intn(4) == 0 {
			return v
		}
		v.Set(reflect.MakeMap(t))
		for n := r.Intn(4); n > 0; n-- {
			v.SetMapIndex(randomValue(t.Key(), r, depth-1), randomValue(t.Elem(), r, depth-1))
		}
		return v
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				v.Field(i).Set(randomValue(t.Field(i).Type, r, depth-1))
			}
		}
		return v
	case reflect.Array:
		for i := 0; i < t.Len(); i++ {
			v.Index(i).Set(randomValue(t.Elem(), r, depth-1))
		}
		return v
	}
	q, ok := quick.Value(t, r)
	if !ok {
		panic(fmt.Sprintf("cannot generate %v", t))
	}
	return q
}

func TestAppendJSON_AppendsToExistingBytes(t *testing.T) {
	out, err := AppendJSON([]byte("prefix:"), &scheme.Condition{Type: "A"})
	if err != nil {
		t.Fatal(err)
	}
	want := `prefix:{"type":"A","status":"","lastTransitionTime":null,"reason":"","message":""}`
	if string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

func TestMarshal_IsSafeForConcurrentUse(t *testing.T) {
	cases := encodeCases()
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			var err error
			for name, v := range cases {
				if strings.HasPrefix(name, "error ") {
					continue
				}
				want, _ := json.Marshal(v)
				got, gerr := Marshal(v)
				if gerr != nil || string(got) != string(want) {
					err = fmt.Errorf("%s: %v %s", name, gerr, got)
				}
			}
			done <- err
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
