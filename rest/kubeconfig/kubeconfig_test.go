package kubeconfig

import (
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
	"time"
)

func TestNew_WritesClusterUserAndContext(t *testing.T) {
	got := string(New("c", "https://127.0.0.1:1", "tok", []byte("CA")))
	for _, want := range []string{
		`server: "https://127.0.0.1:1"`, "certificate-authority-data: Q0E=", `token: "tok"`,
		"current-context: c", "namespace: default",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("kubeconfig lacks %q:\n%s", want, got)
		}
	}
	if anon := string(New("c", "http://x", "", nil)); !strings.Contains(anon, "user: {}") || strings.Contains(anon, "certificate-authority-data") {
		t.Errorf("kubeconfig without token or CA:\n%s", anon)
	}
}

func TestSelfSignedCertificate_CoversItsHosts(t *testing.T) {
	cert, caPEM, err := SelfSignedCertificate("test", time.Hour, "127.0.0.1", "::1", "localhost", "")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(caPEM)
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
		if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: host}); err != nil {
			t.Errorf("certificate does not verify for %s: %v", host, err)
		}
	}
	if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "example.com"}); err == nil {
		t.Error("certificate verifies for a host it was not made for")
	}
}
