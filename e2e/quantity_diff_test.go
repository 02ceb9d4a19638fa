package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cbordirect "k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdtyped "sigs.k8s.io/structured-merge-diff/v6/typed"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/codec"
	apikitcbor "github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/patch"
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

// valueHolder holds the three value types every way a built-in type holds them.
type valueHolder struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Q                 quantity.Quantity            `json:"q"`
	QP                *quantity.Quantity           `json:"qp,omitempty"`
	QS                []quantity.Quantity          `json:"qs,omitempty"`
	QM                map[string]quantity.Quantity `json:"qm,omitempty"`
	I                 scheme.IntOrString           `json:"i"`
	IP                *scheme.IntOrString          `json:"ip,omitempty"`
	IS                []scheme.IntOrString         `json:"is,omitempty"`
	R                 scheme.RawExtension          `json:"r"`
	RP                *scheme.RawExtension         `json:"rp,omitempty"`
	RS                []scheme.RawExtension        `json:"rs,omitempty"`
}

// kubeValueHolder is valueHolder in apimachinery's types.
type kubeValueHolder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Q                 resource.Quantity            `json:"q"`
	QP                *resource.Quantity           `json:"qp,omitempty"`
	QS                []resource.Quantity          `json:"qs,omitempty"`
	QM                map[string]resource.Quantity `json:"qm,omitempty"`
	I                 intstr.IntOrString           `json:"i"`
	IP                *intstr.IntOrString          `json:"ip,omitempty"`
	IS                []intstr.IntOrString         `json:"is,omitempty"`
	R                 runtime.RawExtension         `json:"r"`
	RP                *runtime.RawExtension        `json:"rp,omitempty"`
	RS                []runtime.RawExtension       `json:"rs,omitempty"`
}

var valueHolderGVK = scheme.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ValueHolder"}

func valueHolderScheme() *scheme.Scheme {
	s := scheme.New()
	s.AddKnownTypeWithName(valueHolderGVK, &valueHolder{})
	if err := s.AddResource(scheme.Resource{Group: valueHolderGVK.Group, Kind: valueHolderGVK.Kind, Plural: "valueholders"}); err != nil {
		panic(err)
	}
	return s
}

// valueHolderDocs are documents of both holders, with the values kube canonicalizes
// ("1.5Gi" is "1536Mi", "1000m" is "1"), the int and string halves of IntOrString,
// and raw JSON of every kind.
var valueHolderDocs = []string{
	`{"apiVersion":"example.com/v1","kind":"ValueHolder","metadata":{"name":"all"},` +
		`"q":"1.5Gi","qp":"100m","qs":["1000m","0.5","1e3",2,"12345678901234567890123"],` +
		`"qm":{"cpu":"250m","memory":"1024Mi","tiny":"0.0000000001","neg":"-1.5"},` +
		`"i":3,"ip":"25%","is":[8080,"http",-1],` +
		`"r":{"a":[1,2.5,"x",true,null],"b":{"c":{}}},"rp":[1,{"d":"e"}],"rs":[{"k":"v"},5,"s",null]}`,
	`{"apiVersion":"example.com/v1","kind":"ValueHolder","metadata":{"name":"zero"},"q":"0","i":0,"r":null}`,
	`{"apiVersion":"example.com/v1","kind":"ValueHolder","metadata":{"name":"strings"},"q":"+1","i":"","r":"text","qm":{"a":"01Ki"}}`,
}

// TestValueTypes_EveryPathMatchesApimachinery decodes the same documents into
// valueHolder and kubeValueHolder and checks that every path a typed object takes in
// apikit gives what apimachinery gives for its types: JSON, YAML and CBOR bytes (and
// back), typed to unstructured and back, and a deep copy that shares nothing.
func TestValueTypes_EveryPathMatchesApimachinery(t *testing.T) {
	s := valueHolderScheme()
	for _, doc := range valueHolderDocs {
		var h valueHolder
		if _, err := codec.Unmarshal([]byte(doc), &h); err != nil {
			t.Fatalf("codec.Unmarshal: %v", err)
		}
		var kh kubeValueHolder
		if err := json.Unmarshal([]byte(doc), &kh); err != nil {
			t.Fatalf("json.Unmarshal into apimachinery's types: %v", err)
		}
		name := kh.Name

		// JSON.
		kj, err := json.Marshal(&kh)
		if err != nil {
			t.Fatal(err)
		}
		j, err := codec.Marshal(&h)
		if err != nil {
			t.Fatalf("%s: codec.Marshal: %v", name, err)
		}
		if string(j) != string(kj) {
			t.Errorf("%s: JSON\n apimachinery %s\n apikit       %s", name, kj, j)
		}
		var again valueHolder
		if _, err := codec.Unmarshal(j, &again); err != nil {
			t.Errorf("%s: JSON back: %v", name, err)
		} else if j2, _ := codec.Marshal(&again); string(j2) != string(j) {
			t.Errorf("%s: JSON round trip\n first  %s\n second %s", name, j, j2)
		}

		// YAML.
		ky, err := sigsyaml.Marshal(&kh)
		if err != nil {
			t.Fatal(err)
		}
		y, err := codec.JSONToYAML(j)
		if err != nil {
			t.Fatalf("%s: JSONToYAML: %v", name, err)
		}
		if string(y) != string(ky) {
			t.Errorf("%s: YAML\n apimachinery %s\n apikit       %s", name, ky, y)
		}
		var fromYAML valueHolder
		if _, err := codec.UnmarshalYAML(y, &fromYAML); err != nil {
			t.Errorf("%s: YAML back: %v", name, err)
		} else if jy, _ := codec.Marshal(&fromYAML); string(jy) != string(j) {
			t.Errorf("%s: YAML round trip\n want %s\n got  %s", name, j, jy)
		}

		// CBOR.
		kc, err := cbordirect.Marshal(&kh)
		if err != nil {
			t.Fatal(err)
		}
		c, err := apikitcbor.Marshal(&h)
		if err != nil {
			t.Fatalf("%s: cbor.Marshal: %v", name, err)
		}
		// codec/cbor.Marshal starts with the self-described CBOR tag kube's serializer
		// writes; direct.Marshal (a value's CBOR) does not.
		if string(c) != "\xd9\xd9\xf7"+string(kc) {
			t.Errorf("%s: CBOR\n apimachinery %x\n apikit       %x", name, kc, c)
		}
		var fromCBOR valueHolder
		if _, err := apikitcbor.Unmarshal(kc, &fromCBOR); err != nil {
			t.Errorf("%s: CBOR back: %v", name, err)
		} else if jc, _ := codec.Marshal(&fromCBOR); string(jc) != string(j) {
			t.Errorf("%s: CBOR round trip\n want %s\n got  %s", name, j, jc)
		}

		// Typed to unstructured and back.
		km, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&kh)
		if err != nil {
			t.Fatal(err)
		}
		m, err := conversion.ObjectMap(&h)
		if err != nil {
			t.Fatalf("%s: ObjectMap: %v", name, err)
		}
		if diff := gocmp.Diff(km, m); diff != "" {
			t.Errorf("%s: ObjectMap differs from ToUnstructured (-apimachinery +apikit):\n%s", name, diff)
		}
		back, err := conversion.ObjectFromMap(s, valueHolderGVK, m)
		if err != nil {
			t.Fatalf("%s: ObjectFromMap: %v", name, err)
		}
		if jb, _ := codec.Marshal(back); string(jb) != string(j) {
			t.Errorf("%s: unstructured round trip\n want %s\n got  %s", name, j, jb)
		}

		// Deep copy: equal, and sharing nothing.
		cp := scheme.DeepCopy(&h)
		if jcp, _ := codec.Marshal(cp); string(jcp) != string(j) {
			t.Errorf("%s: DeepCopy\n want %s\n got  %s", name, j, jcp)
		}
		cp.Q.Add(quantity.MustParse("1"))
		if cp.QP != nil {
			cp.QP.Neg()
		}
		for i := range cp.QS {
			cp.QS[i].Sub(quantity.MustParse("1k"))
		}
		for k := range cp.QM {
			cp.QM[k] = quantity.MustParse("7")
		}
		cp.I.IntVal++
		for i := range cp.IS {
			cp.IS[i].StrVal += "x"
		}
		for i := range cp.R.Raw {
			cp.R.Raw[i] = ' '
		}
		if cp.RP != nil && len(cp.RP.Raw) > 0 {
			cp.RP.Raw[0] = ' '
		}
		if jo, _ := codec.Marshal(&h); string(jo) != string(j) {
			t.Errorf("%s: changing the deep copy changed the original\n want %s\n got  %s", name, j, jo)
		}
	}
}

// kubeValueHolderSMD is the structured-merge-diff schema kube-apiserver derives for
// kubeValueHolder: kube-openapi's schemaconv makes Quantity and IntOrString untyped
// scalars and RawExtension __untyped_atomic_; lists without a list type are atomic.
const kubeValueHolderSMD = `types:
- name: holder
  map:
    fields:
    - name: apiVersion
      type:
        scalar: string
    - name: kind
      type:
        scalar: string
    - name: metadata
      type:
        namedType: __untyped_deduced_
    - name: q
      type:
        namedType: io.k8s.apimachinery.pkg.api.resource.Quantity
    - name: qp
      type:
        namedType: io.k8s.apimachinery.pkg.api.resource.Quantity
    - name: qs
      type:
        list:
          elementType:
            namedType: io.k8s.apimachinery.pkg.api.resource.Quantity
          elementRelationship: atomic
    - name: qm
      type:
        map:
          elementType:
            namedType: io.k8s.apimachinery.pkg.api.resource.Quantity
    - name: i
      type:
        namedType: io.k8s.apimachinery.pkg.util.intstr.IntOrString
    - name: ip
      type:
        namedType: io.k8s.apimachinery.pkg.util.intstr.IntOrString
    - name: is
      type:
        list:
          elementType:
            namedType: io.k8s.apimachinery.pkg.util.intstr.IntOrString
          elementRelationship: atomic
    - name: r
      type:
        namedType: io.k8s.apimachinery.pkg.runtime.RawExtension
    - name: rp
      type:
        namedType: io.k8s.apimachinery.pkg.runtime.RawExtension
    - name: rs
      type:
        list:
          elementType:
            namedType: io.k8s.apimachinery.pkg.runtime.RawExtension
          elementRelationship: atomic
- name: io.k8s.apimachinery.pkg.api.resource.Quantity
  scalar: untyped
- name: io.k8s.apimachinery.pkg.util.intstr.IntOrString
  scalar: untyped
- name: io.k8s.apimachinery.pkg.runtime.RawExtension
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
- name: __untyped_deduced_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_deduced_
    elementRelationship: separable
`

// TestValueTypes_ServerSideApplyOwnsThemAsKubeDoes applies configurations holding the
// value types in every shape a client sends them (a quantity as a number, an
// int-or-string either way, raw extensions that are lists, maps and scalars) and
// checks that apikit's field manager accepts them and records the fields kube's
// schema records: a Quantity map per key, a RawExtension as one field.
func TestValueTypes_ServerSideApplyOwnsThemAsKubeDoes(t *testing.T) {
	s := valueHolderScheme()
	fm, err := patch.NewFieldManager(s, valueHolderGVK, patch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parser, err := smdtyped.NewParser(kubeValueHolderSMD)
	if err != nil {
		t.Fatal(err)
	}
	configs := []string{
		`{"q":1,"qp":"100m","qs":["1",2.5],"qm":{"cpu":2,"memory":"1Gi"},"i":"25%","ip":3,"is":[1,"a"],"r":[1,{"a":2}],"rp":{"x":{"y":1}},"rs":[{"k":"v"},3]}`,
		`{"q":"500m","i":8080,"r":{"a":{"b":{"c":1}}},"qm":{"gpu":"1"}}`,
		`{"r":"scalar","rp":null,"qm":{}}`,
	}
	strip := fieldpath.NewSet(fieldpath.MakePathOrDie("apiVersion"), fieldpath.MakePathOrDie("kind"), fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("metadata", "name"))
	for _, c := range configs {
		var config map[string]any
		if err := json.Unmarshal([]byte(`{"apiVersion":"example.com/v1","kind":"ValueHolder","metadata":{"name":"h"},`+c[1:]), &config); err != nil {
			t.Fatal(err)
		}
		kv, err := parser.Type("holder").FromUnstructured(config)
		if err != nil {
			t.Fatalf("%s: kube's schema rejects the configuration: %v", c, err)
		}
		kset, err := kv.ToFieldSet()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := kset.Difference(strip).ToJSON()

		_, entries, err := fm.Apply(nil, config, "test", false)
		if err != nil {
			t.Fatalf("%s: Apply: %v", c, err)
		}
		if len(entries) != 1 || entries[0].FieldsV1 == nil {
			t.Fatalf("%s: managed fields %+v", c, entries)
		}
		got := fieldpath.NewSet()
		if err := got.FromJSON(bytes.NewReader(entries[0].FieldsV1.Raw)); err != nil {
			t.Fatal(err)
		}
		gotJSON, _ := got.Difference(strip).ToJSON()
		if string(gotJSON) != string(want) {
			t.Errorf("%s: managed fields\n kube's schema %s\n apikit        %s", c, want, gotJSON)
		}
	}
}

// TestValueTypes_StrategicMergeTreatsThemAsKubeDoes patches documents holding the
// value types with strategic merge patches and compares the result with
// apimachinery's strategicpatch over kubeValueHolder: quantities and int-or-strings
// are replaced as scalars, a map of quantities merges per key.
func TestValueTypes_StrategicMergeTreatsThemAsKubeDoes(t *testing.T) {
	s := valueHolderScheme()
	schema, err := patch.SchemaFor(s, valueHolderGVK)
	if err != nil {
		t.Fatal(err)
	}
	orig := valueHolderDocs[0]
	patches := []string{
		`{"q":"2","qp":"3","qs":["4"],"i":"50%","ip":7,"is":[7]}`,
		`{"qm":{"cpu":"3","memory":null,"new":"1Ki"}}`,
		`{"q":null,"i":null,"qm":null}`,
		`{"r":{"b":1},"rp":{"d":null},"rs":[1]}`,
		`{"r":[1],"rp":"s"}`,
	}
	for _, p := range patches {
		kout, kerr := strategicpatch.StrategicMergePatch([]byte(orig), []byte(p), kubeValueHolder{})
		out, err := patch.StrategicMerge([]byte(orig), []byte(p), schema)
		if (kerr == nil) != (err == nil) {
			t.Errorf("%s: apimachinery error %v, apikit error %v", p, kerr, err)
			continue
		}
		if kerr != nil {
			continue
		}
		var km, m any
		if err := json.Unmarshal(kout, &km); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(km, m); diff != "" {
			t.Errorf("%s: result differs (-apimachinery +apikit):\n%s", p, diff)
		}
	}
}

// cborItems are CBOR data items a Quantity or IntOrString field can meet.
var cborItems = []string{
	"\x00", "\x17", "\x18\x18", "\x19\x01\x00", "\x1a\x7f\xff\xff\xff", "\x1a\x80\x00\x00\x00", "\x1b\x00\x00\x00\x01\x00\x00\x00\x00",
	"\x20", "\x3a\x7f\xff\xff\xff", "\x3a\x80\x00\x00\x00", "\x38\x63",
	"\x44100m", "\x64100m", "\x43abc", "\x63abc", "\x40", "\x60", "\x62\xff\xfe", "\x42\xff\xfe",
	"\x5f\x42\x31\x30\x41\x30\xff", "\x7f\x62\x31\x30\x61\x30\xff", "\x5f\x42\x31\x30\x61\x30\xff",
	"\xf6", "\xf7", "\xf4", "\xf5", "\xf9\x3c\x00", "\xfb\x3f\xf8\x00\x00\x00\x00\x00\x00",
	"\x80", "\xa0", "\x45\x31", "\x18", "\x44\x32\x35\x25\x25", "\x4325%", "\x641.5G",
}

// TestValueTypesDiff_CBORDecodeMatchesApimachinery decodes the same CBOR items with
// apimachinery's UnmarshalCBOR methods and apikit's: the same value, an error for the
// same items.
func TestValueTypesDiff_CBORDecodeMatchesApimachinery(t *testing.T) {
	for _, item := range cborItems {
		var kq resource.Quantity
		var q quantity.Quantity
		kerr, err := kq.UnmarshalCBOR([]byte(item)), q.UnmarshalCBOR([]byte(item))
		if (kerr == nil) != (err == nil) || (kerr == nil && kq.String() != q.String()) {
			t.Errorf("Quantity %x: apimachinery %s %v, apikit %s %v", item, kq.String(), kerr, q.String(), err)
		}
		var ki intstr.IntOrString
		var i scheme.IntOrString
		kerr, err = ki.UnmarshalCBOR([]byte(item)), i.UnmarshalCBOR([]byte(item))
		if (kerr == nil) != (err == nil) || (kerr == nil && (int(ki.Type) != int(i.Type) || ki.IntVal != i.IntVal || ki.StrVal != i.StrVal)) {
			t.Errorf("IntOrString %x: apimachinery %+v %v, apikit %+v %v", item, ki, kerr, i, err)
		}
	}
}
