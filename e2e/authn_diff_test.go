package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	mathrand "math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"

	"github.com/apikit-dev/apikit/authn"
)

// TestAuthnDiff_RequestHeaderMatchesKube feeds the same generated front-proxy requests
// (header sets, with the allowed proxy certificate, a proxy certificate of another
// name, one of another CA, or none) to k8s.io/apiserver's requestheader authenticator,
// wrapped in the AuthenticatedGroupAdder as kube's delegating authentication wraps it,
// and to authn.RequestHeader, and compares whether each authenticated or failed, the
// user name, UID, groups and extra, and the headers left in the request.
func TestAuthnDiff_RequestHeaderMatchesKube(t *testing.T) {
	proxyCAKey, proxyCA := diffCertificate(t, "front-proxy-ca", nil, nil)
	_, rogueCA := diffCertificate(t, "rogue-ca", nil, nil)
	roots := x509.NewCertPool()
	roots.AddCert(proxyCA)
	certs := map[string][]*x509.Certificate{
		"allowed proxy":     {issueDiffLeaf(t, "front-proxy-client", proxyCA, proxyCAKey)},
		"other proxy name":  {issueDiffLeaf(t, "someone-else", proxyCA, proxyCAKey)},
		"another CA":        {rogueCA},
		"no certificate":    nil,
		"allowed, chain of": {issueDiffLeaf(t, "front-proxy-client", proxyCA, proxyCAKey), proxyCA},
	}

	usernames := []string{"X-Remote-User", "X-Other-User"}
	uids := []string{"X-Remote-Uid"}
	groups := []string{"X-Remote-Group", "X-Other-Group"}
	prefixes := []string{"X-Remote-Extra-", "X-Other-Extra-", "x-remote-"}
	allowed := []string{"front-proxy-client"}
	ours := authn.RequestHeader{
		ClientCA: func() *x509.CertPool { return roots }, AllowedNames: allowed,
		UsernameHeaders: usernames, UIDHeaders: uids, GroupHeaders: groups, ExtraHeaderPrefixes: prefixes,
	}
	kube := group.NewAuthenticatedGroupAdder(headerrequest.NewDynamicVerifyOptionsSecure(
		func() (x509.VerifyOptions, bool) {
			return x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, true
		},
		headerrequest.StaticStringSlice(allowed), headerrequest.StaticStringSlice(usernames),
		headerrequest.StaticStringSlice(uids), headerrequest.StaticStringSlice(groups),
		headerrequest.StaticStringSlice(prefixes)))

	names := []string{
		"X-Remote-User", "x-remote-user", "X-Other-User", "X-Remote-Uid", "X-Remote-Group", "x-other-group",
		"X-Remote-Extra-Scopes", "X-Remote-Extra-Example.com%2fproject", "X-Remote-Extra-A%zz", "X-Remote-Extra-",
		"X-Other-Extra-Scopes", "X-Remote-Something", "Authorization", "Accept", "Impersonate-User",
	}
	values := []string{"", "alice", "bob", "system:masters", "system:authenticated", "system:unauthenticated", "system:anonymous", "a,b", " spaced "}
	rng := mathrand.New(mathrand.NewPCG(14, 2026))
	const cases = 3000
	authenticated := 0
	for i := range cases {
		header := http.Header{}
		for range rng.IntN(7) {
			name := names[rng.IntN(len(names))]
			if rng.IntN(4) == 0 {
				header[name] = append(header[name], values[rng.IntN(len(values))]) // a raw, maybe non-canonical key
			} else {
				header.Add(name, values[rng.IntN(len(values))])
			}
		}
		certName := slices.Sorted(func(yield func(string) bool) {
			for k := range certs {
				if !yield(k) {
					return
				}
			}
		})[rng.IntN(len(certs))]
		want := runDiffAuthenticator(kube.AuthenticateRequest, header, certs[certName])
		got := runDiffAuthenticator(func(r *http.Request) (*authenticator.Response, bool, error) {
			u, ok, err := ours.Authenticate(r)
			if u == nil {
				return nil, ok, err
			}
			return &authenticator.Response{User: &diffUser{name: u.Name, uid: u.UID, groups: u.Groups, extra: u.Extra}}, ok, err
		}, header, certs[certName])
		if want.OK {
			authenticated++
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("case %d (%s, headers %q): kube (-) and apikit (+) differ:\n%s", i, certName, header, diff)
		}
	}
	if authenticated < cases/10 {
		t.Errorf("only %d of %d cases authenticated: the generator hardly exercises the user headers", authenticated, cases)
	}
}

// diffResult is what is compared of one authentication.
type diffResult struct {
	OK, Failed bool
	Name, UID  string
	Groups     []string
	Extra      map[string][]string
	Left       http.Header
}

// runDiffAuthenticator authenticates a copy of header presented with peers.
func runDiffAuthenticator(auth func(*http.Request) (*authenticator.Response, bool, error), header http.Header, peers []*x509.Certificate) diffResult {
	r, _ := http.NewRequest(http.MethodGet, "https://localhost/", nil)
	r.Header = header.Clone()
	r.TLS = &tls.ConnectionState{PeerCertificates: peers}
	resp, ok, err := auth(r)
	res := diffResult{OK: ok, Failed: err != nil, Left: r.Header}
	if len(res.Left) == 0 {
		res.Left = nil
	}
	if resp == nil || resp.User == nil {
		return res
	}
	res.Name, res.UID = resp.User.GetName(), resp.User.GetUID()
	if g := resp.User.GetGroups(); len(g) > 0 {
		res.Groups = g
	}
	if e := resp.User.GetExtra(); len(e) > 0 {
		// kube walks the header map in random order, so the values of two header names
		// that make the same key come in any order.
		res.Extra = map[string][]string{}
		for k, v := range e {
			res.Extra[k] = slices.Sorted(slices.Values(v))
		}
	}
	return res
}

// diffUser is an authn user as kube's user.Info.
type diffUser struct {
	name, uid string
	groups    []string
	extra     map[string][]string
}

func (u *diffUser) GetName() string               { return u.name }
func (u *diffUser) GetUID() string                { return u.uid }
func (u *diffUser) GetGroups() []string           { return u.groups }
func (u *diffUser) GetExtra() map[string][]string { return u.extra }

// diffCertificate makes a certificate authority: self-signed when parent is nil.
func diffCertificate(t *testing.T, cn string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: parent == nil, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(fmt.Errorf("certificate %s: %w", cn, err))
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, c
}

// issueDiffLeaf makes a client certificate for cn signed by ca.
func issueDiffLeaf(t *testing.T, cn string, ca *x509.Certificate, caKey *ecdsa.PrivateKey) *x509.Certificate {
	_, c := diffCertificate(t, cn, ca, caKey)
	return c
}
