package authn

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// RequestHeader is the front-proxy authenticator (kube's requestheader): only a client
// certificate verified against ClientCA() (and, when AllowedNames is not empty, whose CN is
// one of them) may assert the user through headers; otherwise the headers are ignored
// (ok=false, or an error like kube's). User name: first non-empty of UsernameHeaders;
// UID: UIDHeaders; groups: every value of every GroupHeaders; extra: headers with one of
// ExtraHeaderPrefixes, key lowercased and percent-unescaped as kube does. After
// authenticating it deletes those headers from the request, as kube does.
//
// In detail, as kube-apiserver's --requestheader-* flags: no client certificate or no
// pool is ok=false; a certificate that does not verify, or whose CN is not allowed, is
// an error (so a union goes on to the next authenticator, which may take the same
// certificate as a plain client certificate: a forged X-Remote-User from an ordinary
// client is never believed). With a proxy certificate, a request without a user name
// header value is ok=false. Header names are matched case-insensitively; the user name
// and UID are the first value of the first header that has a non-empty first value;
// groups skip empty values; an extra key is the rest of the header name after the
// prefix, lowercased, then percent-decoded (left as it is when that fails), and a header
// matching two prefixes counts for both. The user is also in system:authenticated,
// unless it already is or is in system:unauthenticated (kube's AuthenticatedGroupAdder).
type RequestHeader struct {
	ClientCA            func() *x509.CertPool
	AllowedNames        []string
	UsernameHeaders     []string // kube's default X-Remote-User when built by the serving package
	UIDHeaders          []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string
}

// Validate reports header names and prefixes that are empty or only spaces, which
// kube's requestheader constructor refuses: an empty extra prefix would turn every
// header of a proxied request into user extra.
func (a RequestHeader) Validate() error {
	var errs []error
	for _, list := range []struct {
		what  string
		names []string
	}{{"username header", a.UsernameHeaders}, {"UID header", a.UIDHeaders}, {"group header", a.GroupHeaders}, {"extra header prefix", a.ExtraHeaderPrefixes}} {
		for _, n := range list.names {
			if strings.TrimSpace(n) == "" {
				errs = append(errs, fmt.Errorf("requestheader: empty %s %q", list.what, n))
			}
		}
	}
	return errors.Join(errs...)
}

// Authenticate implements Authenticator.
func (a RequestHeader) Authenticate(r *http.Request) (*User, bool, error) {
	cert, _, ok, err := verifyClientCertificate(r, a.ClientCA)
	if !ok || err != nil {
		return nil, false, err
	}
	if len(a.AllowedNames) > 0 && !slices.Contains(a.AllowedNames, cert.Subject.CommonName) {
		return nil, false, fmt.Errorf("x509: subject with cn=%s is not in the allowed list", cert.Subject.CommonName)
	}
	name := firstHeaderValue(r.Header, a.UsernameHeaders)
	if name == "" {
		return nil, false, nil
	}
	user := &User{
		Name:   name,
		UID:    firstHeaderValue(r.Header, a.UIDHeaders),
		Groups: allHeaderValues(r.Header, a.GroupHeaders),
		Extra:  extraFromHeaders(r.Header, a.ExtraHeaderPrefixes),
	}
	a.deleteHeaders(r.Header)
	return withAuthenticatedGroup(user), true, nil
}

// deleteHeaders removes the headers that asserted the user, so that nothing behind the
// authenticator reads them as anything else.
func (a RequestHeader) deleteHeaders(h http.Header) {
	for _, names := range [][]string{a.UsernameHeaders, a.UIDHeaders, a.GroupHeaders} {
		for _, name := range names {
			h.Del(name)
		}
	}
	for _, prefix := range a.ExtraHeaderPrefixes {
		for k := range h {
			if hasPrefixFold(k, prefix) {
				delete(h, k) // the raw key: do not rely on canonical spelling
			}
		}
	}
}

// firstHeaderValue is the first value of the first of names whose first value is not
// empty.
func firstHeaderValue(h http.Header, names []string) string {
	for _, name := range names {
		if v := h.Get(name); v != "" {
			return v
		}
	}
	return ""
}

// allHeaderValues is every non-empty value of every one of names, in order.
func allHeaderValues(h http.Header, names []string) []string {
	values := []string{}
	for _, name := range names {
		for _, v := range h[http.CanonicalHeaderKey(name)] {
			if v != "" {
				values = append(values, v)
			}
		}
	}
	return values
}

// extraFromHeaders collects the user extra from the headers with one of prefixes. kube
// walks the header map in Go's random order; this walks names sorted, which is one of
// kube's orders and the same every time.
func extraFromHeaders(h http.Header, prefixes []string) map[string][]string {
	extra := map[string][]string{}
	if len(prefixes) == 0 {
		return extra
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, prefix := range prefixes {
		for _, name := range names {
			if !hasPrefixFold(name, prefix) {
				continue
			}
			key := strings.ToLower(name[len(prefix):])
			if unescaped, err := url.PathUnescape(key); err == nil {
				key = unescaped
			}
			extra[key] = append(extra[key], h[name]...)
		}
	}
	return extra
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
