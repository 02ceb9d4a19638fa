package serving

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// reloadingFiles holds what was parsed from a set of files and parses them again when
// their contents change, checked at most once per interval and only when asked (on a
// TLS handshake, on a request), so nothing runs in the background. Contents that do not
// parse (a certificate written before its key, a truncated bundle) are logged once and
// the last good value stays: kube's dynamic certificate controllers behave the same.
type reloadingFiles[T any] struct {
	what     string // "serving certificate", "client CA", for messages
	paths    []string
	parse    func(contents [][]byte) (T, error)
	interval time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	current T
	seen    [][]byte  // the contents last parsed, good or bad
	checked time.Time // when the files were last read
}

// newReloadingFiles reads and parses paths once; that first parse must succeed.
func newReloadingFiles[T any](what string, interval time.Duration, log *slog.Logger, parse func([][]byte) (T, error), paths ...string) (*reloadingFiles[T], error) {
	r := &reloadingFiles[T]{what: what, paths: paths, parse: parse, interval: interval, log: log}
	contents, err := r.read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	v, err := parse(contents)
	if err != nil {
		return nil, fmt.Errorf("%s from %s: %w", what, strings.Join(paths, " and "), err)
	}
	r.current, r.seen, r.checked = v, contents, time.Now()
	return r, nil
}

// get returns the current value, first parsing the files again when the interval has
// passed and their contents changed.
func (r *reloadingFiles[T]) get() T {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.checked) < r.interval {
		return r.current
	}
	r.checked = time.Now()
	contents, err := r.read()
	if err != nil {
		r.log.Warn("serving: cannot read "+r.what+"; keeping the previous one", "err", err)
		return r.current
	}
	if slices.EqualFunc(contents, r.seen, bytes.Equal) {
		return r.current
	}
	r.seen = contents
	v, err := r.parse(contents)
	if err != nil {
		r.log.Error("serving: new "+r.what+" does not load; keeping the previous one", "files", r.paths, "err", err)
		return r.current
	}
	r.current = v
	r.log.Info("serving: reloaded "+r.what, "files", r.paths)
	return v
}

func (r *reloadingFiles[T]) read() ([][]byte, error) {
	contents := make([][]byte, len(r.paths))
	for i, p := range r.paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		contents[i] = b
	}
	return contents, nil
}

// parseKeyPair parses a PEM certificate chain and its key.
func parseKeyPair(contents [][]byte) (*tls.Certificate, error) {
	cert, err := tls.X509KeyPair(contents[0], contents[1])
	if err != nil {
		return nil, err
	}
	return &cert, nil
}

// parseCABundle parses a PEM bundle of one or more CA certificates.
func parseCABundle(contents [][]byte) (*x509.CertPool, error) {
	return caPool(contents[0])
}

// errNoCertificate is the error for a CA bundle without a certificate.
var errNoCertificate = errors.New("no PEM certificate in the bundle")

func caPool(pemBundle []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBundle) {
		return nil, errNoCertificate
	}
	return pool, nil
}
