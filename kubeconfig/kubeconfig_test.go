package kubeconfig

import (
	"crypto/x509"
	"encoding/pem"
	"slices"
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

func TestClientCertificate_VerifiesAgainstItsCAForClientAuth(t *testing.T) {
	ca, caPEM, err := SelfSignedCertificate("ca", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := SelfSignedCertificate("other", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, certPEM, err := ClientCertificate(ca, "alice", []string{"system:masters", "devs"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	opts := x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := cert.Leaf.Verify(opts); err != nil {
		t.Errorf("the client certificate does not verify against its CA: %v", err)
	}
	groups := slices.Sorted(slices.Values(cert.Leaf.Subject.Organization)) // a SET in DER: order is not kept
	if got := cert.Leaf.Subject; got.CommonName != "alice" || strings.Join(groups, ",") != "devs,system:masters" {
		t.Errorf("subject %v, want CN alice and O system:masters,devs", got)
	}
	if block, _ := pem.Decode(certPEM); block == nil || string(block.Bytes) != string(cert.Certificate[0]) {
		t.Error("the PEM is not the certificate")
	}
	foreign, _, err := ClientCertificate(other, "alice", nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := foreign.Leaf.Verify(opts); err == nil {
		t.Error("a certificate of another CA verifies")
	}
}
