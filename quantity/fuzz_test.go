package quantity

import "testing"

// FuzzParse holds that Parse never panics, and that what it accepts writes a canonical
// form that Parse accepts again, through JSON and CBOR alike.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "1000m", "1.5Gi", "1e3", "-1.5n", "12345678901234567890", "8Ei", "1e-2147483648", "1.5e2147483647", "+.", "01Ki"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			return
		}
		text := q.String()
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) wrote %q, which does not parse: %v", s, text, err)
		}
		if again.Sign() != q.Sign() {
			t.Fatalf("Parse(%q) = %q changed sign on the way back", s, text)
		}
		_ = q.Cmp(again)
		_ = q.Value()
		_ = q.MilliValue()
		j, _ := q.MarshalJSON()
		var fromJSON Quantity
		if err := fromJSON.UnmarshalJSON(j); err != nil || fromJSON.String() != again.String() {
			t.Fatalf("JSON %s of %q reads back as %q, %v", j, s, fromJSON.String(), err)
		}
		c, _ := q.MarshalCBOR()
		var fromCBOR Quantity
		if err := fromCBOR.UnmarshalCBOR(c); err != nil || fromCBOR.String() != again.String() {
			t.Fatalf("CBOR %x of %q reads back as %q, %v", c, s, fromCBOR.String(), err)
		}
	})
}
