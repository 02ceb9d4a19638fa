package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// genQuantityText generates quantity text of every shape ParseQuantity meets: signs,
// leading zeros, long integers and fractions (over and under int64 and nano
// precision), every suffix, exponents of both signs, and garbage.
func genQuantityText(rng *rand.Rand) string {
	var b strings.Builder
	digits := func(n int) {
		for range n {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	switch rng.IntN(20) {
	case 0: // garbage
		const alphabet = "0123456789.+-eEinumkKMGTP xyz%_/\t"
		for range rng.IntN(8) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	case 1:
		return pick(rng, "0", "-0", "+0", "00", "0.0", ".", "+.", "-.", "..", "1..", ".5", "5.", "e3", "1e", "1E", "1Ki1", "1k1", "1e3.5", "1 k", " 1", "1e+3", "1e-3", "1ki", "1KI", "0.000000001", "0.0000000001", "-0.0000000001", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "8Ei", "7Ei", "1024Ei", "0.5Ki", "1023", "1024", "-1024", "-1023Ki")
	}
	b.WriteString(pick(rng, "", "", "", "+", "-"))
	if rng.IntN(6) == 0 {
		b.WriteString(strings.Repeat("0", rng.IntN(4)))
	}
	switch rng.IntN(4) {
	case 0:
		digits(1 + rng.IntN(3))
	case 1:
		digits(1 + rng.IntN(9))
	case 2:
		digits(1 + rng.IntN(20))
	default:
		b.WriteString(pick(rng, "1", "5", "8", "10", "100", "1000", "1024", "512", "1023", "1025", "2048", "999", "125"))
	}
	if rng.IntN(3) == 0 {
		b.WriteByte('.')
		if rng.IntN(5) == 0 {
			b.WriteString(strings.Repeat("0", rng.IntN(12)))
		}
		digits(rng.IntN(14))
		if rng.IntN(4) == 0 {
			b.WriteString(strings.Repeat("0", rng.IntN(5)))
		}
	}
	switch rng.IntN(5) {
	case 0, 1:
		b.WriteString(pick(rng, "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"))
	case 2:
		b.WriteString(pick(rng, "e", "E"))
		b.WriteString(pick(rng, "", "-", "+"))
		if rng.IntN(8) == 0 {
			fmt.Fprint(&b, rng.IntN(400))
		} else {
			fmt.Fprint(&b, rng.IntN(40))
		}
	case 3:
		b.WriteString(pick(rng, "ki", "K", "mi", "Ei3", "kk", "e", "E", "i", "Pi-", "Ki+2", "n5", "ee3", "E+", "e-", "u2"))
	}
	return b.String()
}

// errText is an error's message, or "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestQuantityDiff_ParseStringMatchesApimachinery feeds the same generated text to
// apimachinery's ParseQuantity and to quantity.Parse: the same error or none, and the
// same canonical string, JSON, CBOR, sign, value, milli-value and comparisons.
func TestQuantityDiff_ParseStringMatchesApimachinery(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 32))
	const n = 20000
	var ok, failed, mismatches int
	var prevK resource.Quantity
	var prevQ quantity.Quantity
	for i := range n {
		text := genQuantityText(rng)
		kq, kerr := resource.ParseQuantity(text)
		q, err := quantity.Parse(text)
		report := func(what string, want, got any) {
			mismatches++
			if mismatches <= 40 {
				t.Errorf("%q: %s: apimachinery %v, quantity %v", text, what, want, got)
			}
		}
		if errText(kerr) != errText(err) {
			report("error", kerr, err)
			continue
		}
		// The same text as a JSON string (with spaces around it) and bare, as a JSON
		// number is.
		for _, in := range []string{`"` + text + `"`, `" ` + text + `	"`, text, `"` + text} {
			var kj resource.Quantity
			var j quantity.Quantity
			e1, e2 := kj.UnmarshalJSON([]byte(in)), j.UnmarshalJSON([]byte(in))
			if errText(e1) != errText(e2) || (e1 == nil && kj.String() != j.String()) {
				report("UnmarshalJSON "+in, fmt.Sprint(kj.String(), e1), fmt.Sprint(j.String(), e2))
			}
		}
		if kerr != nil {
			failed++
			continue
		}
		ok++
		if ks, s := kq.String(), q.String(); ks != s {
			report("String", ks, s)
			continue
		}
		if kq.Format != resource.Format(q.Format) {
			report("Format", kq.Format, q.Format)
		}
		kj, _ := kq.MarshalJSON()
		j, _ := q.MarshalJSON()
		if string(kj) != string(j) {
			report("MarshalJSON", string(kj), string(j))
		}
		kc, _ := kq.MarshalCBOR()
		c, _ := q.MarshalCBOR()
		if string(kc) != string(c) {
			report("MarshalCBOR", kc, c)
		}
		if kq.Sign() != q.Sign() || kq.IsZero() != q.IsZero() {
			report("Sign/IsZero", kq.Sign(), q.Sign())
		}
		// Value and MilliValue are meaningful only within int64; kube's result
		// beyond it is an artifact of its representation. So is its result for a
		// negative amount whose inf.Dec mantissa (at nano scale) overflows int64:
		// scaledValue reads that mantissa's Int64, which wraps ("-8Pi" has Value
		// -4611686017 in apimachinery v0.37.2).
		kd := kq.DeepCopy()
		kubeWraps := kq.Sign() < 0 && !kd.AsDec().UnscaledBig().IsInt64()
		if kq.CmpInt64(math.MaxInt64/1000) < 0 && kq.CmpInt64(math.MinInt64/1000) > 0 && !kubeWraps {
			if kq.Value() != q.Value() {
				report("Value", kq.Value(), q.Value())
			}
			if kq.MilliValue() != q.MilliValue() {
				report("MilliValue", kq.MilliValue(), q.MilliValue())
			}
		}
		for _, v := range []int64{0, 1, -1, 1024, 1 << 40, math.MaxInt64, math.MinInt64} {
			if kq.CmpInt64(v) != q.CmpInt64(v) {
				report(fmt.Sprintf("CmpInt64(%d)", v), kq.CmpInt64(v), q.CmpInt64(v))
			}
		}
		if kq.Cmp(prevK) != q.Cmp(prevQ) {
			report("Cmp(previous "+prevK.String()+")", kq.Cmp(prevK), q.Cmp(prevQ))
		}
		kf, f := kq.AsApproximateFloat64(), q.AsApproximateFloat64()
		// For a zero with a large exponent ("0e400") kube computes 0 × +Inf = NaN;
		// quantity says 0.
		kubeNaN := math.IsNaN(kf) && q.IsZero() && f == 0
		if !(kf == f || kubeNaN || math.Abs(kf-f) <= 1e-12*math.Abs(kf) || (math.IsInf(kf, 0) && math.IsInf(f, 0))) {
			report("AsApproximateFloat64", kf, f)
		}
		// Arithmetic with the previous quantity.
		ka, a := kq.DeepCopy(), q
		ka.Add(prevK)
		a.Add(prevQ)
		if ka.String() != a.String() {
			report("Add "+prevK.String(), ka.String(), a.String())
		}
		ks, s := kq.DeepCopy(), q
		ks.Sub(prevK)
		s.Sub(prevQ)
		if ks.String() != s.String() {
			report("Sub "+prevK.String(), ks.String(), s.String())
		}
		kn, nq := kq.DeepCopy(), q
		kn.Neg()
		nq.Neg()
		if kn.String() != nq.String() {
			report("Neg", kn.String(), nq.String())
		}
		// JSON back in.
		var kback resource.Quantity
		var back quantity.Quantity
		kberr := kback.UnmarshalJSON(kj)
		berr := back.UnmarshalJSON(j)
		if errText(kberr) != errText(berr) || kback.String() != back.String() {
			report("UnmarshalJSON", kback.String(), back.String())
		}
		prevK, prevQ = kq, q
		if i%2 == 0 {
			prevK, prevQ = resource.MustParse("1"), quantity.MustParse("1")
		}
	}
	t.Logf("%d inputs: %d parsed, %d rejected, %d mismatches", n, ok, failed, mismatches)
	if mismatches > 0 {
		t.Errorf("%d mismatches", mismatches)
	}
	if ok < n/3 || failed < n/20 {
		t.Errorf("generator skewed: %d parsed, %d rejected", ok, failed)
	}
}

// genIntOrStringJSON generates the JSON an IntOrString field meets.
func genIntOrStringJSON(rng *rand.Rand) string {
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprint(rng.Int32() - math.MaxInt32/2)
	case 1:
		return pick(rng, "0", "-0", "1.5", "1e3", "1E2", "-1.0", "2147483647", "2147483648", "-2147483648", "-2147483649", "99999999999999999999", "null", "true", "false", "{}", "[]", "[1]", `{"a":1}`, "01", "+1", "-01", "1.", ".5", "- 1", "0x10")
	case 2:
		return fmt.Sprintf(`"%d%%"`, rng.IntN(300)-50)
	case 3:
		return pick(rng, `""`, `"http"`, `"8080"`, `"25%"`, `"%"`, `"abc%"`, `"1.5%"`, `"25 %"`, `" 25%"`, `"%25"`, `"25%%"`, `"\u0032\u0035%"`, `"a\"b"`, `"\n"`, `"é"`, `"<&>"`, `"99999999999999999999%"`, `"-0%"`, `"+5%"`)
	case 4:
		return fmt.Sprintf(`"%d"`, rng.IntN(100000))
	}
	return fmt.Sprint(rng.IntN(1000))
}

// TestIntOrStringDiff_JSONAndScaledValueMatchIntstr feeds the same JSON to intstr
// and scheme.IntOrString: the same value or error, the same JSON and CBOR back, the
// same String and IntValue, and the same GetScaledValueFromIntOrPercent results and
// errors for totals and both roundings.
func TestIntOrStringDiff_JSONAndScaledValueMatchIntstr(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 33))
	const n = 5000
	mismatches, decoded := 0, 0
	report := func(in, what string, want, got any) {
		mismatches++
		if mismatches <= 40 {
			t.Errorf("%s: %s: intstr %v, scheme %v", in, what, want, got)
		}
	}
	for range n {
		in := genIntOrStringJSON(rng)
		var k intstr.IntOrString
		var v scheme.IntOrString
		kerr := k.UnmarshalJSON([]byte(in))
		err := v.UnmarshalJSON([]byte(in))
		if errText(kerr) != errText(err) {
			report(in, "UnmarshalJSON error", kerr, err)
			continue
		}
		// Through encoding/json as a field, where the text is validated first.
		var kf struct{ F intstr.IntOrString }
		var f struct{ F scheme.IntOrString }
		kferr := json.Unmarshal([]byte(`{"F":`+in+`}`), &kf)
		ferr := json.Unmarshal([]byte(`{"F":`+in+`}`), &f)
		if errText(kferr) != errText(ferr) {
			report(in, "json.Unmarshal error", kferr, ferr)
		}
		if kerr != nil {
			continue
		}
		decoded++
		if int(k.Type) != int(v.Type) || k.IntVal != v.IntVal || k.StrVal != v.StrVal {
			report(in, "value", k, v)
			continue
		}
		kj, _ := k.MarshalJSON()
		j, _ := v.MarshalJSON()
		if string(kj) != string(j) {
			report(in, "MarshalJSON", string(kj), string(j))
		}
		kc, _ := k.MarshalCBOR()
		c, _ := v.MarshalCBOR()
		if string(kc) != string(c) {
			report(in, "MarshalCBOR", kc, c)
		}
		var kcb intstr.IntOrString
		var cb scheme.IntOrString
		if e1, e2 := kcb.UnmarshalCBOR(kc), cb.UnmarshalCBOR(c); errText(e1) != errText(e2) || int(kcb.Type) != int(cb.Type) || kcb.IntVal != cb.IntVal || kcb.StrVal != cb.StrVal {
			report(in, "UnmarshalCBOR", kcb, cb)
		}
		if k.String() != v.String() || k.IntValue() != v.IntValue() {
			report(in, "String/IntValue", k.String(), v.String())
		}
		for _, total := range []int{0, 1, 3, 10, 7, 100, 999, 1 << 20} {
			for _, up := range []bool{false, true} {
				kv, kerr := intstr.GetScaledValueFromIntOrPercent(&k, total, up)
				sv, serr := v.ScaledValue(total, up)
				if kv != sv || errText(kerr) != errText(serr) {
					report(in, fmt.Sprintf("ScaledValue(%d, %v)", total, up), fmt.Sprint(kv, kerr), fmt.Sprint(sv, serr))
				}
			}
		}
	}
	var knil *intstr.IntOrString
	var snil *scheme.IntOrString
	_, kerr := intstr.GetScaledValueFromIntOrPercent(knil, 10, true)
	_, serr := snil.ScaledValue(10, true)
	if errText(kerr) != errText(serr) {
		report("nil", "ScaledValue", kerr, serr)
	}
	t.Logf("%d inputs: %d decoded, %d mismatches", n, decoded, mismatches)
}

// quantityBenchInputs are the amounts a Pod's resources usually carry, and a few
// that take the slow path.
var quantityBenchInputs = []string{"100m", "250m", "1", "2", "500Mi", "1Gi", "128Mi", "0.5", "1.5Gi", "10G", "64Ki", "3e3", "123456789012345678901", "0.0000000001"}

// BenchmarkQuantityParseString parses each input and writes its canonical form.
func BenchmarkQuantityParseString(b *testing.B) {
	b.Run("apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			q, err := resource.ParseQuantity(quantityBenchInputs[i%len(quantityBenchInputs)])
			if err != nil {
				b.Fatal(err)
			}
			_ = q.String()
		}
	})
	b.Run("apikit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			q, err := quantity.Parse(quantityBenchInputs[i%len(quantityBenchInputs)])
			if err != nil {
				b.Fatal(err)
			}
			_ = q.String()
		}
	})
}

// BenchmarkQuantityJSONRoundTrip decodes a resource list from JSON and encodes it
// again, as a Pod's resources go through the API.
func BenchmarkQuantityJSONRoundTrip(b *testing.B) {
	doc := []byte(`{"cpu":"500m","memory":"1Gi","ephemeral-storage":"10G","nvidia.com/gpu":"1","hugepages-2Mi":"512Mi","pods":"110"}`)
	b.Run("apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var m map[string]resource.Quantity
			if err := json.Unmarshal(doc, &m); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apikit", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var m map[string]quantity.Quantity
			if err := json.Unmarshal(doc, &m); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
