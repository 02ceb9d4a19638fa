package authn_test

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authn"
	"github.com/google/go-cmp/cmp"
)

func TestX509_AuthenticatesVerifiedClientCertificatesAsKubeDoes(t *testing.T) {
	ca := newCA(t, "client-ca")
	other := newCA(t, "other-ca")
	inter := ca.intermediate(t, "client-intermediate")
	alice := ca.issue(t, leaf{cn: "alice", orgs: []string{"dev", "ops"}})
	tests := []struct {
		name     string
		clientCA func() *x509.CertPool
		cert     *tls.Certificate
		wantUser *authn.User // nil: not authenticated
		wantErr  string      // "": no error
	}{
		{
			name: "a good certificate is CN in groups O and system:authenticated", clientCA: ca.pool(), cert: alice,
			wantUser: &authn.User{Name: "alice", Groups: []string{"dev", "ops", "system:authenticated"},
				Extra: map[string][]string{authn.CredentialIDKey: {credentialID(alice)}}},
		},
		{
			name: "a certificate through an intermediate presented by the client verifies", clientCA: ca.pool(),
			cert:     inter.issue(t, leaf{cn: "bob"}),
			wantUser: &authn.User{Name: "bob", Groups: []string{"system:authenticated"}},
		},
		{
			name: "the subject UID attribute is the user's UID", clientCA: ca.pool(),
			cert:     ca.issue(t, leaf{cn: "carol", uids: []string{"uid-1"}}),
			wantUser: &authn.User{Name: "carol", UID: "uid-1", Groups: []string{"system:authenticated"}},
		},
		{
			name: "a user already in system:authenticated is not put in it twice", clientCA: ca.pool(),
			cert:     ca.issue(t, leaf{cn: "dave", orgs: []string{"system:authenticated"}}),
			wantUser: &authn.User{Name: "dave", Groups: []string{"system:authenticated"}},
		},
		{name: "two UID attributes are an error", clientCA: ca.pool(), cert: ca.issue(t, leaf{cn: "erin", uids: []string{"a", "b"}}), wantErr: "expected 1 UID"},
		{name: "an empty UID attribute is an error", clientCA: ca.pool(), cert: ca.issue(t, leaf{cn: "erin", uids: []string{""}}), wantErr: "UID cannot be an empty string"},
		{name: "an expired certificate is an error", clientCA: ca.pool(), cert: ca.issue(t, leaf{cn: "alice", expired: true}), wantErr: "expired"},
		{name: "a certificate of another CA is an error", clientCA: ca.pool(), cert: other.issue(t, leaf{cn: "alice"}), wantErr: "unknown authority"},
		{name: "a server-only certificate is an error", clientCA: ca.pool(), cert: ca.issue(t, leaf{cn: "alice", usage: x509.ExtKeyUsageServerAuth}), wantErr: "incompatible key usage"},
		{name: "a certificate without CN is no credential", clientCA: ca.pool(), cert: ca.issue(t, leaf{orgs: []string{"dev"}})},
		{name: "no certificate is no credential", clientCA: ca.pool()},
		{name: "no CA function is no opinion", cert: alice},
		{name: "a nil pool is no opinion", clientCA: func() *x509.CertPool { return nil }, cert: alice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := authenticateOverTLS(t, authn.X509{ClientCA: tt.clientCA}, tt.cert, nil)
			checkOutcome(t, got, tt.wantUser, tt.wantErr)
		})
	}
}

func TestX509_ReadsTheCAPoolPerRequest(t *testing.T) {
	oldCA, newCA := newCA(t, "old"), newCA(t, "new")
	current := oldCA.pool()
	a := authn.X509{ClientCA: func() *x509.CertPool { return current() }}
	cert := newCA.issue(t, leaf{cn: "alice"})
	if got := authenticateOverTLS(t, a, cert, nil); got.ok || got.err == nil {
		t.Fatalf("before the CA changed: ok=%v err=%v, want an error", got.ok, got.err)
	}
	current = newCA.pool()
	if got := authenticateOverTLS(t, a, cert, nil); !got.ok || got.user.Name != "alice" {
		t.Fatalf("after the CA changed: ok=%v err=%v, want alice", got.ok, got.err)
	}
	// A chain remembered as verified against the new pool is verified again once
	// the pool changes back.
	current = oldCA.pool()
	if got := authenticateOverTLS(t, a, cert, nil); got.ok || got.err == nil {
		t.Fatalf("after the CA changed back: ok=%v err=%v, want an error", got.ok, got.err)
	}
}

// credentialID is kube's credential id of a client certificate.
func credentialID(c *tls.Certificate) string {
	sum := sha256.Sum256(c.Certificate[0])
	return "X509SHA256=" + hex.EncodeToString(sum[:])
}

// checkOutcome compares an outcome with the user wanted (nil: not authenticated) and
// the error wanted (a substring; "": none). Extra is compared only when wanted.
func checkOutcome(t *testing.T, got outcome, wantUser *authn.User, wantErr string) {
	t.Helper()
	switch {
	case wantErr == "" && got.err != nil:
		t.Errorf("error %v, want none", got.err)
	case wantErr != "" && (got.err == nil || !strings.Contains(got.err.Error(), wantErr)):
		t.Errorf("error %v, want one containing %q", got.err, wantErr)
	}
	if wantUser == nil {
		if got.ok || got.user != nil {
			t.Errorf("authenticated as %+v (ok=%v), want not authenticated", got.user, got.ok)
		}
		return
	}
	if !got.ok || got.user == nil {
		t.Fatalf("not authenticated (err %v), want %+v", got.err, wantUser)
	}
	gotUser := *got.user
	if wantUser.Extra == nil {
		gotUser.Extra = nil
	}
	if diff := cmp.Diff(wantUser, &gotUser); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
}
