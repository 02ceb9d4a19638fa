package serving

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/kubeconfig"
)

// certFiles is a certificate and its key as PEM.
type certFiles struct{ cert, key []byte }

// newCertFiles makes a self-signed certificate for 127.0.0.1 called cn.
func newCertFiles(t *testing.T, cn string) certFiles {
	t.Helper()
	cert, certPEM, err := kubeconfig.SelfSignedCertificate(cn, time.Hour, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return certFiles{cert: certPEM, key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})}
}

// write writes the pair to dir/tls.crt and dir/tls.key and returns their paths.
func (f certFiles) write(t *testing.T, dir string) (certPath, keyPath string) {
	t.Helper()
	certPath, keyPath = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	writeFile(t, certPath, f.cert)
	writeFile(t, keyPath, f.key)
	return certPath, keyPath
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// logBuffer is a concurrency-safe buffer for a test logger.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// tlsServer accepts TLS connections with cfg on a loopback port, completing each
// handshake, until the test ends; it returns the address.
func tlsServer(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// servedCommonName returns the common name of the certificate addr serves.
func servedCommonName(t *testing.T, addr string) string {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].Subject.CommonName
}

// eventuallyServes polls until addr serves the certificate called cn; bounded by a
// number of attempts, not by a clock.
func eventuallyServes(t *testing.T, addr, cn string) {
	t.Helper()
	var got string
	for range 200 {
		if got = servedCommonName(t, addr); got == cn {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the server still serves %q, want %q", got, cn)
}

func TestServingTLS_NextHandshakeGetsTheRewrittenCertificate(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := newCertFiles(t, "first").write(t, dir)
	var logs logBuffer
	o := NewOptions()
	o.TLSCertFile, o.TLSPrivateKeyFile, o.FileCheckInterval = certPath, keyPath, 0
	cfg, err := o.servingTLS(slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientAuth != tls.RequestClientCert {
		t.Errorf("ClientAuth = %v, want RequestClientCert (the authenticators verify)", cfg.ClientAuth)
	}
	addr := tlsServer(t, cfg)
	if got := servedCommonName(t, addr); got != "first" {
		t.Fatalf("serves %q, want first", got)
	}

	newCertFiles(t, "second").write(t, dir)
	eventuallyServes(t, addr, "second")

	// A certificate without its key (written first, as a rotation might) keeps the
	// last good pair and says so once.
	writeFile(t, certPath, newCertFiles(t, "third").cert)
	for range 3 {
		if got := servedCommonName(t, addr); got != "second" {
			t.Fatalf("after a mismatched pair the server serves %q, want the previous second", got)
		}
	}
	if n := strings.Count(logs.String(), "does not load; keeping the previous one"); n != 1 {
		t.Errorf("the mismatched pair was logged %d times, want once:\n%s", n, logs.String())
	}
	third := newCertFiles(t, "third")
	third.write(t, dir)
	eventuallyServes(t, addr, "third")
}

func TestServingTLS_RefusesUnusableCertificates(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := newCertFiles(t, "c").write(t, dir)
	tests := []struct {
		name    string
		set     func(o *Options)
		wantErr string
	}{
		{name: "a certificate without a key", set: func(o *Options) { o.TLSCertFile = certPath }, wantErr: "go together"},
		{name: "a missing file", set: func(o *Options) { o.TLSCertFile, o.TLSPrivateKeyFile = certPath, filepath.Join(dir, "nope") }, wantErr: "nope"},
		{name: "a key that is not the certificate's", set: func(o *Options) { o.TLSCertFile, o.TLSPrivateKeyFile = certPath, certPath }, wantErr: "serving certificate from"},
		{name: "no certificate at all", set: func(*Options) {}, wantErr: "no serving certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOptions()
			tt.set(o)
			_, err := o.servingTLS(slog.New(slog.DiscardHandler))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("servingTLS = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	o := NewOptions()
	o.TLSCertFile, o.TLSPrivateKeyFile = certPath, keyPath
	if _, err := o.servingTLS(slog.New(slog.DiscardHandler)); err != nil {
		t.Errorf("servingTLS with a good pair = %v", err)
	}
}

func TestReloadingFiles_ClientCABundleFollowsItsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ca.crt")
	first, second := newCertFiles(t, "first CA"), newCertFiles(t, "second CA")
	writeFile(t, path, first.cert)
	ca, err := newReloadingFiles("client CA", 0, slog.New(slog.DiscardHandler), parseCABundle, path)
	if err != nil {
		t.Fatal(err)
	}
	trusts := func(pem []byte) bool {
		block, _ := pemDecode(pem)
		cert, err := x509.ParseCertificate(block)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cert.Verify(x509.VerifyOptions{Roots: ca.get()})
		return err == nil
	}
	if !trusts(first.cert) || trusts(second.cert) {
		t.Fatal("the bundle does not trust exactly the first CA")
	}
	writeFile(t, path, append(append([]byte{}, first.cert...), second.cert...))
	if !trusts(first.cert) || !trusts(second.cert) {
		t.Error("after adding the second CA to the file, the bundle does not trust both")
	}
	writeFile(t, path, []byte("garbage"))
	if !trusts(second.cert) {
		t.Error("a garbage bundle replaced the last good one")
	}
	if _, err := newReloadingFiles("client CA", 0, slog.New(slog.DiscardHandler), parseCABundle, path); !errors.Is(err, errNoCertificate) {
		t.Errorf("loading a garbage bundle = %v, want errNoCertificate", err)
	}
}

func pemDecode(data []byte) ([]byte, bool) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, false
	}
	return block.Bytes, true
}

// certPEM returns the PEM of c's leaf certificate.
func certPEM(c *tls.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]})
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
