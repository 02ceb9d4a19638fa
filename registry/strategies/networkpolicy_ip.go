package strategies

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/validation"
)

// The IP and CIDR rules of kube's legacy fields (apimachinery's util/validation ip.go
// with StrictIPCIDRValidation, on by default in 1.37): a NetworkPolicy's ipBlock and an
// Ingress's load-balancer status predate strict parsing, so kube first parses them as
// Go 1.16 did (k8s.io/utils ParseIPSloppy / ParseCIDRSloppy: IPv4 octets with leading
// zeros accepted) and then reports what the strict parser refuses.

// parseIPSloppy is k8s.io/utils' ParseIPSloppy: net.ParseIP, but IPv4 octets (also an
// IPv6 address's embedded IPv4 tail) may carry leading zeros. It returns nil for a
// value that is not an IP address.
func parseIPSloppy(s string) net.IP {
	if !strings.Contains(s, ":") {
		return sloppyIPv4Of(s)
	}
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	// An embedded IPv4 tail with leading zeros: parse it sloppily, then the rest.
	i := strings.LastIndexByte(s, ':')
	if !strings.Contains(s[i+1:], ".") {
		return nil
	}
	v4 := sloppyIPv4Of(s[i+1:])
	if v4 == nil {
		return nil
	}
	return net.ParseIP(s[:i+1] + v4.String())
}

// sloppyIPv4Of parses dotted-decimal IPv4 as Go 1.16's parseIPv4: four decimal octets up
// to 255, each possibly with leading zeros.
func sloppyIPv4Of(s string) net.IP {
	var p [4]byte
	for i := range p {
		if i > 0 {
			if s == "" || s[0] != '.' {
				return nil
			}
			s = s[1:]
		}
		n, c, ok := decimalPrefix(s)
		if !ok || n > 0xFF {
			return nil
		}
		s = s[c:]
		p[i] = byte(n)
	}
	if s != "" {
		return nil
	}
	return net.IPv4(p[0], p[1], p[2], p[3])
}

// decimalPrefix is Go 1.16's dtoi: the decimal number at the start of s, the bytes it
// took, and whether there was one (numbers past 0xFFFFFF fail).
func decimalPrefix(s string) (n, i int, ok bool) {
	for i = 0; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n >= 0xFFFFFF {
			return 0, i, false
		}
	}
	return n, i, i > 0
}

// parseCIDRSloppy is k8s.io/utils' ParseCIDRSloppy: the network of "ip/prefix" with the
// address parsed by parseIPSloppy and a decimal prefix length (leading zeros accepted).
func parseCIDRSloppy(s string) (*net.IPNet, bool) {
	addr, mask, found := strings.Cut(s, "/")
	if !found {
		return nil, false
	}
	bits := 128
	ip := sloppyIPv4Of(addr)
	if ip != nil {
		bits, ip = 32, ip.To4()
	} else if strings.Contains(addr, ":") {
		ip = parseIPSloppy(addr)
	}
	n, c, ok := decimalPrefix(mask)
	if ip == nil || !ok || c != len(mask) || n > bits {
		return nil, false
	}
	m := net.CIDRMask(n, bits)
	return &net.IPNet{IP: ip.Mask(m), Mask: m}, true
}

// validateLegacyCIDR is kube's IsValidCIDRForLegacyField: a value among validOld (the
// stored object's, on an update) is accepted as it is.
func validateLegacyCIDR(p *validation.Path, value string, validOld []string) validation.ErrorList {
	if slices.Contains(validOld, value) {
		return nil
	}
	if _, ok := parseCIDRSloppy(value); !ok {
		return validation.ErrorList{validation.Invalid(p, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")}
	}
	prefix, err := netip.ParsePrefix(value)
	switch {
	case err != nil:
		return validation.ErrorList{validation.Invalid(p, value, "must not have leading 0s in IP or prefix length")}
	case prefix.Addr().Is4In6():
		return validation.ErrorList{validation.Invalid(p, value, "must not have an IPv4-mapped IPv6 address")}
	case prefix.Addr() != prefix.Masked().Addr():
		return validation.ErrorList{validation.Invalid(p, value, "must not have bits set beyond the prefix length")}
	}
	return nil
}

// validateLegacyIPAddress is kube's IsValidIPForLegacyField: a value among validOld is
// accepted as it is.
func validateLegacyIPAddress(p *validation.Path, value string, validOld []string) validation.ErrorList {
	if slices.Contains(validOld, value) {
		return nil
	}
	if parseIPSloppy(value) == nil {
		return validation.ErrorList{validation.Invalid(p, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}
	}
	var errs validation.ErrorList
	addr, err := netip.ParseAddr(value)
	if err != nil {
		errs = append(errs, validation.Invalid(p, value, "must not have leading 0s"))
	}
	if addr.Is4In6() {
		errs = append(errs, validation.Invalid(p, value, "must not be an IPv4-mapped IPv6 address"))
	}
	return errs
}

// cidrWarnings is apimachinery's GetWarningsForCIDR, for a value validation accepted: a
// CIDR with host bits set is ambiguous, a sloppy or IPv4-mapped one has a standard
// form, and an IPv6 one should be canonical.
func cidrWarnings(p *validation.Path, value string) []string {
	ipnet, ok := parseCIDRSloppy(value)
	if !ok {
		return nil
	}
	addr, _, _ := strings.Cut(value, "/")
	ip := parseIPSloppy(addr)
	var w []string
	if !ip.Equal(ipnet.IP) {
		_, bits := ipnet.Mask.Size()
		w = append(w, fmt.Sprintf("%s: CIDR value %q is ambiguous in this context (should be %q or %q?)", p, value, ipnet.String(), fmt.Sprintf("%s/%d", ip.String(), bits)))
	}
	prefix, err := netip.ParsePrefix(value)
	if err != nil || prefix.Addr().Is4In6() {
		w = append(w, fmt.Sprintf("%s: non-standard CIDR value %q is invalid: use %q", p, value, ipnet.String()))
	}
	if len(w) == 0 && prefix.Addr().Is6() && prefix.String() != value {
		w = append(w, fmt.Sprintf("%s: IPv6 CIDR value %q should be in RFC 5952 canonical format (%q)", p, value, prefix.String()))
	}
	return w
}

// legacyIPWarnings is apimachinery's GetWarningsForIP, for a value validation accepted.
func legacyIPWarnings(p *validation.Path, value string) []string {
	ip := parseIPSloppy(value)
	if ip == nil {
		return nil
	}
	addr, err := netip.ParseAddr(value)
	if err != nil || addr.Is4In6() {
		return []string{fmt.Sprintf("%s: non-standard IP address %q is invalid: use %q", p, value, ip.String())}
	}
	if addr.Is6() && addr.String() != value {
		return []string{fmt.Sprintf("%s: IPv6 address %q should be in RFC 5952 canonical format (%q)", p, value, addr.String())}
	}
	return nil
}
