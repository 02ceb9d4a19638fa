package scheme

import (
	"testing"
)

func TestIntOrString_JSON(t *testing.T) {
	tests := []struct {
		in      string
		want    IntOrString
		wantErr string
	}{
		{`3`, FromInt32(3), ""},
		{`-2147483648`, FromInt32(-2147483648), ""},
		{`"25%"`, FromString("25%"), ""},
		{`"a\"b"`, FromString(`a"b`), ""},
		{`""`, FromString(""), ""},
		{`1.5`, IntOrString{}, "json: cannot unmarshal number 1.5 into Go value of type int32"},
		{`2147483648`, IntOrString{}, "json: cannot unmarshal number 2147483648 into Go value of type int32"},
		{`true`, IntOrString{}, "json: cannot unmarshal bool into Go value of type int32"},
		{`+1`, IntOrString{}, "invalid character '+' looking for beginning of value"},
	}
	for _, tt := range tests {
		var v IntOrString
		err := v.UnmarshalJSON([]byte(tt.in))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("UnmarshalJSON(%s) error %v, want %s", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || v != tt.want {
			t.Errorf("UnmarshalJSON(%s) = %+v, %v; want %+v", tt.in, v, err, tt.want)
			continue
		}
		if out, _ := v.MarshalJSON(); string(out) != tt.in {
			t.Errorf("MarshalJSON(%+v) = %s, want %s", v, out, tt.in)
		}
	}
	if out, _ := FromString("<a&b>").MarshalJSON(); string(out) != `"\u003ca\u0026b\u003e"` {
		t.Errorf("HTML characters are escaped as encoding/json escapes them: %s", out)
	}
	if _, err := (IntOrString{Type: 7}).MarshalJSON(); err == nil || err.Error() != "impossible IntOrString.Type" {
		t.Errorf("MarshalJSON of an unknown type: %v", err)
	}
}

func TestIntOrString_CBOR(t *testing.T) {
	tests := []struct {
		v    IntOrString
		cbor string
	}{
		{FromInt32(0), "\x00"},
		{FromInt32(24), "\x18\x18"},
		{FromInt32(-1), "\x20"},
		{FromInt32(-2147483648), "\x3a\x7f\xff\xff\xff"},
		{FromInt32(2147483647), "\x1a\x7f\xff\xff\xff"},
		{FromString("http"), "\x44http"},
	}
	for _, tt := range tests {
		b, err := tt.v.MarshalCBOR()
		if err != nil || string(b) != tt.cbor {
			t.Errorf("MarshalCBOR(%+v) = %x, %v; want %x", tt.v, b, err, tt.cbor)
		}
		var back IntOrString
		if err := back.UnmarshalCBOR(b); err != nil || back != tt.v {
			t.Errorf("UnmarshalCBOR(%x) = %+v, %v", b, back, err)
		}
	}
	for _, bad := range []string{"\x1a\x80\x00\x00\x00", "\x3a\x80\x00\x00\x00", "\xa0", "\x80", "\xf5", "\x18"} {
		var v IntOrString
		if err := v.UnmarshalCBOR([]byte(bad)); err == nil {
			t.Errorf("UnmarshalCBOR(%x) = %+v, want an error", bad, v)
		}
	}
}

func TestIntOrString_ScaledValue(t *testing.T) {
	tests := []struct {
		v       IntOrString
		total   int
		up      bool
		want    int
		wantErr string
	}{
		{FromInt32(3), 10, true, 3, ""},
		{FromString("25%"), 10, true, 3, ""},
		{FromString("25%"), 10, false, 2, ""},
		{FromString("100%"), 7, false, 7, ""},
		{FromString("25"), 10, true, 0, "invalid value for IntOrString: invalid type: string is not a percentage"},
		{FromString("abc%"), 10, true, 0, `invalid value for IntOrString: invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax`},
		{IntOrString{Type: 2}, 10, true, 0, "invalid value for IntOrString: invalid type: neither int nor percentage"},
	}
	for _, tt := range tests {
		got, err := tt.v.ScaledValue(tt.total, tt.up)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
			t.Errorf("%+v.ScaledValue(%d, %v) = %d, %v; want %d, %s", tt.v, tt.total, tt.up, got, err, tt.want, tt.wantErr)
		}
	}
	var nilValue *IntOrString
	if _, err := nilValue.ScaledValue(1, true); err == nil || err.Error() != "nil value for IntOrString" {
		t.Errorf("nil: %v", err)
	}
}

func TestIntOrString_ParseStringIntValue(t *testing.T) {
	if v := ParseIntOrString("8080"); v != FromInt32(8080) || v.String() != "8080" {
		t.Errorf("ParseIntOrString(8080) = %+v", v)
	}
	if v := ParseIntOrString("http"); v != FromString("http") || v.IntValue() != 0 {
		t.Errorf("ParseIntOrString(http) = %+v", v)
	}
	if v := ParseIntOrString("2147483648"); v.Type != String || v.IntValue() != 2147483648 {
		t.Errorf("ParseIntOrString(2147483648) = %+v", v)
	}
}

func TestRawExtension_JSON(t *testing.T) {
	var r RawExtension
	if out, _ := r.MarshalJSON(); string(out) != "null" {
		t.Errorf("empty RawExtension = %s", out)
	}
	for _, in := range []string{`{"a":[1,2]}`, `[1]`, `"s"`, `5`, `true`} {
		var r RawExtension
		if err := r.UnmarshalJSON([]byte(in)); err != nil {
			t.Fatal(err)
		}
		if out, err := r.MarshalJSON(); err != nil || string(out) != in {
			t.Errorf("RawExtension(%s) = %s, %v", in, out, err)
		}
	}
	r = RawExtension{Raw: []byte(`{"kept":1}`)}
	if err := r.UnmarshalJSON([]byte("null")); err != nil || string(r.Raw) != `{"kept":1}` {
		t.Errorf("null replaced Raw: %s %v", r.Raw, err)
	}
	if _, err := (RawExtension{Raw: []byte("\xd9\xd9\xf7\xa0")}).MarshalJSON(); err == nil {
		t.Error("bytes that are not JSON were written as JSON")
	}
}
