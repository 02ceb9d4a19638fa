package authn_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authn"
)

// FuzzRequestHeader feeds arbitrary header names and values, one "name:value" a line,
// to a union of the front-proxy authenticator and client certificates, on a request
// that presents a verified proxy certificate. Whatever the headers, it must not panic,
// and the user is exactly the first non-empty username header value, or nobody; once
// a user is asserted, the headers that asserted it are gone.
func FuzzRequestHeader(f *testing.F) {
	proxyCA, clientCA := newCA(f, "front-proxy-ca"), newCA(f, "client-ca")
	proxy := proxyCA.issue(f, leaf{cn: "front-proxy-client"}).Leaf
	rh := authn.RequestHeader{
		ClientCA:            proxyCA.pool(),
		AllowedNames:        []string{"front-proxy-client"},
		UsernameHeaders:     []string{"X-Remote-User", "x-other-user"},
		UIDHeaders:          []string{"X-Remote-Uid"},
		GroupHeaders:        []string{"X-Remote-Group"},
		ExtraHeaderPrefixes: []string{"X-Remote-Extra-", "x-remote-"},
	}
	union := authn.Union(rh, authn.X509{ClientCA: clientCA.pool()})
	for _, seed := range []string{
		"X-Remote-User:alice\nX-Remote-Group:dev\nX-Remote-Extra-Scopes:view",
		"X-Remote-User:\nX-Other-User:bob\nx-remote-user:carol",
		"X-Remote-Extra-A%2fB:v\nX-Remote-Extra-%zz:w\nX-Remote-User:dave",
		"X-Remote-Group:system:masters",
		":\n\n:x\nX-Remote-Uid:1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		h := http.Header{}
		for line := range strings.SplitSeq(raw, "\n") {
			name, value, _ := strings.Cut(line, ":")
			h[name] = append(h[name], value) // raw names: canonical or not
		}
		want := ""
		for _, name := range rh.UsernameHeaders {
			if v := h.Get(name); v != "" {
				want = v
				break
			}
		}
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header = h
		r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{proxy}}
		user, ok, err := union.Authenticate(r)
		if want == "" {
			if ok || user != nil {
				t.Fatalf("authenticated as %+v without a username header", user)
			}
			return
		}
		if !ok || err != nil || user == nil || user.Name != want {
			t.Fatalf("user %+v ok=%v err=%v, want %q", user, ok, err, want)
		}
		if !slices.Contains(user.Groups, "system:authenticated") && !slices.Contains(user.Groups, "system:unauthenticated") {
			t.Errorf("groups %q lack system:authenticated", user.Groups)
		}
		for k := range r.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-remote-") {
				t.Errorf("header %q is still in the request after it asserted the user", k)
			}
		}
		if v := r.Header.Get("X-Other-User"); v != "" {
			t.Errorf("X-Other-User %q is still in the request after it asserted the user", v)
		}
	})
}
