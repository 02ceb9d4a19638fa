package scheme

import (
	"bytes"
	"encoding/hex"
	"testing"
	"time"
)

func TestTime_MarshalCBORIsRFC3339ByteStringAndNullWhenZero(t *testing.T) {
	tests := []struct {
		name string
		in   Time
		want string // hex
	}{
		{"zero time is null", Time{}, "f6"},
		{"UTC second is a 20-byte byte string",
			NewTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)),
			"54" + hex.EncodeToString([]byte("2025-06-01T12:00:00Z"))},
		{"other zones are written in UTC and sub-seconds dropped",
			NewTime(time.Date(2025, 6, 1, 14, 0, 0, 999, time.FixedZone("CEST", 2*3600))),
			"54" + hex.EncodeToString([]byte("2025-06-01T12:00:00Z"))},
		{"a five-digit year still fits a one-byte head",
			NewTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)),
			"55" + hex.EncodeToString([]byte("10000-01-01T00:00:00Z"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.MarshalCBOR()
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != tt.want {
				t.Errorf("MarshalCBOR = %x, want %s", got, tt.want)
			}
		})
	}
}

func TestTime_UnmarshalCBORReadsStringsAndNull(t *testing.T) {
	text := []byte("2025-06-01T12:00:00Z")
	want := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		in      []byte
		want    time.Time
		wantErr bool
	}{
		{"null is the zero time", []byte{0xf6}, time.Time{}, false},
		{"undefined is the zero time", []byte{0xf7}, time.Time{}, false},
		{"byte string", append([]byte{0x54}, text...), want, false},
		{"text string", append([]byte{0x74}, text...), want, false},
		{"one-byte length head", append([]byte{0x58, 20}, text...), want, false},
		{"indefinite-length byte string in chunks",
			append(append(append(append([]byte{0x5f, 0x4a}, text[:10]...), 0x4a), text[10:]...), 0xff), want, false},
		{"offset time", append([]byte{0x59, 0, 25}, []byte("2025-06-01T14:00:00+02:00")...), want, false},
		{"integer is an error", []byte{0x01}, time.Time{}, true},
		{"empty input is an error", nil, time.Time{}, true},
		{"truncated string is an error", append([]byte{0x54}, text[:5]...), time.Time{}, true},
		{"trailing bytes are an error", append(append([]byte{0x54}, text...), 0x00), time.Time{}, true},
		{"mixed chunk types are an error", append(append([]byte{0x5f, 0x74}, text...), 0xff), time.Time{}, true},
		{"unterminated indefinite string is an error", append([]byte{0x5f, 0x54}, text...), time.Time{}, true},
		{"not RFC 3339 is an error", append([]byte{0x4a}, []byte("2025-06-01")...), time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewTime(time.Unix(1, 0)) // overwritten on success
			err := got.UnmarshalCBOR(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("UnmarshalCBOR(%x) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if err == nil && !got.Time.Equal(tt.want) {
				t.Errorf("UnmarshalCBOR(%x) = %v, want %v", tt.in, got.Time, tt.want)
			}
			if err == nil && !tt.want.IsZero() && got.Location() != time.Local {
				t.Errorf("decoded time is in %v, want the local zone like meta/v1", got.Location())
			}
		})
	}
}

func TestTime_CBORRoundTripKeepsTheSecond(t *testing.T) {
	for _, in := range []Time{{}, NewTime(time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC))} {
		b, err := in.MarshalCBOR()
		if err != nil {
			t.Fatal(err)
		}
		var out Time
		if err := out.UnmarshalCBOR(b); err != nil {
			t.Fatal(err)
		}
		if !out.Time.Equal(in.Time) {
			t.Errorf("round trip of %v gave %v", in.Time, out.Time)
		}
		again, _ := out.MarshalCBOR()
		if !bytes.Equal(again, b) {
			t.Errorf("re-encoding gave %x, want %x", again, b)
		}
	}
}
