package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// etcdPKI is a CA with the certificates of one etcd server on 127.0.0.1 and of one
// client, written as PEM files in a test's directory.
type etcdPKI struct {
	dir                     string
	caFile, srvCert, srvKey string
	clientCert, clientKey   string
	pool                    *x509.CertPool
	clientPair              tls.Certificate
}

func newEtcdPKI(t *testing.T) *etcdPKI {
	t.Helper()
	p := &etcdPKI{dir: t.TempDir(), pool: x509.NewCertPool()}
	caKey, ca := p.issue(t, "etcd-ca", nil, nil, nil)
	p.caFile = p.write(t, "ca.crt", "CERTIFICATE", ca.Raw)
	p.pool.AddCert(ca)
	srvKey, srv := p.issue(t, "etcd-server", ca, caKey, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth})
	p.srvCert, p.srvKey = p.write(t, "server.crt", "CERTIFICATE", srv.Raw), p.writeKey(t, "server.key", srvKey)
	cliKey, cli := p.issue(t, "apikit", ca, caKey, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth})
	p.clientCert, p.clientKey = p.write(t, "client.crt", "CERTIFICATE", cli.Raw), p.writeKey(t, "client.key", cliKey)
	pair, err := tls.LoadX509KeyPair(p.clientCert, p.clientKey)
	if err != nil {
		t.Fatal(err)
	}
	p.clientPair = pair
	return p
}

// issue makes a certificate for cn signed by parent, or a self-signed CA when parent
// is nil; leaves are valid for 127.0.0.1.
func (p *etcdPKI) issue(t *testing.T, cn string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, usage []x509.ExtKeyUsage) (*ecdsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		BasicConstraintsValid: true, ExtKeyUsage: usage,
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if parent == nil {
		tmpl.IsCA, tmpl.KeyUsage = true, x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature
		parent, parentKey = tmpl, key
	} else {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert
}

func (p *etcdPKI) write(t *testing.T, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func (p *etcdPKI) writeKey(t *testing.T, name string, key *ecdsa.PrivateKey) string {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return p.write(t, name, "EC PRIVATE KEY", der)
}

// startTLSEtcd starts etcd serving clients over TLS and requiring a client certificate
// signed by the PKI's CA.
func startTLSEtcd(t *testing.T, p *etcdPKI) string {
	t.Helper()
	cfg := testEtcdConfig(t.TempDir(), url.URL{Scheme: "https", Host: "127.0.0.1:0"})
	cfg.ClientTLSInfo = transport.TLSInfo{CertFile: p.srvCert, KeyFile: p.srvKey, TrustedCAFile: p.caFile, ClientCertAuth: true}
	return runTestEtcd(t, cfg).Endpoint
}

// TestEtcd_TLSWithClientCertificates: a Store reaches an etcd that requires client
// certificates with Options.TLS, and without a certificate New fails.
func TestEtcd_TLSWithClientCertificates(t *testing.T) {
	p := newEtcdPKI(t)
	endpoint := startTLSEtcd(t, p)
	s := scheme.New()
	if err := storagetest.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	newStore := func(cfg *tls.Config) (*etcdstore.Store, error) {
		ctx, cancel := context.WithTimeout(context.Background(), etcdReadyTimeout)
		defer cancel()
		return etcdstore.New(ctx, etcdstore.Options{
			Endpoints: []string{endpoint}, TLS: cfg, Codec: etcdstore.NewCodec(s), DialTimeout: 2 * time.Second,
		})
	}
	t.Run("with a client certificate", func(t *testing.T) {
		st, err := newStore(&tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{p.clientPair}, MinVersion: tls.VersionTLS12})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		key := storage.Key(storagetest.Widgets, "ns1", "a")
		if _, err := st.Create(t.Context(), key, storagetest.NewWidget("ns1", "a", nil, 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(t.Context(), key, storage.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("without a client certificate New fails", func(t *testing.T) {
		st, err := newStore(&tls.Config{RootCAs: p.pool, MinVersion: tls.VersionTLS12})
		if err == nil {
			st.Close()
			t.Fatal("New succeeded without the client certificate etcd requires")
		}
	})
	t.Run("without trusting the server New fails", func(t *testing.T) {
		st, err := newStore(&tls.Config{Certificates: []tls.Certificate{p.clientPair}, MinVersion: tls.VersionTLS12})
		if err == nil {
			st.Close()
			t.Fatal("New succeeded with a server certificate no root vouches for")
		}
	})
}
