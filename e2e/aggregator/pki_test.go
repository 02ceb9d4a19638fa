package aggregator

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certificateAuthority is a test CA: the front-proxy CA that signs the aggregator's proxy
// client certificate, the cluster's client CA, or the CA of a serving certificate.
type certificateAuthority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA certificate, for a trust bundle or a kubeconfig.
	PEM []byte
}

// issuedCert is a certificate with its key, in the forms its users want: PEM for files
// and kubeconfigs, tls.Certificate for Go servers and clients.
type issuedCert struct {
	CertPEM, KeyPEM []byte
	TLS             tls.Certificate
}

// certValidity keeps test certificates valid for the whole run, started an hour back so
// that a clock step never makes one "not yet valid".
const certValidity = 24 * time.Hour

func newCertificateAuthority(commonName string) (*certificateAuthority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          newSerial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("CA %s: %w", commonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &certificateAuthority{cert: cert, key: key, PEM: encodePEM("CERTIFICATE", der)}, nil
}

// Pool is a pool holding only this CA.
func (ca *certificateAuthority) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// ClientCert issues a client certificate; kube's x509 authenticator reads CN as the user
// name and O as the groups.
func (ca *certificateAuthority) ClientCert(commonName string, groups ...string) (*issuedCert, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// ServingCert issues a server certificate for 127.0.0.1 and localhost.
func (ca *certificateAuthority) ServingCert(commonName string) (*issuedCert, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"localhost"},
	})
}

func (ca *certificateAuthority) issue(tmpl *x509.Certificate) (*issuedCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl.SerialNumber = newSerial()
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(certValidity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, fmt.Errorf("certificate %s: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	ic := &issuedCert{CertPEM: encodePEM("CERTIFICATE", der), KeyPEM: encodePEM("EC PRIVATE KEY", keyDER)}
	if ic.TLS, err = tls.X509KeyPair(ic.CertPEM, ic.KeyPEM); err != nil {
		return nil, err
	}
	return ic, nil
}

// WriteFiles writes the certificate and key as NAME.crt and NAME.key into dir, the way
// kube's --*-cert-file and --*-key-file flags want them, and returns both paths.
func (ic *issuedCert) WriteFiles(dir, name string) (certFile, keyFile string, err error) {
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(certFile, ic.CertPEM, 0o600); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(keyFile, ic.KeyPEM, 0o600); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

func encodePEM(blockType string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
}

func newSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}
