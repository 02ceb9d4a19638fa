package authn_test

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authn"
)

// frontProxySetup is an aggregated API server's authentication: the front proxy's CA
// and allowed name, and a separate client CA for ordinary clients.
type frontProxySetup struct {
	proxyCA, clientCA *certAuthority
	requestHeader     authn.RequestHeader
	union             authn.Authenticator
}

func newFrontProxySetup(t *testing.T) *frontProxySetup {
	s := &frontProxySetup{proxyCA: newCA(t, "front-proxy-ca"), clientCA: newCA(t, "client-ca")}
	s.requestHeader = authn.RequestHeader{
		ClientCA:            s.proxyCA.pool(),
		AllowedNames:        []string{"front-proxy-client"},
		UsernameHeaders:     []string{"X-Remote-User", "X-Other-User"},
		UIDHeaders:          []string{"X-Remote-Uid"},
		GroupHeaders:        []string{"X-Remote-Group", "X-Other-Group"},
		ExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
	}
	s.union = authn.Union(s.requestHeader, authn.X509{ClientCA: s.clientCA.pool()})
	return s
}

func TestRequestHeader_OnlyTheFrontProxyMayAssertAUser(t *testing.T) {
	s := newFrontProxySetup(t)
	forged := http.Header{"X-Remote-User": {"admin"}, "X-Remote-Group": {"system:masters"}}
	tests := []struct {
		name     string
		cert     *tls.Certificate
		header   http.Header
		wantUser *authn.User
		wantErr  string
	}{
		{
			name: "a forged X-Remote-User from an ordinary client certificate is not the user: the certificate is",
			cert: s.clientCA.issue(t, leaf{cn: "alice"}), header: forged,
			wantUser: &authn.User{Name: "alice", Groups: []string{"system:authenticated"}},
		},
		{
			name: "a proxy certificate whose CN is not allowed is refused",
			cert: s.proxyCA.issue(t, leaf{cn: "other-proxy"}), header: forged,
			wantErr: "x509: subject with cn=other-proxy is not in the allowed list",
		},
		{
			name: "an expired proxy certificate is refused",
			cert: s.proxyCA.issue(t, leaf{cn: "front-proxy-client", expired: true}), header: forged,
			wantErr: "expired",
		},
		{
			name: "a proxy name from another CA is refused",
			cert: newCA(t, "rogue").issue(t, leaf{cn: "front-proxy-client"}), header: forged,
			wantErr: "unknown authority",
		},
		{name: "headers without a certificate are ignored", header: forged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := authenticateOverTLS(t, s.union, tt.cert, tt.header)
			checkOutcome(t, got, tt.wantUser, tt.wantErr)
			if got.header.Get("X-Remote-User") != "admin" {
				t.Error("headers that asserted no one were removed")
			}
		})
	}
}

func TestRequestHeader_TheFrontProxyAssertsUserUIDGroupsAndExtra(t *testing.T) {
	s := newFrontProxySetup(t)
	proxy := s.proxyCA.issue(t, leaf{cn: "front-proxy-client"})
	tests := []struct {
		name     string
		a        authn.Authenticator
		header   http.Header
		wantUser *authn.User
		wantErr  string
	}{
		{
			name: "user, uid, every group value and extra with lowercased, unescaped keys",
			a:    s.union,
			header: http.Header{
				"X-Remote-User":                        {"alice"},
				"X-Remote-Uid":                         {"uid-1"},
				"X-Remote-Group":                       {"dev", "", "ops"},
				"X-Other-Group":                        {"qa"},
				"X-Remote-Extra-Scopes":                {"view", "edit"},
				"X-Remote-Extra-Example.com%2fproject": {"apikit"},
			},
			wantUser: &authn.User{
				Name: "alice", UID: "uid-1", Groups: []string{"dev", "ops", "qa", "system:authenticated"},
				Extra: map[string][]string{"scopes": {"view", "edit"}, "example.com/project": {"apikit"}},
			},
		},
		{
			name:     "the first username header with a value wins",
			a:        s.union,
			header:   http.Header{"X-Remote-User": {""}, "X-Other-User": {"bob"}},
			wantUser: &authn.User{Name: "bob", Groups: []string{"system:authenticated"}, Extra: map[string][]string{}},
		},
		{
			name:     "a malformed escape leaves the extra key as it is",
			a:        s.union,
			header:   http.Header{"X-Remote-User": {"bob"}, "X-Remote-Extra-A%zz": {"v"}},
			wantUser: &authn.User{Name: "bob", Groups: []string{"system:authenticated"}, Extra: map[string][]string{"a%zz": {"v"}}},
		},
		{
			name:   "the proxy without a user name is no credential",
			a:      s.requestHeader,
			header: http.Header{"X-Remote-Group": {"system:masters"}},
		},
		{
			name:     "any name from the proxy CA is allowed when AllowedNames is empty",
			a:        authn.RequestHeader{ClientCA: s.proxyCA.pool(), UsernameHeaders: []string{"X-Remote-User"}},
			header:   http.Header{"X-Remote-User": {"carol"}},
			wantUser: &authn.User{Name: "carol", Groups: []string{"system:authenticated"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := authenticateOverTLS(t, tt.a, proxy, tt.header)
			checkOutcome(t, got, tt.wantUser, tt.wantErr)
			if !got.ok {
				return
			}
			for k := range got.header {
				if strings.HasPrefix(k, "X-Remote-") || strings.HasPrefix(k, "X-Other-") {
					t.Errorf("header %s is still in the request after it authenticated", k)
				}
			}
		})
	}
}

func TestRequestHeader_ValidateRefusesEmptyHeaderNames(t *testing.T) {
	good := authn.RequestHeader{UsernameHeaders: []string{"X-Remote-User"}, ExtraHeaderPrefixes: []string{"X-Remote-Extra-"}}
	if err := good.Validate(); err != nil {
		t.Errorf("Validate() = %v, want nil", err)
	}
	bad := authn.RequestHeader{UsernameHeaders: []string{"X-Remote-User", " "}, ExtraHeaderPrefixes: []string{""}}
	err := bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "username header") || !strings.Contains(err.Error(), "extra header prefix") {
		t.Errorf("Validate() = %v, want errors for the username header and the extra prefix", err)
	}
}
