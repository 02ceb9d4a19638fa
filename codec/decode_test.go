package codec

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

// Types exercising the decoder's rules.
type (
	inner struct {
		A string `json:"a"`
		B int    `json:"b,omitempty"`
	}
	Embedded struct {
		E1 string `json:"e1"`
		E2 string `json:"shadowed"`
	}
	Other struct {
		Conflict string `json:"conflict"`
	}
	Another struct {
		Conflict string `json:"conflict"`
	}
	Tagged struct {
		Name string `json:"name"`
	}
	Untagged struct {
		Name string
	}
	withEmbedding struct {
		Embedded `json:",inline"`
		*Other
		Another
		Shadowed string `json:"shadowed"`
		Skip     string `json:"-"`
		Dash     string `json:"-,"`
		NoTag    int
		private  string
	}
	tagWins struct {
		Tagged
		Untagged
	}
	allKinds struct {
		I    int                `json:"i"`
		I8   int8               `json:"i8"`
		I16  int16              `json:"i16"`
		I32  int32              `json:"i32"`
		I64  int64              `json:"i64"`
		U    uint               `json:"u"`
		U8   uint8              `json:"u8"`
		U16  uint16             `json:"u16"`
		U32  uint32             `json:"u32"`
		U64  uint64             `json:"u64"`
		F32  float32            `json:"f32"`
		F64  float64            `json:"f64"`
		B    bool               `json:"b"`
		S    string             `json:"s"`
		P    *int32             `json:"p"`
		PP   **string           `json:"pp"`
		Sl   []string           `json:"sl"`
		Arr  [3]int             `json:"arr"`
		M    map[string]int     `json:"m"`
		MS   map[string]string  `json:"ms"`
		MA   map[string]any     `json:"ma"`
		KM   map[keyKind]inner  `json:"km"`
		Any  any                `json:"any"`
		Raw  json.RawMessage    `json:"raw"`
		Byt  []byte             `json:"byt"`
		T    scheme.Time        `json:"t"`
		PT   *scheme.Time       `json:"pt"`
		Txt  textValue          `json:"txt"`
		In   inner              `json:"in"`
		InP  *inner             `json:"inp"`
		Sli  []inner            `json:"sli"`
		SlP  []*inner           `json:"slp"`
		F    *scheme.FieldsV1   `json:"f"`
		Nest map[string][]inner `json:"nest"`
	}
	keyKind   string
	textValue struct{ V string }
	recursive struct {
		Name     string       `json:"name"`
		Children []*recursive `json:"children,omitempty"`
	}
)

func (t *textValue) UnmarshalText(b []byte) error {
	if string(b) == "bad" {
		return errors.New("bad text")
	}
	t.V = "text:" + string(b)
	return nil
}

// decodeBoth decodes data into fresh values of v's type with our decoder and with
// encoding/json and fails the test if they differ.
func decodeBoth[T any](t *testing.T, data string) T {
	t.Helper()
	var ours, theirs T
	if _, err := Unmarshal([]byte(data), &ours); err != nil {
		t.Fatalf("Unmarshal(%s): %v", data, err)
	}
	if err := json.Unmarshal([]byte(data), &theirs); err != nil {
		t.Fatalf("json.Unmarshal(%s): %v", data, err)
	}
	if !reflect.DeepEqual(normalize(ours), normalize(theirs)) {
		t.Fatalf("decode of %s differs from encoding/json:\nours:   %#v\ntheirs: %#v", data, ours, theirs)
	}
	return ours
}

// normalize maps values whose in-memory form legitimately differs (time locations)
// onto their JSON.
func normalize(v any) string { return mustJSON(v) }

func TestUnmarshal_MatchesEncodingJSONForEveryKind(t *testing.T) {
	docs := []string{
		`{}`,
		`{"i":-9223372036854775808,"i8":-128,"i16":32767,"i32":-2147483648,"i64":9223372036854775807}`,
		`{"u":1,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615}`,
		`{"f32":3.4e38,"f64":-1.5e-300,"b":true,"s":"h\u00e9llo \"q\" \\ \/ \b\f\n\r\t \ud83d\ude00"}`,
		`{"p":5,"pp":"deep","sl":["a","b"],"arr":[1,2,3,4],"m":{"x":1,"y":2}}`,
		`{"arr":[7],"ms":{"a":"b","c":null},"ma":{"n":1,"f":1.5,"s":"x","l":[1,{"k":true}],"z":null}}`,
		`{"km":{"k1":{"a":"x","b":2}},"any":[1,"two",3.5,null,{"o":{}}]}`,
		`{"raw":{"keep": [1, 2 ]},"byt":"aGVsbG8gd29ybGQ=","t":"2024-05-01T10:00:00Z","pt":"2024-05-01T10:00:00+02:00"}`,
		`{"txt":"hello","in":{"a":"x"},"inp":{"b":3},"sli":[{"a":"1"},{"a":"2","b":2}],"slp":[null,{"a":"p"}]}`,
		`{"f":{"f:metadata":{"f:labels":{".":{}}}},"nest":{"k":[{"a":"n"}],"e":[]}}`,
		`{"byt":[1,2,3]}`,
		` { "s" : "spaces" , "i" : 1 } `,
		`{"sl":[],"m":{},"any":{}}`,
		`{"s":"\u003c\u0026\u003e \u2028"}`,
	}
	for _, doc := range docs {
		t.Run(doc, func(t *testing.T) { decodeBoth[allKinds](t, doc) })
	}
}

func TestUnmarshal_EmbeddingFollowsEncodingJSONRules(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		issues FieldIssues
	}{
		{"inline fields are promoted", `{"e1":"x"}`, nil},
		{"outer field shadows embedded one", `{"shadowed":"outer"}`, nil},
		{"conflicting promoted fields annihilate", `{"conflict":"c"}`, FieldIssues{{UnknownField, "conflict"}}},
		{"json dash skips the field", `{"Skip":"s"}`, FieldIssues{{UnknownField, "Skip"}}},
		{"json dash-comma names the field -", `{"-":"d"}`, nil},
		{"untagged field uses its Go name", `{"NoTag":4}`, nil},
		{"unexported fields are not decoded", `{"private":"p"}`, FieldIssues{{UnknownField, "private"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decodeBoth[withEmbedding](t, tt.doc)
			var v withEmbedding
			issues, err := Unmarshal([]byte(tt.doc), &v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.issues, issues); diff != "" {
				t.Errorf("issues (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("tagged field wins over untagged at the same depth", func(t *testing.T) {
		v := decodeBoth[tagWins](t, `{"name":"n"}`)
		if v.Tagged.Name != "n" || v.Untagged.Name != "" {
			t.Errorf("got %+v", v)
		}
	})
	t.Run("nil embedded pointer is allocated", func(t *testing.T) {
		type outer struct{ *inner }
		var v outer
		if _, err := Unmarshal([]byte(`{"a":"x"}`), &v); err != nil || v.inner == nil {
			// inner is unexported: encoding/json refuses too.
			if err == nil {
				t.Fatalf("expected an error for an unexported embedded pointer, got %+v", v)
			}
		}
		type outerExp struct{ *Embedded }
		var w outerExp
		if _, err := Unmarshal([]byte(`{"e1":"x"}`), &w); err != nil || w.Embedded == nil || w.E1 != "x" {
			t.Fatalf("got %+v, %v", w, err)
		}
	})
}

func TestUnmarshal_FieldMatchingIsCaseSensitive(t *testing.T) {
	var w Widget
	issues, err := Unmarshal([]byte(`{"spec":{"Color":"red","color":"blue"}}`), &w)
	if err != nil {
		t.Fatal(err)
	}
	if w.Spec.Color != "blue" {
		t.Errorf("color = %q, want blue (Color must not match)", w.Spec.Color)
	}
	want := FieldIssues{{UnknownField, "spec.Color"}}
	if diff := cmp.Diff(want, issues); diff != "" {
		t.Errorf("issues (-want +got):\n%s", diff)
	}
}

func TestUnmarshal_ReportsUnknownAndDuplicateFieldsWithPaths(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"clean document has no issues", `{"spec":{"color":"a"}}`, nil},
		{"unknown top-level field", `{"foo":1}`, []string{`unknown field "foo"`}},
		{"unknown nested field", `{"spec":{"foo":{"x":1}}}`, []string{`unknown field "spec.foo"`}},
		{"unknown field in a list item", `{"spec":{"parts":[{"name":"a"},{"name":"b"},{"nmae":"c"}]}}`, []string{`unknown field "spec.parts[2].nmae"`}},
		{"duplicate field", `{"spec":{"color":"a","color":"b"}}`, []string{`duplicate field "spec.color"`}},
		{"duplicate in a map", `{"metadata":{"labels":{"a":"1","a":"2"}}}`, []string{`duplicate field "metadata.labels.a"`}},
		{"unknown inside a condition", `{"status":{"conditions":[{"type":"R","bogus":true}]}}`, []string{`unknown field "status.conditions[0].bogus"`}},
		{"duplicate inside a list item", `{"status":{"conditions":[{},{"type":"a","type":"b"}]}}`, []string{`duplicate field "status.conditions[1].type"`}},
		{"promoted TypeMeta fields are known", `{"kind":"Widget","apiVersion":"v1"}`, nil},
		{"duplicate promoted field", `{"kind":"A","kind":"B"}`, []string{`duplicate field "kind"`}},
		{"many issues in input order, repeats once", `{"x":1,"y":2,"x":3,"spec":{"color":"","color":"","color":""}}`,
			[]string{`unknown field "x"`, `unknown field "y"`, `duplicate field "spec.color"`}},
		{"unknown field content is not inspected", `{"foo":{"a":1,"a":2}}`, []string{`unknown field "foo"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w Widget
			issues, err := Unmarshal([]byte(tt.doc), &w)
			if err != nil {
				t.Fatal(err)
			}
			got := issues.Warnings()
			if len(got) == 0 {
				got = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("issues (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnmarshal_DuplicatesInUntypedValuesKeepTheLastValue(t *testing.T) {
	v, issues, err := DecodeAny([]byte(`{"a":{"b":[{"c":1,"c":2}]},"a":{"b":[{"c":3}]},"m":{"k":1,"k":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`duplicate field "a.b[0].c"`, `duplicate field "a"`, `duplicate field "m.k"`}
	if diff := cmp.Diff(want, issues.Warnings()); diff != "" {
		t.Errorf("issues (-want +got):\n%s", diff)
	}
	if got := mustJSON(v); got != `{"a":{"b":[{"c":3}]},"m":{"k":2}}` {
		t.Errorf("value = %s", got)
	}
}

func TestUnmarshal_IssuesAreCappedAt100(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 150; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"f` + strings.Repeat("x", i) + `":1`)
	}
	b.WriteString("}")
	var w Widget
	issues, err := Unmarshal([]byte(b.String()), &w)
	if err != nil || len(issues) != 100 {
		t.Fatalf("got %d issues, err %v; want 100", len(issues), err)
	}
	if msg := issues.Err().Error(); !strings.HasPrefix(msg, `strict decoding error: unknown field "f", unknown field "fx", `) {
		t.Errorf("message = %.80s", msg)
	}
	if (FieldIssues{}).Err() != nil {
		t.Error("no issues must give a nil error")
	}
}

func TestUnmarshal_NullLeavesScalarsAndZeroesReferences(t *testing.T) {
	three := int32(3)
	start := allKinds{
		I: 1, S: "s", B: true, P: &three, Sl: []string{"x"}, M: map[string]int{"a": 1},
		Any: "v", In: inner{A: "a"}, InP: &inner{A: "p"}, T: scheme.NewTime(time.Unix(100, 0)), Txt: textValue{V: "t"},
		Raw: json.RawMessage(`1`),
	}
	doc := `{"i":null,"s":null,"b":null,"p":null,"sl":null,"m":null,"any":null,"in":null,"inp":null,"t":null,"txt":null,"raw":null}`
	ours, theirs := start, start
	ours.Sl, theirs.Sl = []string{"x"}, []string{"x"}
	if _, err := Unmarshal([]byte(doc), &ours); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(doc), &theirs); err != nil {
		t.Fatal(err)
	}
	if mustJSON(ours) != mustJSON(theirs) {
		t.Errorf("null handling differs:\nours:   %s\ntheirs: %s", mustJSON(ours), mustJSON(theirs))
	}
	if ours.I != 1 || ours.S != "s" || !ours.B || ours.P != nil || ours.Sl != nil || ours.M != nil || ours.Any != nil || ours.InP != nil || !ours.T.IsZero() {
		t.Errorf("got %+v", ours)
	}
}

func TestDecodeAny_IntegersBecomeInt64AndOthersFloat64(t *testing.T) {
	tests := []struct {
		doc  string
		want any
	}{
		{`0`, int64(0)},
		{`-42`, int64(-42)},
		{`9223372036854775807`, int64(math.MaxInt64)},
		{`-9223372036854775808`, int64(math.MinInt64)},
		{`9223372036854775808`, float64(9223372036854775808)},
		{`1.0`, float64(1)},
		{`1e3`, float64(1000)},
		{`-0.5E-2`, float64(-0.005)},
		{`"s"`, "s"},
		{`true`, true},
		{`null`, nil},
		{`[1,2.5]`, []any{int64(1), 2.5}},
		{`{"a":{"b":1}}`, map[string]any{"a": map[string]any{"b": int64(1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			got, _, err := DecodeAny([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestUnmarshal_NumbersOutOfRangeAreErrors(t *testing.T) {
	tests := []struct {
		doc, path string
	}{
		{`{"i32":2147483648}`, "i32"},
		{`{"i32":-2147483649}`, "i32"},
		{`{"i8":128}`, "i8"},
		{`{"u8":256}`, "u8"},
		{`{"u":-1}`, "u"},
		{`{"i64":9223372036854775808}`, "i64"},
		{`{"i":1.5}`, "i"},
		{`{"i":1e2}`, "i"},
		{`{"f32":1e39}`, "f32"},
		{`{"f64":1e400}`, "f64"},
		{`{"p":4294967296}`, "p"},
		{`{"sli":[{},{"b":"str"}]}`, "sli[1].b"},
		{`{"s":1}`, "s"},
		{`{"b":"true"}`, "b"},
		{`{"in":[]}`, "in"},
		{`{"sl":{}}`, "sl"},
		{`{"byt":"!!!"}`, "byt"},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			var v allKinds
			_, err := Unmarshal([]byte(tt.doc), &v)
			var te *TypeError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a *TypeError", err)
			}
			if te.Path != tt.path {
				t.Errorf("path = %q, want %q (%v)", te.Path, tt.path, err)
			}
			if json.Unmarshal([]byte(tt.doc), &allKinds{}) == nil {
				t.Errorf("encoding/json accepts %s", tt.doc)
			}
		})
	}
}

func TestWidget_Int32ReplicasOverflowIsAnError(t *testing.T) {
	var w Widget
	_, err := Unmarshal([]byte(`{"spec":{"replicas":3000000000}}`), &w)
	if err == nil || !strings.Contains(err.Error(), "spec.replicas") || !strings.Contains(err.Error(), "int32") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnmarshal_MalformedInputIsASyntaxErrorWithOffset(t *testing.T) {
	tests := []struct {
		doc    string
		offset int64
	}{
		{``, 0},
		{`   `, 3},
		{`{`, 1},
		{`{"a"`, 4},
		{`{"a":`, 5},
		{`{"a":1`, 6},
		{`{"a":1,}`, 7},
		{`{"a" 1}`, 5},
		{`{a:1}`, 1},
		{`[1,]`, 3},
		{`[1 2]`, 3},
		{`"abc`, 4},
		{`"a\qb"`, 3},
		{"\"a\x01b\"", 2},
		{`"\u12G4"`, 2},
		{`tru`, 3},
		{`nul`, 3},
		{`falsy`, 4},
		{`[01]`, 2},
		{`-`, 1},
		{`1.`, 2},
		{`1e`, 2},
		{`+1`, 0},
		{`{} {}`, 3},
		{`{"spec":{"color":"x"}`, 21},
		{`{"spec":[}`, 9},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			for _, target := range []any{&Widget{}, new(any), &scheme.Unstructured{}} {
				_, err := Unmarshal([]byte(tt.doc), target)
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("%T: err = %v, want *SyntaxError", target, err)
				}
				if se.Offset != tt.offset {
					t.Errorf("%T: offset = %d, want %d (%v)", target, se.Offset, tt.offset, err)
				}
			}
			if json.Valid([]byte(tt.doc)) {
				t.Errorf("encoding/json considers %q valid", tt.doc)
			}
		})
	}
}

func TestUnmarshal_EveryTruncationOfADocumentFailsCleanly(t *testing.T) {
	doc := widgetJSON(3)
	for i := 0; i < len(doc); i++ {
		var w Widget
		if _, err := Unmarshal(doc[:i], &w); err == nil {
			t.Fatalf("prefix of length %d decoded without error", i)
		}
		if _, _, err := DecodeAny(doc[:i]); err == nil {
			t.Fatalf("prefix of length %d decoded (untyped) without error", i)
		}
	}
}

func TestUnmarshal_DeepNestingIsAnErrorNotAStackOverflow(t *testing.T) {
	deep := func(n int, open, close string) []byte {
		return []byte(strings.Repeat(open, n) + strings.Repeat(close, n))
	}
	tests := []struct {
		name           string
		data           []byte
		wantErr        bool
		wantErrWrapped bool // inside one more object
	}{
		{"arrays just below the limit", deep(MaxDepth-1, "[", "]"), false, false},
		{"arrays at the limit", deep(MaxDepth, "[", "]"), false, true},
		{"arrays past the limit", deep(MaxDepth+1, "[", "]"), true, true},
		{"objects past the limit", deep(MaxDepth+1, `{"a":`, "}"), true, true},
		{"a million brackets", deep(1_000_000, "[", "]"), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeAny(tt.data)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			// Unknown fields are skipped, and skipping must be bounded too.
			var w Widget
			_, err = Unmarshal(append(append([]byte(`{"x":`), tt.data...), '}'), &w)
			if (err != nil) != tt.wantErrWrapped {
				t.Fatalf("skip: err = %v, wantErr %v", err, tt.wantErrWrapped)
			}
		})
	}
}

func TestUnmarshal_HugeInputs(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	var v struct {
		S string `json:"s"`
		L []int  `json:"l"`
	}
	var b strings.Builder
	b.WriteString(`{"s":"` + big + `","l":[`)
	for i := 0; i < 200000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("7")
	}
	b.WriteString("]}")
	if _, err := Unmarshal([]byte(b.String()), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.S) != len(big) || len(v.L) != 200000 || v.L[199999] != 7 {
		t.Errorf("got len(s)=%d len(l)=%d", len(v.S), len(v.L))
	}
}

func TestUnmarshal_InvalidUTF8IsReplacedLikeEncodingJSON(t *testing.T) {
	docs := []string{
		"\"a\xffb\"",
		"\"\xc3\x28\"",
		"\"\xed\xa0\x80\"",
		`"\ud800"`,
		`"\ud800\u0041"`,
		`"\udc00\ud800"`,
		"\"\xe2\x82\"",
	}
	for _, doc := range docs {
		var ours, theirs string
		if _, err := Unmarshal([]byte(doc), &ours); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if err := json.Unmarshal([]byte(doc), &theirs); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if ours != theirs {
			t.Errorf("%q: got %q, encoding/json %q", doc, ours, theirs)
		}
	}
}

func TestUnmarshal_UnmarshalerErrorsCarryThePath(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"t":"yesterday"}`, "decoding t:"},
		{`{"txt":"bad"}`, "decoding txt: bad text"},
		{`{"t":5}`, "number 5"},
	}
	for _, tt := range tests {
		var v allKinds
		_, err := Unmarshal([]byte(tt.doc), &v)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.doc, err, tt.want)
		}
	}
}

func TestUnmarshal_RecursiveTypes(t *testing.T) {
	v := decodeBoth[recursive](t, `{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`)
	if v.Children[0].Children[0].Name != "c" {
		t.Errorf("got %+v", v)
	}
}

func TestUnmarshal_RejectsNonPointers(t *testing.T) {
	var w Widget
	for _, target := range []any{w, nil, (*Widget)(nil)} {
		if _, err := Unmarshal([]byte(`{}`), target); err == nil {
			t.Errorf("Unmarshal into %T succeeded", target)
		}
	}
}

func TestUnmarshal_TypedObjectRoundTrips(t *testing.T) {
	for _, n := range []int{0, 1, 20, 200} {
		data := widgetJSON(n)
		var w Widget
		issues, err := Unmarshal(data, &w)
		if err != nil || len(issues) > 0 {
			t.Fatalf("decode: %v %v", issues, err)
		}
		out, err := json.Marshal(&w)
		if err != nil {
			t.Fatal(err)
		}
		var w2 Widget
		if _, err := Unmarshal(out, &w2); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(mustJSON(w), mustJSON(w2)); diff != "" {
			t.Errorf("round trip with %d parts (-first +second):\n%s", n, diff)
		}
		if len(w2.Spec.Parts) != n || (n > 0 && w2.Spec.Parts[n-1].Count != int32((n-1)*7)) {
			t.Errorf("parts lost: %d", len(w2.Spec.Parts))
		}
		if *w2.Spec.Replicas != 3 || w2.Status.Conditions[0].LastTransitionTime.Unix() != time.Date(2024, 5, 1, 10, 5, 0, 0, time.UTC).Unix() {
			t.Errorf("got %+v", w2)
		}
	}
}

func TestUnmarshal_ConcurrentFirstUseOfATypeIsSafe(t *testing.T) {
	type fresh struct {
		Name  string            `json:"name"`
		Self  *fresh            `json:"self"`
		Items []fresh           `json:"items"`
		Map   map[string]*fresh `json:"map"`
	}
	doc := []byte(`{"name":"a","self":{"name":"b"},"items":[{"name":"c"}],"map":{"k":{"name":"d"}}}`)
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			var v fresh
			_, err := Unmarshal(doc, &v)
			if err == nil && (v.Self.Name != "b" || v.Items[0].Name != "c" || v.Map["k"].Name != "d") {
				err = errors.New("wrong result")
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
