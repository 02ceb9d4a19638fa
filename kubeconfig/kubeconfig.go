// Package kubeconfig writes what a local apikit server hands its clients: a kubeconfig
// that kubectl and client-go accept, and the self-signed certificate it trusts. The
// in-process test server (package apitest) and the example server both use it. Load reads
// the other way: an aggregated API server reaches its kube-apiserver through the
// kubeconfig it was given (package serving).
package kubeconfig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"
)

// New returns a kubeconfig (a v1 Config in YAML) with one cluster at serverURL that
// trusts the PEM certificates caPEM (none when empty), one user authenticating with the
// bearer token (none when token is empty) and one context joining them in the "default"
// namespace, which is also the current context; all three are called name. client-go's
// clientcmd and kubectl accept it as is; note that they send the token only when
// serverURL is https.
func New(name, serverURL, token string, caPEM []byte) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\npreferences: {}\n")
	b.WriteString("clusters:\n- name: " + name + "\n  cluster:\n    server: " + yamlString(serverURL) + "\n")
	if len(caPEM) > 0 {
		b.WriteString("    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM) + "\n")
	}
	b.WriteString("users:\n- name: " + name + "\n")
	if token == "" {
		b.WriteString("  user: {}\n")
	} else {
		b.WriteString("  user:\n    token: " + yamlString(token) + "\n")
	}
	b.WriteString("contexts:\n- name: " + name + "\n  context:\n    cluster: " + name +
		"\n    user: " + name + "\n    namespace: default\n")
	b.WriteString("current-context: " + name + "\n")
	return []byte(b.String())
}

// yamlString quotes s as a YAML double-quoted scalar: a JSON string is one.
func yamlString(s string) string {
	q, _ := json.Marshal(s) // a string always marshals
	return string(q)
}

// SelfSignedCertificate returns a server certificate for hosts (IP addresses or DNS
// names) signed by its own key, valid from an hour ago for validFor, and its PEM
// encoding for a kubeconfig's certificate-authority-data. It is a CA for client
// certificates too (its extended key usages allow them), so ClientCertificate can sign
// certificates for a server's -client-ca-file with it.
func SelfSignedCertificate(commonName string, validFor time.Duration, hosts ...string) (tls.Certificate, []byte, error) {
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"apikit"}},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return newCertificate(tmpl, validFor, nil)
}

// ClientCertificate returns a client certificate for user commonName in groups (its
// organizations, as kube's x509 authenticator reads them) signed by ca (such as one of
// SelfSignedCertificate), valid from an hour ago for validFor, and its PEM encoding.
func ClientCertificate(ca tls.Certificate, commonName string, groups []string, validFor time.Duration) (tls.Certificate, []byte, error) {
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName, Organization: groups},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return newCertificate(tmpl, validFor, &ca)
}

// newCertificate completes tmpl (serial, validity, a new P-256 key) and signs it with
// parent, or with its own key when parent is nil.
func newCertificate(tmpl *x509.Certificate, validFor time.Duration, parent *tls.Certificate) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("generating key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("generating serial: %w", err)
	}
	now := time.Now()
	tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter = serial, now.Add(-time.Hour), now.Add(validFor)
	signer, signerKey := tmpl, any(key)
	if parent != nil {
		if signer, err = leafOf(parent); err != nil {
			return tls.Certificate{}, nil, fmt.Errorf("reading the signing certificate: %w", err)
		}
		signerKey = parent.PrivateKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("creating certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("parsing certificate: %w", err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// leafOf returns c's parsed leaf certificate.
func leafOf(c *tls.Certificate) (*x509.Certificate, error) {
	if c.Leaf != nil {
		return c.Leaf, nil
	}
	if len(c.Certificate) == 0 {
		return nil, fmt.Errorf("no certificate")
	}
	return x509.ParseCertificate(c.Certificate[0])
}
