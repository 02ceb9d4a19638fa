package authn

import (
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// X509 authenticates a verified TLS client certificate: chain verified against
// ClientCA() with ExtKeyUsageClientAuth, at the request's time; CN = user name,
// O = groups (+ system:authenticated). No certificate: ok=false, nil error. Expired,
// wrong CA, wrong usage: an error (401), as kube.
//
// It is kube-apiserver's --client-ca-file authenticator with its CommonName user
// conversion: intermediates are taken from the rest of the presented chain; a
// certificate without a CN is no credential; the user's UID is the subject's UID
// attribute (OID 0.9.2342.19200300.100.1.1, kube's AllowParsingUserUIDFromCertAuth, on
// by default), and more than one or an empty one is an error; the user's extra
// "authentication.kubernetes.io/credential-id" is "X509SHA256=" and the hex SHA-256 of
// the certificate.
//
// The server's tls.Config must ask for client certificates without verifying them
// itself (tls.RequestClientCert), or verify them against the same pool
// (tls.VerifyClientCertIfGiven): verification happens here, per request, so that the
// pool may change.
type X509 struct {
	// ClientCA returns the current CA pool (called per request, so it may change:
	// the serving package reloads files and ConfigMaps). nil or a nil pool: ok=false.
	ClientCA func() *x509.CertPool
}

// CredentialIDKey is the user extra key under which kube-apiserver records which
// credential authenticated a request.
const CredentialIDKey = "authentication.kubernetes.io/credential-id"

// uidOID is the X.500 UID attribute (RFC 4519), kube's asn1.X509UID.
var uidOID = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}

// Authenticate implements Authenticator.
func (a X509) Authenticate(r *http.Request) (*User, bool, error) {
	cert, credentialID, ok, err := verifyClientCertificate(r, a.ClientCA)
	if !ok || err != nil {
		return nil, false, err
	}
	if cert.Subject.CommonName == "" {
		return nil, false, nil
	}
	uid, err := certificateUID(cert)
	if err != nil {
		return nil, false, err
	}
	return withAuthenticatedGroup(&User{
		Name:   cert.Subject.CommonName,
		UID:    uid,
		Groups: slices.Clone(cert.Subject.Organization),
		Extra:  map[string][]string{CredentialIDKey: {credentialID}},
	}), true, nil
}

// verifyClientCertificate verifies the leaf certificate of r's TLS connection against
// the pool clientCA returns, for client authentication, now, with the other presented
// certificates as intermediates, and returns it with its credential id. ok=false
// without a certificate or without a pool.
func verifyClientCertificate(r *http.Request, clientCA func() *x509.CertPool) (cert *x509.Certificate, credentialID string, ok bool, err error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 || clientCA == nil {
		return nil, "", false, nil
	}
	// A nil Roots would mean the system's roots: no pool is no opinion instead.
	roots := clientCA()
	if roots == nil {
		return nil, "", false, nil
	}
	peers := r.TLS.PeerCertificates
	now := time.Now()
	if id, ok := verified.lookup(peers, roots, now); ok {
		return peers[0], id, true, nil
	}
	opts := x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if len(peers) > 1 {
		opts.Intermediates = x509.NewCertPool()
		for _, c := range peers[1:] {
			opts.Intermediates.AddCert(c)
		}
	}
	chains, err := peers[0].Verify(opts)
	if err != nil {
		return nil, "", false, fmt.Errorf("verifying certificate %s failed: %w", certificateIdentifier(peers[0]), err)
	}
	return peers[0], verified.add(peers, roots, chains), true, nil
}

// certificateIdentifier names a certificate in errors as kube does: serial number and
// key identifiers, which find it in a CA's records without showing its subject.
func certificateIdentifier(c *x509.Certificate) string {
	return fmt.Sprintf("SN=%d, SKID=%s, AKID=%s", c.SerialNumber, colonHex(c.SubjectKeyId), colonHex(c.AuthorityKeyId))
}

// colonHex writes b as upper-case hex bytes separated by colons (AB:CD:EF).
func colonHex(b []byte) string {
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("%02X", x)
	}
	return strings.Join(parts, ":")
}

// certificateUID returns the subject's UID attribute, "" without one.
func certificateUID(c *x509.Certificate) (string, error) {
	var uids []string
	for _, name := range c.Subject.Names {
		if !name.Type.Equal(uidOID) {
			continue
		}
		uid, ok := name.Value.(string)
		if !ok {
			return "", errors.New("unable to parse UID into a string")
		}
		uids = append(uids, uid)
	}
	switch {
	case len(uids) == 0:
		return "", nil
	case len(uids) > 1:
		return "", fmt.Errorf("expected 1 UID, but found multiple: %v", uids)
	case uids[0] == "":
		return "", errors.New("UID cannot be an empty string")
	}
	return uids[0], nil
}
