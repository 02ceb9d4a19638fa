package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
)

// Why TLS at all: kubectl and client-go's clientcmd send the credentials of a kubeconfig
// (token, basic auth, client certificates, exec plugins) only to https servers; over
// plain http they send none, and the server refuses bearer tokens there. So the server
// answers plain HTTP (public health checks, curl) and TLS on the same port, and the
// kubeconfig it writes points at https.

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

// tlsState returns the TLS state of the connection, ok=false when it speaks plain HTTP.
func (c *sniffedConn) tlsState() (tls.ConnectionState, bool) {
	c.choose()
	tc, ok := c.conn.(*tls.Conn)
	if !ok {
		return tls.ConnectionState{}, false
	}
	return tc.ConnectionState(), true
}

// connKey is the context key under which withConn stores a request's connection.
type connKey struct{}

// withConn is the http.Server's ConnContext: it keeps the connection for withTLSState.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// withTLSState gives requests that came over TLS through dualListener their r.TLS:
// net/http fills it only for a *tls.Conn, which a sniffed connection wraps. Without it
// the handler would take TLS requests for plain HTTP, refusing their bearer tokens and
// seeing no client certificate.
func withTLSState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := r.Context().Value(connKey{}).(*sniffedConn); ok && r.TLS == nil {
			if state, ok := c.tlsState(); ok {
				r = r.WithContext(r.Context()) // a shallow copy: a handler does not change its request
				r.TLS = &state
			}
		}
		next.ServeHTTP(w, r)
	})
}
