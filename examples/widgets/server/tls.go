package server

import (
	"bufio"
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
	"sync"
	"time"
)

// Why TLS at all: kubectl and client-go's clientcmd send the credentials of a kubeconfig
// (token, basic auth, client certificates, exec plugins) only to https servers; over
// plain http they send none. So the server answers plain HTTP and TLS on the same port,
// and the kubeconfig it writes points at https with a certificate made at start.

// selfSignedCert returns a certificate for hosts (IP addresses or DNS names), signed by
// its own key, valid for a year, and its PEM encoding for certificate-authority-data.
func selfSignedCert(hosts []string) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("generating key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("generating serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "widgets example server", Organization: []string{"apikit"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
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
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
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

// tlsRecordHandshake is the first byte of every TLS connection (a handshake record).
const tlsRecordHandshake = 0x16

// dualListener hands out connections that speak TLS when the client starts a TLS
// handshake and plain HTTP otherwise.
type dualListener struct {
	net.Listener
	config *tls.Config
}

// Accept returns the next connection; whether it is TLS is decided on its first read, so
// a silent client never holds up the others.
func (l dualListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &sniffedConn{Conn: c, config: l.config}, nil
}

// sniffedConn is a connection whose protocol (TLS or plain) is chosen by the first byte
// the client sends.
type sniffedConn struct {
	net.Conn // the raw connection
	config   *tls.Config
	once     sync.Once
	conn     net.Conn // what reads and writes go through once chosen
}

func (c *sniffedConn) choose() {
	c.once.Do(func() {
		r := bufio.NewReader(c.Conn)
		first, err := r.Peek(1)
		peeked := &peekedConn{Conn: c.Conn, r: r}
		if err == nil && first[0] == tlsRecordHandshake {
			c.conn = tls.Server(peeked, c.config)
			return
		}
		c.conn = peeked
	})
}

// Read implements net.Conn.
func (c *sniffedConn) Read(p []byte) (int, error) {
	c.choose()
	return c.conn.Read(p)
}

// Write implements net.Conn.
func (c *sniffedConn) Write(p []byte) (int, error) {
	c.choose()
	return c.conn.Write(p)
}

// peekedConn reads through the buffer that holds the peeked bytes.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

// Read implements net.Conn.
func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
