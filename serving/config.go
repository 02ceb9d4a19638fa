package serving

import (
	"crypto/tls"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/rest"
)

// Config is what Build makes of Options: the pieces a host puts into rest.Options and
// its http.Server.
type Config struct {
	// Authenticator is the union of the configured authenticators in kube's order:
	// front proxy (requestheader), client certificates, the token file, the host's
	// own, TokenReview.
	Authenticator authn.Authenticator
	// AllowAnonymous is Options.AnonymousAuth, for rest.Options.AllowAnonymous.
	AllowAnonymous bool
	// Authorizer is the union, first decision wins, of the always-allowed paths, the
	// always-allowed groups, the host's authorizer and SubjectAccessReview.
	Authorizer authz.Authorizer
	// TLS serves the certificate of Options (reloaded when its files change) and
	// requests client certificates for the authenticators to verify.
	TLS *tls.Config
}

// ApplyTo sets the authentication and authorization fields of o (Authenticator,
// AllowAnonymous, Authorizer) to c's and returns o.
func (c *Config) ApplyTo(o rest.Options) rest.Options {
	o.Authenticator, o.AllowAnonymous, o.Authorizer = c.Authenticator, c.AllowAnonymous, c.Authorizer
	return o
}
