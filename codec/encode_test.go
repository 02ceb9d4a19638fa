package codec

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomTree builds an unstructured value with the shapes and awkward scalars that
// real objects carry.
func randomTree(r *rand.Rand, depth int) any {
	kind := r.IntN(10)
	if depth <= 0 && kind >= 7 {
		kind = r.IntN(7)
	}
	switch kind {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return int64(r.Uint64())
	case 3:
		floats := []float64{0, -0.0, 1.5, 1e-7, 1e21, 123456789.125, -2.5e-300, math.MaxFloat64, float64(r.Int64()) / 7, 1e20, 0.000001}
		return floats[r.IntN(len(floats))]
	case 4, 5, 6:
		return randomString(r)
	case 7:
		n := r.IntN(5)
		l := make([]any, n)
		for i := range l {
			l[i] = randomTree(r, depth-1)
		}
		if n == 0 && r.IntN(2) == 0 {
			return []any(nil)
		}
		return l
	default:
		n := r.IntN(6)
		m := make(map[string]any, n)
		for i := 0; i < n; i++ {
			m[randomString(r)] = randomTree(r, depth-1)
		}
		if n == 0 && r.IntN(3) == 0 {
			return map[string]any(nil)
		}
		return m
	}
}

func randomString(r *rand.Rand) string {
	pieces := []string{"a", "Z", "9", " ", "<", ">", "&", `"`, `\`, "/", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"é", "日本", "😀", "\u2028", "\u2029", "\xff", "\xc3", "\xed\xa0\x80", "'", "metadata", "+", "%"}
	var b strings.Builder
	for n := r.IntN(8); n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestAppendJSON_IsByteIdenticalToEncodingJSONForRandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		v := randomTree(r, 5)
		want, werr := json.Marshal(v)
		got, gerr := MarshalUnstructured(v)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("tree %d: errors differ: ours %v, encoding/json %v", i, gerr, werr)
		}
		if string(got) != string(want) {
			t.Fatalf("tree %d differs:\nours:   %s\ntheirs: %s", i, got, want)
		}
	}
}

func TestAppendJSON_MatchesEncodingJSONForSpecialValues(t *testing.T) {
	values := []any{
		nil, true, "", "<script>&amp;</script>", "\u2028\u2029", "\xff\xfe", int64(math.MinInt64),
		1e-6, 1e-7, 1e20, 1e21, -0.0, float32(3.14), float32(1e-7), float32(1e21), 42, int32(-7),
		map[string]any{}, []any{}, map[string]any{"b": 1, "a": []any{map[string]any{"z": nil, "y": "x"}}},
		map[string]string{"b": "<", "a": ">"}, []string{"x"}, json.Number("12.50"), json.RawMessage(`{"x" : 1}`),
		map[string]any{"inner": map[string]int{"z": 1, "a": 2}},
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalUnstructured(v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		if string(got) != string(want) {
			t.Errorf("%#v:\nours:   %s\ntheirs: %s", v, got, want)
		}
	}
}

func TestAppendJSON_RejectsNaNAndInfinity(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), map[string]any{"x": []any{math.Inf(-1)}}, float32(math.Inf(1))} {
		if _, err := MarshalUnstructured(v); err == nil {
			t.Errorf("%v encoded without error", v)
		}
	}
}

func TestAppendJSON_DecodeRoundTripPreservesTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 500; i++ {
		v := randomTree(r, 4)
		b, err := MarshalUnstructured(v)
		if err != nil {
			t.Fatal(err)
		}
		back, issues, err := DecodeAny(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if len(issues) > 0 && !strings.Contains(string(b), `\ufffd`) {
			t.Fatalf("%s: unexpected issues %v", b, issues)
		}
		// Invalid UTF-8 became U+FFFD, so compare the decoded trees of two rounds.
		b2, err := MarshalUnstructured(back)
		if err != nil {
			t.Fatal(err)
		}
		back2, _, err := DecodeAny(b2)
		if err != nil || !reflect.DeepEqual(back, back2) {
			t.Fatalf("round trip changed the document:\n%s\n%s", b, b2)
		}
	}
}

// TestAppendString_IsEncodingJSONsForEveryByte compares strings of random bytes, mostly
// safe letters with every other byte value sprinkled in at every offset of the
// eight-byte fast path, with encoding/json.
func TestAppendString_IsEncodingJSONsForEveryByte(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 20000 {
		buf := make([]byte, rng.IntN(40))
		for i := range buf {
			buf[i] = 'a' + byte(rng.IntN(26))
			if rng.IntN(8) == 0 {
				buf[i] = byte(rng.IntN(256))
			}
		}
		if n%7 == 0 && len(buf) > 3 {
			copy(buf[rng.IntN(len(buf)-3):], "\u2028")
		}
		s := string(buf)
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q:\nours:   %s\ntheirs: %s", s, got, want)
		}
	}
}
