package authn

import (
	"crypto/sha256"
	"crypto/x509"
	"sync"
	"time"
)

// verifiedChains remembers which presented certificate chains verified against which
// CA pool, so that a client that sends many requests over its connections is not
// verified again on each: the signature checks of one verification cost about 100 µs,
// more than serving a small GET. kube-apiserver verifies on every request; the answer is
// the same, because verification depends only on the certificates, the pool and the
// time, and an entry holds only until the first certificate of the chain expires. A
// reloaded CA file or ConfigMap is a new pool, which misses. Failures are not kept.
// The cache is bounded: when full, an arbitrary entry goes.
type verifiedChains struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]verifiedChain
}

// verifiedChain is one success: the pool it verified against and the window in which
// every certificate of its chain is valid.
type verifiedChain struct {
	roots               *x509.CertPool
	notBefore, notAfter time.Time
}

// maxVerifiedChains bounds the cache: enough for every client of a busy server.
const maxVerifiedChains = 4096

// verified is the process's cache, shared by the X509 and RequestHeader authenticators:
// both verify chains the same way (for client authentication), so a success of one is a
// success of the other.
var verified = &verifiedChains{entries: make(map[[sha256.Size]byte]verifiedChain)}

// chainKey hashes the presented certificates, leaf first.
func chainKey(peers []*x509.Certificate) [sha256.Size]byte {
	h := sha256.New()
	for _, c := range peers {
		h.Write(c.Raw)
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// has tells whether the chain of key verified against roots and is valid at now.
func (v *verifiedChains) has(key [sha256.Size]byte, roots *x509.CertPool, now time.Time) bool {
	v.mu.Lock()
	e, ok := v.entries[key]
	v.mu.Unlock()
	return ok && e.roots == roots && !now.Before(e.notBefore) && now.Before(e.notAfter)
}

// add records that the chain of key verified against roots as chains.
func (v *verifiedChains) add(key [sha256.Size]byte, roots *x509.CertPool, chains [][]*x509.Certificate) {
	if len(chains) == 0 {
		return
	}
	// The window every verified chain shares; any one of them suffices, but a chain
	// through a shorter-lived intermediate must not extend the entry.
	e := verifiedChain{roots: roots}
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
	if _, ok := v.entries[key]; !ok && len(v.entries) >= maxVerifiedChains {
		for k := range v.entries {
			delete(v.entries, k)
			break
		}
	}
	v.entries[key] = e
}
