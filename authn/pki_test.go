package authn_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authn"
)

// The test PKI: certificate authorities and the client certificates they issue,
// generated per test, and a TLS server that reports what an authenticator said.

// certAuthority signs client certificates (and intermediate authorities).
type certAuthority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// chain is the DER of the intermediates between cert and the root, leaf side first.
	chain [][]byte
}

var serialNumber atomic.Int64

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// newCA returns a self-signed root authority.
func newCA(t testing.TB, name string) *certAuthority {
	t.Helper()
	key := newKey(t)
	tmpl := caTemplate(name)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &certAuthority{cert: mustParse(t, der), key: key}
}

func caTemplate(name string) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber:          big.NewInt(serialNumber.Add(1)),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
}

// intermediate returns an authority signed by ca.
func (ca *certAuthority) intermediate(t testing.TB, name string) *certAuthority {
	t.Helper()
	key := newKey(t)
	der, err := x509.CreateCertificate(rand.Reader, caTemplate(name), ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return &certAuthority{cert: mustParse(t, der), key: key, chain: append([][]byte{der}, ca.chain...)}
}

// pool returns the function X509.ClientCA and RequestHeader.ClientCA want.
func (ca *certAuthority) pool() func() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return func() *x509.CertPool { return p }
}

// leaf describes a client certificate.
type leaf struct {
	cn      string
	orgs    []string
	uids    []string // subject UID attributes
	expired bool
	// usage is the extended key usage; zero means client authentication.
	usage x509.ExtKeyUsage
}

// issue signs a client certificate; its Certificate chain carries ca's intermediates.
func (ca *certAuthority) issue(t testing.TB, l leaf) *tls.Certificate {
	t.Helper()
	key := newKey(t)
	usage := l.usage
	if usage == 0 {
		usage = x509.ExtKeyUsageClientAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serialNumber.Add(1)),
		Subject:      pkix.Name{CommonName: l.cn, Organization: l.orgs},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	for _, uid := range l.uids {
		tmpl.Subject.ExtraNames = append(tmpl.Subject.ExtraNames, pkix.AttributeTypeAndValue{Type: asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}, Value: uid})
	}
	if l.expired {
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Certificate{Certificate: append([][]byte{der}, ca.chain...), PrivateKey: key, Leaf: mustParse(t, der)}
}

func mustParse(t testing.TB, der []byte) *x509.Certificate {
	t.Helper()
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newTLSServer starts h over TLS on 127.0.0.1, asking clients for certificates
// without verifying them (verification is the authenticators'), and stops it at the
// end of the test.
func newTLSServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// clientWith returns a client of srv presenting cert (none when nil).
func clientWith(srv *httptest.Server, cert *tls.Certificate) *http.Client {
	tr := srv.Client().Transport.(*http.Transport).Clone()
	if cert != nil {
		tr.TLSClientConfig.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Transport: tr}
}

// outcome is what an authenticator said about a request, and the request's headers
// after it spoke.
type outcome struct {
	user   *authn.User
	ok     bool
	err    error
	header http.Header
}

// authenticateOverTLS sends one GET with header and cert over real TLS to a server
// that runs a and reports its outcome.
func authenticateOverTLS(t testing.TB, a authn.Authenticator, cert *tls.Certificate, header http.Header) outcome {
	t.Helper()
	outcomes := make(chan outcome, 1)
	srv := newTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok, err := a.Authenticate(r)
		outcomes <- outcome{user: user, ok: ok, err: err, header: r.Header.Clone()}
	}))
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	client := clientWith(srv, cert)
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return <-outcomes
}
