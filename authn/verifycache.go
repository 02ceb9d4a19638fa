package authn

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"slices"
	"sync"
	"time"
)

// verifiedChains remembers which presented certificate chains verified against which
// CA pool, so that a client that sends many requests over a connection is not verified
// again on each: the signature checks of one verification cost about 100 µs, more than
// serving a small GET. kube-apiserver verifies on every request; the answer is the same,
// because verification depends only on the certificates, the pool and the time, and an
// entry holds only until the first certificate of the chain expires. A reloaded CA file
// or ConfigMap is a new pool, which misses. Failures are not kept.
//
// Entries are found by the leaf's *x509.Certificate: net/http hands every request of a
// connection the same parsed certificates, so the lookup costs no hashing; the entry
// also holds the presented intermediates, which must be the same ones. The cache is
// bounded: when full, an arbitrary entry goes.
type verifiedChains struct {
	mu      sync.Mutex
	entries map[*x509.Certificate]verifiedChain
}

// verifiedChain is one success: the intermediates presented with the leaf, the pool it
// verified against, the window in which every certificate of its chain is valid, and
// the leaf's credential id (kube's X509SHA256= fingerprint), computed once.
type verifiedChain struct {
	intermediates       []*x509.Certificate
	roots               *x509.CertPool
	notBefore, notAfter time.Time
	credentialID        string
}

// maxVerifiedChains bounds the cache: enough for every client of a busy server.
const maxVerifiedChains = 4096

// verified is the process's cache, shared by the X509 and RequestHeader authenticators:
// both verify chains the same way (for client authentication), so a success of one is a
// success of the other.
var verified = &verifiedChains{entries: make(map[*x509.Certificate]verifiedChain)}

// lookup returns the credential id of the presented chain peers (leaf first) when it
// verified against roots and is valid at now.
func (v *verifiedChains) lookup(peers []*x509.Certificate, roots *x509.CertPool, now time.Time) (string, bool) {
	v.mu.Lock()
	e, ok := v.entries[peers[0]]
	v.mu.Unlock()
	if !ok || e.roots != roots || now.Before(e.notBefore) || !now.Before(e.notAfter) || !slices.Equal(e.intermediates, peers[1:]) {
		return "", false
	}
	return e.credentialID, true
}

// add records that the presented chain peers verified against roots as chains, and
// returns the leaf's credential id.
func (v *verifiedChains) add(peers []*x509.Certificate, roots *x509.CertPool, chains [][]*x509.Certificate) string {
	sum := sha256.Sum256(peers[0].Raw)
	id := "X509SHA256=" + hex.EncodeToString(sum[:])
	if len(chains) == 0 {
		return id
	}
	// The window every verified chain shares; any one of them suffices, but a chain
	// through a shorter-lived intermediate must not extend the entry.
	e := verifiedChain{intermediates: slices.Clone(peers[1:]), roots: roots, credentialID: id}
	for _, chain := range chains {
		for _, c := range chain {
			if e.notBefore.IsZero() || c.NotBefore.After(e.notBefore) {
				e.notBefore = c.NotBefore
			}
			if e.notAfter.IsZero() || c.NotAfter.Before(e.notAfter) {
				e.notAfter = c.NotAfter
			}
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.entries[peers[0]]; !ok && len(v.entries) >= maxVerifiedChains {
		for k := range v.entries {
			delete(v.entries, k)
			break
		}
	}
	v.entries[peers[0]] = e
	return id
}
