package strategies

import (
	"net/netip"
	"testing"

	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/validation"
)

func TestParseCIDRSloppy_AcceptsWhatKubesSloppyParserAccepts(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want string // the network, as net.IPNet prints it
	}{
		{"10.0.0.0/16", true, "10.0.0.0/16"},
		{"10.0.0.1/16", true, "10.0.0.0/16"},
		{"010.000.001.000/024", true, "10.0.1.0/24"},
		{"2001:db8::/32", true, "2001:db8::/32"},
		{"::ffff:010.0.0.0/104", true, "10.0.0.0/8"}, // net.IPNet prints a mapped network as IPv4
		{"10.0.0.0/33", false, ""},
		{"10.0.0.0", false, ""},
		{"10.0.0.256/8", false, ""},
		{"10.0.0/8", false, ""},
		{"10.0.0.0/-1", false, ""},
		{"10.0.0.0/ 8", false, ""},
		{"", false, ""},
	}
	for _, tt := range tests {
		n, ok := parseCIDRSloppy(tt.in)
		if ok != tt.ok || ok && n.String() != tt.want {
			t.Errorf("parseCIDRSloppy(%q) = %v, %v; want %q, %v", tt.in, n, ok, tt.want, tt.ok)
		}
	}
}

// FuzzValidateIPBlock holds the IP block rules on any input: no panic, and a CIDR they
// accept (not kept from a stored object) is one the strict parser accepts with no bits
// past its prefix.
func FuzzValidateIPBlock(f *testing.F) {
	for _, s := range []string{"10.0.0.0/16", "010.0.0.0/8", "::ffff:1.2.3.0/120", "2001:db8::/32", "1.2.3.4", "/", "1.2.3.4/99999999"} {
		f.Add(s, "10.0.1.0/24")
	}
	f.Fuzz(func(t *testing.T, cidr, except string) {
		if len(cidr) > 256 || len(except) > 256 {
			return
		}
		_ = validateIPBlock(&networkingv1.IPBlock{CIDR: cidr, Except: []string{except}}, networkPolicyOptions{}, validation.NewPath("ipBlock"))
		if len(validateLegacyCIDR(validation.NewPath("cidr"), cidr, nil)) == 0 {
			p, err := netip.ParsePrefix(cidr)
			if err != nil || p.Masked() != p {
				t.Errorf("%q accepted, but the strict parser gives %v, %v", cidr, p, err)
			}
		}
		_ = cidrWarnings(validation.NewPath("cidr"), cidr)
		_ = legacyIPWarnings(validation.NewPath("ip"), cidr)
	})
}
