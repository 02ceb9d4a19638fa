package quantity

import "testing"

// The expectations are apimachinery v0.37.2's Quantity.RoundUp(-3) on the same input.
func TestRoundUp_RoundsAwayFromZeroToTheScale(t *testing.T) {
	tests := []struct {
		in    string
		scale Scale
		want  string
		exact bool
	}{
		{"1.0001", Milli, "1001m", false},
		{"100m", Milli, "100m", true},
		{"1n", Milli, "1m", false},
		{"1500u", Milli, "2m", false},
		{"1Gi", Milli, "1Gi", true},
		{"0", Milli, "0", true},
		{"-1.0001", Milli, "-1001m", false},
		{"123456789012345678901234567890.0001", Milli, "123456789012345678901234567890001m", false},
		{"5e-7", Milli, "1e-3", false},
		{"1e-4", Milli, "1e-3", false},
		{"-1n", Milli, "-1m", false},
		{"1.5Ki", Milli, "1536", true},
		{"9223372036854775807n", Milli, "9223372036855m", false},
	}
	for _, tt := range tests {
		q := MustParse(tt.in)
		exact := q.RoundUp(tt.scale)
		if got := q.String(); got != tt.want || exact != tt.exact {
			t.Errorf("%s.RoundUp(%d) = %s, %v; want %s, %v", tt.in, tt.scale, got, exact, tt.want, tt.exact)
		}
	}
}
