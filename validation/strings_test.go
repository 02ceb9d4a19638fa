package validation

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Kubernetes' messages, verified against k8s.io/apimachinery v0.37.2.
const (
	msgLabel      = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	msgSubdomain  = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	msg1035       = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
	msgNamePart   = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	msgLabelKey   = "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
	msgLabelValue = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

func TestStringRules_ReturnKubernetesMessages(t *testing.T) {
	long64 := strings.Repeat("a", 64)
	tests := []struct {
		name  string
		rule  func(string) []string
		value string
		want  []string
	}{
		{"label accepts lowercase and dashes", IsDNS1123Label, "my-name-1", nil},
		{"label accepts leading digit", IsDNS1123Label, "123-abc", nil},
		{"label accepts 63 chars", IsDNS1123Label, long64[:63], nil},
		{"label rejects empty", IsDNS1123Label, "", []string{msgLabel}},
		{"label rejects uppercase and underscore", IsDNS1123Label, "A_b", []string{msgLabel}},
		{"label rejects trailing dash", IsDNS1123Label, "a-", []string{msgLabel}},
		{"label says dots when it is a subdomain", IsDNS1123Label, "a.b", []string{"must not contain dots"}},
		{"label rejects 64 chars in characters", IsDNS1123Label, long64, []string{"must be no more than 63 characters"}},
		{"subdomain accepts dotted", IsDNS1123Subdomain, "toys.example.com", nil},
		{"subdomain accepts 253 chars", IsDNS1123Subdomain, strings.Repeat("a", 253), nil},
		{"subdomain rejects underscore", IsDNS1123Subdomain, "A_b", []string{msgSubdomain}},
		{"subdomain rejects empty label", IsDNS1123Subdomain, "a..b", []string{msgSubdomain}},
		{"subdomain rejects leading dot", IsDNS1123Subdomain, ".a", []string{msgSubdomain}},
		{"subdomain rejects 254 chars in characters", IsDNS1123Subdomain, strings.Repeat("a", 254), []string{"must be no more than 253 characters"}},
		{"subdomain reports length and pattern", IsDNS1123Subdomain, strings.Repeat("A", 254), []string{"must be no more than 253 characters", msgSubdomain}},
		{"1035 accepts letter start", IsDNS1035Label, "abc-123", nil},
		{"1035 rejects digit start", IsDNS1035Label, "1abc", []string{msg1035}},
		{"1035 rejects dots", IsDNS1035Label, "a.b", []string{msg1035}},
		{"1035 rejects 64 chars", IsDNS1035Label, long64, []string{"must be no more than 63 characters"}},
		{"qualified name plain", IsQualifiedName, "MyName", nil},
		{"qualified name with prefix", IsQualifiedName, "example.com/My_Name.v1", nil},
		{"qualified name two slashes", IsQualifiedName, "a/b/c", []string{msgLabelKey}},
		{"qualified name empty prefix", IsQualifiedName, "/foo", []string{"prefix part must be non-empty"}},
		{"qualified name uppercase prefix", IsQualifiedName, "Example.com/foo", []string{"prefix part " + msgSubdomain}},
		{"qualified name long prefix in bytes", IsQualifiedName, strings.Repeat("b", 254) + "/x", []string{"prefix part must be no more than 253 bytes"}},
		{"qualified name empty name", IsQualifiedName, "example.com/", []string{"name part must be non-empty", msgNamePart}},
		{"qualified name empty", IsQualifiedName, "", []string{"name part must be non-empty", msgNamePart}},
		{"qualified name leading dash", IsQualifiedName, "-bad", []string{msgNamePart}},
		{"qualified name 64 chars in bytes", IsQualifiedName, long64, []string{"name part must be no more than 63 bytes"}},
		{"label value empty is valid", IsValidLabelValue, "", nil},
		{"label value with dots and underscores", IsValidLabelValue, "v1.2_3-rc", nil},
		{"label value with space", IsValidLabelValue, "bad value!", []string{msgLabelValue}},
		{"label value 64 chars in bytes", IsValidLabelValue, long64, []string{"must be no more than 63 bytes"}},
		{"path segment plain", IsPathSegmentName, "anything:Goes_here", nil},
		{"path segment dot", IsPathSegmentName, ".", []string{"may not be '.'"}},
		{"path segment dot dot", IsPathSegmentName, "..", []string{"may not be '..'"}},
		{"path segment slash and percent", IsPathSegmentName, "a/b%c", []string{"may not contain '/'", "may not contain '%'"}},
		{"path segment prefix allows dots", IsPathSegmentPrefix, "..", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.rule(tt.value)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestNameFuncs_AllowTrailingDashOnlyForPrefixes(t *testing.T) {
	tests := []struct {
		name   string
		fn     func(string, bool) []string
		value  string
		prefix bool
		valid  bool
	}{
		{"subdomain prefix with dash", NameIsDNSSubdomain, "widget-", true, true},
		{"subdomain name with dash", NameIsDNSSubdomain, "widget-", false, false},
		{"subdomain single dash prefix", NameIsDNSSubdomain, "-", true, false},
		{"subdomain bad prefix", NameIsDNSSubdomain, "Widget-", true, false},
		{"label prefix with dash", NameIsDNSLabel, "ns-", true, true},
		{"label prefix with dot", NameIsDNSLabel, "a.b-", true, false},
		{"1035 prefix with dash", NameIsDNS1035Label, "svc-", true, true},
		{"1035 prefix digit start", NameIsDNS1035Label, "1svc-", true, false},
		{"path segment prefix dots", NameIsPathSegment, "..", true, true},
		{"path segment name dots", NameIsPathSegment, "..", false, false},
		// Kubernetes replaces the last two characters by "a", so a 254-byte prefix passes.
		{"subdomain prefix masks two characters", NameIsDNSSubdomain, strings.Repeat("a", 253) + "-", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.fn(tt.value, tt.prefix)
			if (len(got) == 0) != tt.valid {
				t.Errorf("%q (prefix %v): errors %q, want valid=%v", tt.value, tt.prefix, got, tt.valid)
			}
		})
	}
}

// The hand-written scanners must accept exactly what Kubernetes' regular expressions accept.
var matchers = []struct {
	name string
	fn   func(string) bool
	re   *regexp.Regexp
}{
	{"dns1123Label", matchDNS1123Label, regexp.MustCompile("^" + dns1123LabelFmt + "$")},
	{"dns1123Subdomain", matchDNS1123Subdomain, regexp.MustCompile("^" + dns1123SubdomainFmt + "$")},
	{"dns1035Label", matchDNS1035Label, regexp.MustCompile("^" + dns1035LabelFmt + "$")},
	{"qualifiedName", matchQualifiedName, regexp.MustCompile("^" + qualifiedNameFmt + "$")},
	{"labelValue", func(s string) bool { return s == "" || matchQualifiedName(s) }, regexp.MustCompile("^" + labelValueFmt + "$")},
}

func TestMatchers_AgreeWithKubernetesRegexpsOnAllShortStrings(t *testing.T) {
	alphabet := []string{"a", "Z", "0", "-", ".", "_", "/", " ", "é"}
	var all []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		all = append(all, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 4)
	for _, m := range matchers {
		for _, s := range all {
			if got, want := m.fn(s), m.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, regexp says %v", m.name, s, got, want)
			}
		}
	}
}

func FuzzMatchers_AgreeWithKubernetesRegexps(f *testing.F) {
	for _, s := range []string{"", "a", "a.b", "a-", "A_b", "example.com/x", "a..b", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range matchers {
			if got, want := m.fn(s), m.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, regexp says %v", m.name, s, got, want)
			}
		}
	})
}
