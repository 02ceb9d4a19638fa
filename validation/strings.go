package validation

import (
	"strconv"
	"strings"
)

// Lengths Kubernetes allows for names, label keys and label values.
const (
	// DNS1123LabelMaxLength is the longest RFC 1123 label (namespace names, most names).
	DNS1123LabelMaxLength = 63
	// DNS1123SubdomainMaxLength is the longest RFC 1123 subdomain (most object names).
	DNS1123SubdomainMaxLength = 253
	// DNS1035LabelMaxLength is the longest RFC 1035 label (service names).
	DNS1035LabelMaxLength = 63
	// QualifiedNameMaxLength is the longest name part of a qualified name (label key).
	QualifiedNameMaxLength = 63
	// LabelValueMaxLength is the longest label value.
	LabelValueMaxLength = 63
)

// The regular expressions Kubernetes prints in its messages. The checks themselves
// are hand-written scanners equivalent to these expressions (the tests prove it).
const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt     = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
)

const (
	dns1123LabelErrMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	dns1123SubdomainErrMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	dns1035LabelErrMsg     = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	qualifiedNameErrMsg    = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueErrMsg       = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	emptyErrMsg            = "must be non-empty"
)

// Kubernetes words the length limit two ways: the DNS name rules of
// k8s.io/apimachinery/pkg/util/validation say "characters", the label rules (and the
// DNS check of a label key's prefix) of pkg/api/validate/content say "bytes".
func maxLenCharsError(n int) string { return "must be no more than " + strconv.Itoa(n) + " characters" }
func maxLenBytesError(n int) string { return "must be no more than " + strconv.Itoa(n) + " bytes" }

// regexError renders Kubernetes' explanation of a failed pattern, with examples.
func regexError(msg, re string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + re + "')"
	}
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (e.g. ")
	for i, ex := range examples {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString("'" + ex + "', ")
	}
	b.WriteString("regex used for validation is '" + re + "')")
	return b.String()
}

// Byte classes of the patterns above.
func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
func isAlnum(c byte) bool      { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

// matchDNS1123Label reports whether s matches ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$.
func matchDNS1123Label(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && !isLowerAlnum(c) {
			return false
		}
	}
	return true
}

// matchDNS1123Subdomain reports whether s is one or more RFC 1123 labels joined by dots.
func matchDNS1123Subdomain(s string) bool {
	for {
		label, rest, more := strings.Cut(s, ".")
		if !matchDNS1123Label(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// matchDNS1035Label reports whether s matches ^[a-z]([-a-z0-9]*[a-z0-9])?$.
func matchDNS1035Label(s string) bool {
	return s != "" && s[0] >= 'a' && s[0] <= 'z' && matchDNS1123Label(s)
}

// matchQualifiedName reports whether s matches ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$.
func matchQualifiedName(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && c != '_' && c != '.' && !isAlnum(c) {
			return false
		}
	}
	return true
}

// IsDNS1123Label checks that value is a lowercase RFC 1123 label (at most 63
// characters of a-z, 0-9 and '-', starting and ending alphanumeric), the rule for
// namespace names. It returns Kubernetes' messages, or nil when the value is valid.
func IsDNS1123Label(value string) []string {
	var errs []string
	if len(value) > DNS1123LabelMaxLength {
		errs = append(errs, maxLenCharsError(DNS1123LabelMaxLength))
	}
	if !matchDNS1123Label(value) {
		if matchDNS1123Subdomain(value) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1123Subdomain checks that value is a lowercase RFC 1123 subdomain (at most 253
// characters; labels of a-z, 0-9 and '-' joined by dots), the rule for most object
// names. It returns Kubernetes' messages, or nil when the value is valid.
func IsDNS1123Subdomain(value string) []string {
	return isDNS1123Subdomain(value, maxLenCharsError)
}

func isDNS1123Subdomain(value string, maxLenError func(int) string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLenError(DNS1123SubdomainMaxLength))
	}
	if !matchDNS1123Subdomain(value) {
		errs = append(errs, regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// IsDNS1035Label checks that value is an RFC 1035 label (like an RFC 1123 label but
// starting with a letter), the rule for service names. It returns Kubernetes'
// messages, or nil when the value is valid.
func IsDNS1035Label(value string) []string {
	var errs []string
	if len(value) > DNS1035LabelMaxLength {
		errs = append(errs, maxLenCharsError(DNS1035LabelMaxLength))
	}
	if !matchDNS1035Label(value) {
		errs = append(errs, regexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// IsQualifiedName checks that value is what Kubernetes calls a qualified name, the
// rule for label and annotation keys and finalizers: a name of at most 63 characters
// (alphanumerics, '-', '_', '.', starting and ending alphanumeric), optionally
// preceded by a DNS subdomain prefix and '/' ("example.com/MyName"). It returns
// Kubernetes' messages, or nil when the value is valid.
func IsQualifiedName(value string) []string {
	var errs []string
	name := value
	if prefix, rest, found := strings.Cut(value, "/"); found {
		if strings.Contains(rest, "/") {
			return []string{"a valid label key " +
				regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc") +
				" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
		}
		name = rest
		if prefix == "" {
			errs = append(errs, "prefix part "+emptyErrMsg)
		} else {
			for _, msg := range isDNS1123Subdomain(prefix, maxLenBytesError) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	}
	if name == "" {
		errs = append(errs, "name part "+emptyErrMsg)
	} else if len(name) > QualifiedNameMaxLength {
		errs = append(errs, "name part "+maxLenBytesError(QualifiedNameMaxLength))
	}
	if !matchQualifiedName(name) {
		errs = append(errs, "name part "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue checks that value is a valid label value: empty, or at most 63
// characters of alphanumerics, '-', '_' and '.', starting and ending alphanumeric. It
// returns Kubernetes' messages, or nil when the value is valid.
func IsValidLabelValue(value string) []string {
	var errs []string
	if len(value) > LabelValueMaxLength {
		errs = append(errs, maxLenBytesError(LabelValueMaxLength))
	}
	if value != "" && !matchQualifiedName(value) {
		errs = append(errs, regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// IsPathSegmentName checks that value can be used as one segment of a URL path, the
// rule kube-apiserver applies to the name of every object: not "." or "..", and
// without '/' or '%'. It returns Kubernetes' messages, or nil when the value is valid.
func IsPathSegmentName(value string) []string {
	switch value {
	case ".", "..":
		return []string{"may not be '" + value + "'"}
	}
	return IsPathSegmentPrefix(value)
}

// IsPathSegmentPrefix is IsPathSegmentName for a prefix that more characters will
// follow (generateName): only '/' and '%' are rejected.
func IsPathSegmentPrefix(value string) []string {
	var errs []string
	if strings.Contains(value, "/") {
		errs = append(errs, "may not contain '/'")
	}
	if strings.Contains(value, "%") {
		errs = append(errs, "may not contain '%'")
	}
	return errs
}
