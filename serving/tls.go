package serving

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// The timeouts of the http.Server that HTTPServer returns, kube-apiserver's.
const (
	// ReadHeaderTimeout bounds how long a client may take to send a request's headers:
	// just shy of kube's upper bound for a request's timeout.
	ReadHeaderTimeout = 32 * time.Second
	// IdleTimeout closes a keep-alive connection after this long without a request,
	// matching http.DefaultTransport's keep-alive timeout as kube does.
	IdleTimeout = 90 * time.Second
	// MaxHeaderBytes caps the size of a request's headers.
	MaxHeaderBytes = 1 << 20
)

// errNoServingCertificate is Build's error when there is no certificate to serve.
var errNoServingCertificate = errors.New("no serving certificate: give -tls-cert-file and -tls-private-key-file, or set Options.DefaultCertificate")

// servingTLS returns the server's TLS configuration: the certificate of the files
// (reloaded when they change) or DefaultCertificate, and client certificates requested
// but not verified by the handshake, so that the x509 and requestheader authenticators
// verify them per request against CAs that may be reloaded meanwhile, and so that a
// request without a certificate still reaches token authentication.
func (o *Options) servingTLS(log *slog.Logger) (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		ClientAuth: tls.RequestClientCert,
		NextProtos: []string{"h2", "http/1.1"},
	}
	switch {
	case o.TLSCertFile != "" && o.TLSPrivateKeyFile != "":
		cert, err := newReloadingFiles("serving certificate", o.FileCheckInterval, log, parseKeyPair, o.TLSCertFile, o.TLSPrivateKeyFile)
		if err != nil {
			return nil, err
		}
		cfg.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return cert.get(), nil }
	case o.TLSCertFile != "" || o.TLSPrivateKeyFile != "":
		return nil, errors.New("-tls-cert-file and -tls-private-key-file go together")
	case o.DefaultCertificate != nil:
		cfg.Certificates = []tls.Certificate{*o.DefaultCertificate}
	default:
		return nil, errNoServingCertificate
	}
	return cfg, nil
}

// HTTPServer returns an http.Server for handler with the TLS configuration of c and
// kube-apiserver's limits: ReadHeaderTimeout, IdleTimeout (so idle keep-alive
// connections are closed) and MaxHeaderBytes. Serve it with ListenAndServeTLS("", "")
// or ServeTLS(listener, "", ""): the certificate comes from the TLS configuration.
func (c *Config) HTTPServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		TLSConfig:         c.TLS,
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
}
