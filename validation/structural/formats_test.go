package structural

import "testing"

// Each format's accepted and refused values, as k8s.io/kube-openapi's strfmt.Default
// registry (which apiextensions-apiserver validates custom resources with) judges them.
func TestFormatCheckers_JudgeAsKubeOpenAPIsRegistry(t *testing.T) {
	tests := []struct {
		format, value string
		valid         bool
	}{
		{"bsonobjectid", "507f1f77bcf86cd799439011", true},
		{"bsonobjectid", "507F1F77BCF86CD799439011", true},
		{"bsonobjectid", "507f1f77bcf86cd79943901", false},
		{"bsonobjectid", "507f1f77bcf86cd79943901g", false},
		{"uri", "https://example.com/a?b=c", true},
		{"uri", "/relative/path", true},
		{"uri", "mailto:someone@example.com", true},
		{"uri", "not a uri", false},
		{"uri", "", false},
		{"email", "someone@example.com", true},
		{"email", "Some One <someone@example.com>", true},
		{"email", "someone", false},
		{"hostname", "example.com", true},
		{"hostname", "-example.com", false},
		{"hostname", "a", true},
		{"mac", "01:23:45:67:89:ab", true},
		{"mac", "01-23-45-67-89-ab", true},
		{"mac", "0123.4567.89ab", true},
		{"mac", "01:23:45:67:89", false},
		{"uuid3", "a987fbc9-4bed-3078-af07-9141ba07c9f3", true},
		{"uuid3", "a987fbc9-4bed-4078-af07-9141ba07c9f3", false},
		{"uuid4", "57b73598-8764-4ad0-a76a-679bb6640eb1", true},
		{"uuid4", "57b73598-8764-4ad0-c76a-679bb6640eb1", false},
		{"uuid5", "987fbc97-4bed-5078-af07-9141ba07c9f3", true},
		{"uuid5", "987fbc97-4bed-4078-af07-9141ba07c9f3", false},
		{"isbn", "3836221195", true},
		{"isbn", "978-3-16-148410-0", true},
		{"isbn", "978 3 16 148410 0", true},
		{"isbn", "3836221196", false},
		{"isbn10", "3-8362-2119-5", true},
		{"isbn10", "080442957X", true},
		{"isbn10", "9783161484100", false},
		{"isbn13", "9783161484100", true},
		{"isbn13", "9783161484101", false},
		{"isbn13", "3836221195", false},
		{"creditcard", "4111111111111111", true},
		{"creditcard", "4111-1111-1111-1111", true},
		{"creditcard", "5500 0000 0000 0004", true},
		{"creditcard", "4111111111111112", false},
		{"creditcard", "1234", false},
		{"ssn", "123-45-6789", true},
		{"ssn", "123 45 6789", true},
		{"ssn", "123456789", false},
		{"hexcolor", "#fff", true},
		{"hexcolor", "#A0B1C2", true},
		{"hexcolor", "#ffff", false},
		{"rgbcolor", "rgb(255, 0, 10)", true},
		{"rgbcolor", "rgb(256,0,0)", false},
		{"password", "", true},
		{"date", "2024-02-29", true},
		{"date", "2023-02-29", false},
		{"date-time", "2024-01-01T10:00:00Z", true},
		{"date-time", "2024-01-01 10:00:00Z", false},
		{"duration", "1h30m", true},
		{"duration", "5 ms", true},
		{"k8s-long-name", "a.b-c.d", true},
		{"k8s-long-name", "a..b", false},
		{"k8s-short-name", "a-b", true},
		{"k8s-short-name", "a.b", false},
		// less obvious verdicts of the same registry
		{"uri", "//example.com/x", true},
		{"uri", "?q=1", false},
		{"uri", "http://exa mple.com", false},
		{"hostname", "example.com.", false},
		{"hostname", "ex_ample.com", false},
		{"isbn10", "012345678X", false}, // the check digit is 5
		{"isbn10", "123456789x", false},
		{"creditcard", "378282246310005", true},
		{"creditcard", "4111a1111b1111c1111", true}, // non-digits are dropped first
		{"creditcard", "2221000000000009", false},   // a range the pattern predates
		{"mac", "01:23:45:67:89:ab:cd:ef", true},    // EUI-64
		{"mac", "01234567890ab", false},
		{"duration", "1w2d", true},
		{"duration", "-1h", true},
	}
	for _, tt := range tests {
		check := formatCheckers[normalizeFormat(tt.format)]
		if check == nil {
			t.Errorf("format %s is not checked", tt.format)
			continue
		}
		if got := check(tt.value); got != tt.valid {
			t.Errorf("format %s, %q: valid=%v, want %v", tt.format, tt.value, got, tt.valid)
		}
	}
}
