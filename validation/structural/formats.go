package structural

import (
	"encoding/hex"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// supportedFormat returns the format kube-apiserver keeps for a schema with the given
// types, or "": integers keep int32 and int64, numbers float and double, strings (and
// untyped or int-or-string values) the string formats below; any other format is
// ignored, as apiextensions-apiserver strips it before validating.
func supportedFormat(format string, types []string) string {
	if format == "" {
		return ""
	}
	schemaType := ""
	if len(types) == 1 {
		schemaType = types[0]
	}
	switch schemaType {
	case "", "string":
		if _, ok := formatCheckers[normalizeFormat(format)]; ok {
			return format
		}
	case "integer":
		if format == "int32" || format == "int64" {
			return format
		}
	case "number":
		if format == "float" || format == "double" {
			return format
		}
	}
	return ""
}

// normalizeFormat is go-openapi's format name normalization: dashes do not count.
func normalizeFormat(format string) string {
	return strings.ReplaceAll(format, "-", "")
}

// formatCheckers are the string formats kube-apiserver validates in custom resources
// (apiextensions-apiserver's supported formats, validated as kube-openapi's strfmt
// registry does), keyed by normalized name.
var formatCheckers = map[string]func(string) bool{
	"bsonobjectid": isBSONObjectID,
	"uri":          isRequestURI,
	"email":        isEmail,
	"hostname":     isHostname,
	"ipv4":         func(s string) bool { return parseIPSloppy(s) && strings.Contains(s, ".") },
	"ipv6":         func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") },
	"cidr":         isCIDRSloppy,
	"mac":          func(s string) bool { _, err := net.ParseMAC(s); return err == nil },
	"uuid":         rxUUID.MatchString,
	"uuid3":        rxUUID3.MatchString,
	"uuid4":        rxUUID4.MatchString,
	"uuid5":        rxUUID5.MatchString,
	"isbn":         func(s string) bool { return isISBN(s, 10) || isISBN(s, 13) },
	"isbn10":       func(s string) bool { return isISBN(s, 10) },
	"isbn13":       func(s string) bool { return isISBN(s, 13) },
	"creditcard":   isCreditCard,
	"ssn":          func(s string) bool { return len(s) == 11 && rxSSN.MatchString(s) },
	"hexcolor":     rxHexColor.MatchString,
	"rgbcolor":     rxRGBColor.MatchString,
	"byte":         rxBase64.MatchString,
	"password":     func(string) bool { return true },
	"date":         isDate,
	"datetime":     isDateTime,
	"duration":     isDuration,
	"k8sshortname": func(s string) bool { return len(s) <= 63 && rxShortName.MatchString(s) },
	"k8slongname":  func(s string) bool { return len(s) <= 253 && rxLongName.MatchString(s) },
}

const shortNameFmt = `[a-z0-9]([-a-z0-9]*[a-z0-9])?`

var (
	rxHostname   = regexp.MustCompile(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`)
	rxUUID       = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID3      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID4      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxUUID5      = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxCreditCard = regexp.MustCompile(`^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$`)
	rxISBN10     = regexp.MustCompile(`^(?:[0-9]{9}X|[0-9]{10})$`)
	rxISBN13     = regexp.MustCompile(`^(?:[0-9]{13})$`)
	rxHexColor   = regexp.MustCompile(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rxRGBColor   = regexp.MustCompile(`^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$`)
	rxBase64     = regexp.MustCompile(`^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$`)
	rxSSN        = regexp.MustCompile(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`)
	rxTimeOfDay  = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)
	rxDuration   = regexp.MustCompile(`((\d+)\s*([A-Za-zµ]+))`)
	rxShortName  = regexp.MustCompile("^" + shortNameFmt + "$")
	rxLongName   = regexp.MustCompile("^" + shortNameFmt + `(\.` + shortNameFmt + ")*$")
	rxNonDigits  = regexp.MustCompile("[^0-9]+")
	rxSpaceDash  = regexp.MustCompile(`[\s-]+`)
)

func isBSONObjectID(s string) bool {
	if len(s) != 24 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func isRequestURI(s string) bool {
	_, err := url.ParseRequestURI(s)
	return err == nil
}

func isEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address != ""
}

// isHostname accepts RFC 1034 host names (letters and symbols of any script
// included) of at most 255 bytes with labels of at most 63 bytes.
func isHostname(s string) bool {
	if !rxHostname.MatchString(s) || len(s) > 255 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) > 63 {
			return false
		}
	}
	return true
}

// isISBN checks an ISBN-10 or ISBN-13 (spaces and dashes ignored) and its checksum.
func isISBN(s string, version int) bool {
	s = rxSpaceDash.ReplaceAllString(s, "")
	var sum int32
	switch version {
	case 10:
		if !rxISBN10.MatchString(s) {
			return false
		}
		for i := int32(0); i < 9; i++ {
			sum += (i + 1) * int32(s[i]-'0')
		}
		if s[9] == 'X' {
			sum += 10 * 10
		} else {
			sum += 10 * int32(s[9]-'0')
		}
		return sum%11 == 0
	default:
		if !rxISBN13.MatchString(s) {
			return false
		}
		factor := [2]int32{1, 3}
		for i := 0; i < 12; i++ {
			sum += factor[i%2] * int32(s[i]-'0')
		}
		return int32(s[12]-'0')-(10-sum%10)%10 == 0
	}
}

// isCreditCard checks the digits of s (anything else ignored) against the card
// number patterns and the Luhn checksum.
func isCreditCard(s string) bool {
	digits := rxNonDigits.ReplaceAllString(s, "")
	if !rxCreditCard.MatchString(digits) {
		return false
	}
	var sum int
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d >= 10 {
				d = d%10 + 1
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// isDateTime is go-openapi's date-time check: a date, a 't' (any case), and a time
// of day with seconds and a zone, compared as digits.
func isDateTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	parts := strings.Split(strings.ToLower(s), "t")
	if len(parts) < 2 || !isDate(parts[0]) {
		return false
	}
	m := rxTimeOfDay.FindStringSubmatch(parts[1])
	if m == nil {
		return false
	}
	return m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
}

// durationUnits are the unit spellings go-openapi accepts besides Go's: the last
// spelling of each row also matches as a prefix ("hours").
var durationUnits = [][]string{
	{"ns", "nano"},
	{"us", "µs", "micro"},
	{"ms", "milli"},
	{"s", "sec"},
	{"m", "min"},
	{"h", "hr", "hour"},
	{"d", "day"},
	{"w", "wk", "week"},
}

// isDuration accepts Go durations and Scala-style ones ("3 days", "1h 30min").
func isDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	ok := false
	for _, m := range rxDuration.FindAllStringSubmatch(s, -1) {
		if _, err := strconv.Atoi(m[2]); err != nil {
			return false
		}
		unit := strings.ToLower(strings.TrimSpace(m[3]))
		for _, variants := range durationUnits {
			last := len(variants) - 1
			for i, v := range variants {
				if (i == last && strings.HasPrefix(unit, v)) || strings.EqualFold(v, unit) {
					ok = true
				}
			}
		}
	}
	return ok
}

// parseIPSloppy reports whether s is an IP address as Go 1.16 parsed them, which
// kube-apiserver still does for compatibility: IPv4 octets may have leading zeros
// (read as decimal), also in the IPv4 tail of an IPv6 address.
func parseIPSloppy(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			_, ok := parseIPv4Sloppy(s)
			return ok
		case ':':
			return parseIPv6Sloppy(s)
		}
	}
	return false
}

// parseIPv4Sloppy parses four dot-separated decimal octets, leading zeros allowed,
// and returns the address in canonical form.
func parseIPv4Sloppy(s string) (string, bool) {
	var octets [4]string
	for i := range octets {
		if i > 0 {
			if s == "" || s[0] != '.' {
				return "", false
			}
			s = s[1:]
		}
		n, c, ok := dtoi(s)
		if !ok || n > 0xFF {
			return "", false
		}
		s = s[c:]
		octets[i] = strconv.Itoa(n)
	}
	if s != "" {
		return "", false
	}
	return strings.Join(octets[:], "."), true
}

// dtoi reads a decimal number at the start of s as Go 1.16's net package did.
func dtoi(s string) (n, i int, ok bool) {
	const big = 0xFFFFFF
	for i = 0; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n >= big {
			return big, i, false
		}
	}
	return n, i, i > 0
}

func parseIPv6Sloppy(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	if colon := strings.LastIndexByte(s, ':'); strings.Contains(s[colon+1:], ".") {
		if v4, ok := parseIPv4Sloppy(s[colon+1:]); ok {
			s = s[:colon+1] + v4
		}
	}
	return net.ParseIP(s) != nil
}

// isCIDRSloppy parses an address and a decimal prefix length as Go 1.16's
// net.ParseCIDR did (leading zeros allowed in IPv4 octets and the length).
func isCIDRSloppy(s string) bool {
	addr, mask, found := strings.Cut(s, "/")
	if !found {
		return false
	}
	bits := 32
	if _, ok := parseIPv4Sloppy(addr); !ok {
		if !parseIPv6Sloppy(addr) {
			return false
		}
		bits = 128
	}
	n, i, ok := dtoi(mask)
	return ok && i == len(mask) && n <= bits
}
