package scheme

import (
	"encoding/json"
	"testing"
	"time"
)

func TestMicroTime_JSONKeepsMicrosecondsLikeMetaV1(t *testing.T) {
	tests := []struct {
		name string
		in   MicroTime
		want string
	}{
		{"zero is null", MicroTime{}, `null`},
		{"six fractional digits in UTC", NewMicroTime(time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))), `"2024-01-02T02:04:05.123456Z"`},
		{"whole seconds still have six digits", NewMicroTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)), `"2024-01-02T03:04:05.000000Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tt.want)
			}
			var back MicroTime
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !back.Equal(&MicroTime{tt.in.Truncate(time.Microsecond)}) {
				t.Errorf("round trip = %v, want %v", back, tt.in)
			}
		})
	}
}

func TestMicroTime_UnmarshalAcceptsSecondPrecision(t *testing.T) {
	var m MicroTime
	if err := json.Unmarshal([]byte(`"2024-01-02T03:04:05Z"`), &m); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC); !m.Time.Equal(want) {
		t.Errorf("got %v, want %v", m.Time, want)
	}
}

func TestMicroTime_CBORRoundTrip(t *testing.T) {
	in := NewMicroTime(time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC))
	b, err := in.MarshalCBOR()
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != 0x58 || int(b[1]) != len(b)-2 || string(b[2:]) != "2024-01-02T03:04:05.123456Z" {
		t.Fatalf("CBOR = %x", b)
	}
	var back MicroTime
	if err := back.UnmarshalCBOR(b); err != nil || !back.Time.Equal(in.Time) {
		t.Fatalf("UnmarshalCBOR = %v, %v", back, err)
	}
}
