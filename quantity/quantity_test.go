package quantity

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
)

func TestParse_CanonicalFormAsApimachinery(t *testing.T) {
	tests := []struct {
		in, want string
		format   Format
	}{
		{"0", "0", DecimalSI},
		{"1000m", "1", DecimalSI},
		{"0.5", "500m", DecimalSI},
		{"1024Mi", "1Gi", BinarySI},
		{"1e3", "1e3", DecimalExponent},
		{"1E3", "1E3", DecimalExponent},
		{"1.5Gi", "1536Mi", BinarySI},
		{"0.5Ki", "512", BinarySI},
		{"1023", "1023", DecimalSI},
		{"100m", "100m", DecimalSI},
		{"0.1n", "1n", DecimalSI},
		{"-1.5n", "-2n", DecimalSI},
		{"1e-20", "1e-9", DecimalExponent},
		{"12345678901234567890", "12345678901234567890", DecimalSI},
		{"8Ei", "9223372036854775807", BinarySI},
		{"1000E", "1", DecimalSI}, // kube has no suffix for 10^21 and leaves it out
		{"+1", "+1", DecimalSI},   // already canonical text is kept as written
		{"01Ki", "01Ki", BinarySI},
		{"5.5e-3", "5500e-6", DecimalExponent},
		{"1.0001k", "1000100m", DecimalSI},
		{".", "0", DecimalSI},
		{"1e2147483647", "10e2147483646", DecimalExponent},
	}
	for _, tt := range tests {
		q, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := q.String(); got != tt.want || q.Format != tt.format {
			t.Errorf("Parse(%q) = %q %s, want %q %s", tt.in, got, q.Format, tt.want, tt.format)
		}
	}
}

func TestParse_RejectsWithApimachinerysErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrFormatWrong},
		{"1..", ErrFormatWrong},
		{"1 k", ErrFormatWrong},
		{" 1", ErrFormatWrong},
		{"1e3.5", ErrFormatWrong},
		{"1ki", ErrSuffix},
		{"1e", ErrSuffix},
		{"1KI", ErrFormatWrong},
		{"1Ki1", ErrSuffix},
		{".e-20", ErrNumeric},
		{"1" + strings.Repeat("1", MaxDigits) + "Ki", ErrNumeric},
	}
	for _, tt := range tests {
		if _, err := Parse(tt.in); !errors.Is(err, tt.want) {
			t.Errorf("Parse(%.20q) error %v, want %v", tt.in, err, tt.want)
		}
	}
	if ErrFormatWrong.Error() != "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" {
		t.Errorf("ErrFormatWrong is %q", ErrFormatWrong)
	}
}

func TestQuantity_ZeroValueIsZero(t *testing.T) {
	var q Quantity
	j, _ := q.MarshalJSON()
	if q.String() != "0" || string(j) != `"0"` || !q.IsZero() || q.Sign() != 0 || q.Value() != 0 || q.AsApproximateFloat64() != 0 {
		t.Errorf("zero Quantity: %q %s %v", q.String(), j, q.AsApproximateFloat64())
	}
}

func TestQuantity_ValuesAndComparisons(t *testing.T) {
	tests := []struct {
		in          string
		value, mill int64
		sign        int
	}{
		{"1.5", 2, 1500, 1},
		{"100m", 1, 100, 1},
		{"-100m", -1, -100, -1}, // rounds away from zero on the int64 path
		{"1Ki", 1024, 1024000, 1},
		{"1n", 1, 1, 1},
		{"2e3", 2000, 2000000, 1},
	}
	for _, tt := range tests {
		q := MustParse(tt.in)
		if q.Value() != tt.value || q.MilliValue() != tt.mill || q.Sign() != tt.sign {
			t.Errorf("%s: Value %d MilliValue %d Sign %d, want %d %d %d", tt.in, q.Value(), q.MilliValue(), q.Sign(), tt.value, tt.mill, tt.sign)
		}
	}
	if MustParse("1").Cmp(MustParse("1000m")) != 0 || MustParse("1Ki").Cmp(MustParse("1k")) != 1 || MustParse("1e-30").CmpInt64(0) != 1 {
		t.Error("Cmp disagrees with the amounts")
	}
	if c := MustParse("1e2000000000").Cmp(MustParse("1n")); c != 1 {
		t.Errorf("Cmp of amounts 10^2000000009 apart = %d", c)
	}
	if !MustParse("1Gi").Equal(*NewQuantity(1<<30, DecimalSI)) {
		t.Error("1Gi is not 2^30")
	}
}

func TestQuantity_ArithmeticKeepsFormatsAsApimachinery(t *testing.T) {
	q := MustParse("1Gi")
	q.Add(MustParse("512Mi"))
	if q.String() != "1536Mi" {
		t.Errorf("1Gi+512Mi = %s", q.String())
	}
	q.Sub(MustParse("1536Mi"))
	if !q.IsZero() {
		t.Errorf("1536Mi-1536Mi = %s", q.String())
	}
	var z Quantity
	z.Add(MustParse("100m"))
	if z.String() != "100m" || z.Format != DecimalSI {
		t.Errorf("0+100m = %s %s", z.String(), z.Format)
	}
	big := MustParse("9223372036854775807")
	big.Add(MustParse("1"))
	if big.String() != "9223372036854775808" {
		t.Errorf("max int64 + 1 = %s", big.String())
	}
	big.Neg()
	if big.String() != "-9223372036854775808" || big.Sign() != -1 {
		t.Errorf("negated: %s", big.String())
	}
	if got := NewMilliQuantity(1500, DecimalSI).String(); got != "1500m" {
		t.Errorf("NewMilliQuantity = %s", got)
	}
	if got := NewScaledQuantity(5, Mega).String(); got != "5M" {
		t.Errorf("NewScaledQuantity = %s", got)
	}
}

func TestQuantity_CopiesShareNothing(t *testing.T) {
	a := MustParse("12345678901234567890.5") // the decimal form
	b := a
	b.Add(MustParse("1"))
	b.Neg()
	if a.String() != "12345678901234567890500m" {
		t.Errorf("changing a copy changed the original: %s", a.String())
	}
}

func TestQuantity_JSON(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{`"1.5Gi"`, "1536Mi", ""},
		{`1.5`, "1500m", ""},
		{`1e3`, "1e3", ""},
		{`" 100m  "`, "100m", ""},
		{`null`, "0", ""},
		{`"abc"`, "", ErrFormatWrong.Error()},
		{`true`, "", ErrFormatWrong.Error()},
		{`"\u0031"`, "", ErrFormatWrong.Error()},
	}
	for _, tt := range tests {
		q := MustParse("7")
		err := q.UnmarshalJSON([]byte(tt.in))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("UnmarshalJSON(%s) error %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || q.String() != tt.want {
			t.Errorf("UnmarshalJSON(%s) = %s, %v; want %s", tt.in, q.String(), err, tt.want)
		}
	}
}

func TestQuantity_CBOR(t *testing.T) {
	b, _ := MustParse("1.5Gi").MarshalCBOR()
	if want := "\x461536Mi"; string(b) != want { // a 6-byte byte string
		t.Errorf("MarshalCBOR = %x, want %x", b, want)
	}
	tests := []struct {
		in      []byte
		want    string
		wantErr bool
	}{
		{[]byte("\x461536Mi"), "1536Mi", false},
		{[]byte("\x64100m"), "100m", false},                    // text string
		{[]byte("\x5f\x42\x31\x30\x41\x30\xff"), "100", false}, // indefinite byte string
		{[]byte{0xf6}, "0", false},
		{[]byte{0xf7}, "", true}, // undefined: kube recognizes no simple value 23
		{[]byte{0x01}, "", true},
		{[]byte{0x62, 0xff, 0xfe}, "", true}, // text that is not UTF-8
		{[]byte{0x45, '1'}, "", true},        // truncated
		{[]byte{0x41, '1', '1'}, "", true},   // trailing data
	}
	for _, tt := range tests {
		var q Quantity
		err := q.UnmarshalCBOR(tt.in)
		if (err != nil) != tt.wantErr || (err == nil && q.String() != tt.want) {
			t.Errorf("UnmarshalCBOR(%x) = %s, %v; want %s (error %v)", tt.in, q.String(), err, tt.want, tt.wantErr)
		}
	}
}

// TestParse_HugeInputsCostLittle holds the bounds: exponents of any size, and numbers
// up to MaxDigits digits, parse and print in bounded memory (apimachinery materializes
// 10^|exponent| for some of these).
func TestParse_HugeInputsCostLittle(t *testing.T) {
	inputs := []string{
		"1e-2147483648", "0.1e-2147483647", "123456789012345678901234567890e-2000000000",
		"1234567890123456789012345e2000000000", "1.5e2147483647",
		strings.Repeat("7", MaxDigits) + "e-1000", "0." + strings.Repeat("9", MaxDigits-1),
		"1" + strings.Repeat("0", MaxDigits-1) + "Ei",
	}
	for _, in := range inputs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		q, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%.30q): %v", in, err)
		}
		s := q.String()
		q.Cmp(MustParse("1n"))
		_ = q.Value()
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%.30q: %d bytes allocated, canonical %d bytes", in, alloc, len(s))
		if alloc > 1<<20 {
			t.Errorf("%.30q allocated %d bytes", in, alloc)
		}
	}
}

func TestQuantity_OpenAPI(t *testing.T) {
	var q Quantity
	if got := q.OpenAPISchemaType(); len(got) != 1 || got[0] != "string" || q.OpenAPISchemaFormat() != "quantity" {
		t.Errorf("OpenAPI type %v format %q", got, q.OpenAPISchemaFormat())
	}
}

func TestQuantity_AsApproximateFloat64(t *testing.T) {
	for in, want := range map[string]float64{"1.5": 1.5, "1Ki": 1024, "100m": 0.1, "-2e3": -2000, "12345678901234567890": 12345678901234567890} {
		if got := MustParse(in).AsApproximateFloat64(); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s: %v, want %v", in, got, want)
		}
	}
}

var benchInputs = []string{"100m", "250m", "1", "2", "500Mi", "1Gi", "128Mi", "0.5", "1.5Gi", "10G", "64Ki", "3e3"}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(benchInputs[i%len(benchInputs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkString(b *testing.B) {
	qs := make([]Quantity, len(benchInputs))
	for i, in := range benchInputs {
		qs[i] = MustParse(in)
		qs[i].s = "" // measure the canonical form, not the kept text
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = qs[i%len(qs)].String()
	}
}

func BenchmarkMarshalJSON(b *testing.B) {
	q := MustParse("1536Mi")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := q.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
