package serving

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/kubeconfig"
)

// Host is what the host program adds to the chains Build assembles.
type Host struct {
	// Authenticators are the host's own, such as a fixed admin token; they are tried
	// after the token file and before TokenReview.
	Authenticators []authn.Authenticator
	// Authorizer is the host's own authorization, such as RBAC over its storage; it is
	// asked after the always-allowed paths and groups and before SubjectAccessReview.
	Authorizer authz.Authorizer
}

// Build assembles what o describes, as k8s.io/apiserver's delegating options' ApplyTo
// do for a sample-apiserver:
//
//   - the serving TLS configuration (see Config.TLS);
//   - the authenticator, the union of, in kube's order: the front proxy
//     (requestheader: the flags when -requestheader-client-ca-file is given, else the
//     extension-apiserver-authentication ConfigMap), client certificates
//     (-client-ca-file, else the ConfigMap's client CA), the token file, host's
//     authenticators, and TokenReview (with -authentication-kubeconfig);
//   - the authorizer, the union of the always-allowed paths, the always-allowed groups,
//     host's authorizer, and SubjectAccessReview (with -authorization-kubeconfig).
//
// The ConfigMap is read once here (a failure is Build's error, as kube fails to start)
// and then refreshed every ConfigMapRefresh until ctx ends; certificate and CA files are
// re-read when they change. Build fails when nothing could authenticate a request and
// AnonymousAuth is off.
func (o *Options) Build(ctx context.Context, host Host) (*Config, error) {
	o = o.withDefaults()
	log := o.Logger
	tlsConfig, err := o.servingTLS(log)
	if err != nil {
		return nil, fmt.Errorf("serving: %w", err)
	}
	authenticator, err := o.authenticator(ctx, host, log)
	if err != nil {
		return nil, fmt.Errorf("serving: %w", err)
	}
	authorizer, err := o.authorizer(host)
	if err != nil {
		return nil, fmt.Errorf("serving: %w", err)
	}
	return &Config{Authenticator: authenticator, AllowAnonymous: o.AnonymousAuth, Authorizer: authorizer, TLS: tlsConfig}, nil
}

// withDefaults returns a copy of o with NewOptions' values in place of zero tuning
// fields, so that Options{} with a few fields set works.
func (o *Options) withDefaults() *Options {
	c, d := *o, NewOptions()
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	for _, f := range []struct{ v, def *time.Duration }{
		{&c.AuthenticationCacheTTL, &d.AuthenticationCacheTTL},
		{&c.AuthorizationAllowTTL, &d.AuthorizationAllowTTL},
		{&c.AuthorizationDenyTTL, &d.AuthorizationDenyTTL},
		{&c.DelegationTimeout, &d.DelegationTimeout},
		{&c.ConfigMapRefresh, &d.ConfigMapRefresh},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if c.FileCheckInterval < 0 {
		c.FileCheckInterval = 0
	}
	return &c
}

func (o *Options) authenticator(ctx context.Context, host Host, log *slog.Logger) (authn.Authenticator, error) {
	var client *kubeconfig.Client
	var cm *authenticationConfigMap
	if o.AuthenticationKubeconfig != "" {
		var err error
		if client, err = o.delegationClient(o.AuthenticationKubeconfig); err != nil {
			return nil, fmt.Errorf("-authentication-kubeconfig: %w", err)
		}
		if o.ClientCAFile == "" || o.RequestHeader.ClientCAFile == "" {
			if cm, err = newAuthenticationConfigMap(ctx, client, o.ConfigMapRefresh, log); err != nil {
				return nil, fmt.Errorf("-authentication-kubeconfig: %w", err)
			}
		}
	}

	var chain []authn.Authenticator
	switch {
	case o.RequestHeader.ClientCAFile != "":
		ca, err := newReloadingFiles("requestheader client CA", o.FileCheckInterval, log, parseCABundle, o.RequestHeader.ClientCAFile)
		if err != nil {
			return nil, err
		}
		rh := o.RequestHeader
		a := authn.RequestHeader{
			ClientCA: ca.get, AllowedNames: rh.AllowedNames,
			UsernameHeaders: rh.UsernameHeaders, UIDHeaders: rh.UIDHeaders, GroupHeaders: rh.GroupHeaders,
			ExtraHeaderPrefixes: rh.ExtraHeaderPrefixes,
		}
		if err := a.Validate(); err != nil {
			return nil, err
		}
		chain = append(chain, a)
	case cm != nil:
		chain = append(chain, &configMapRequestHeader{cm: cm})
	}
	switch {
	case o.ClientCAFile != "":
		ca, err := newReloadingFiles("client CA", o.FileCheckInterval, log, parseCABundle, o.ClientCAFile)
		if err != nil {
			return nil, err
		}
		chain = append(chain, authn.X509{ClientCA: ca.get})
	case cm != nil:
		chain = append(chain, authn.X509{ClientCA: cm.clientCA})
	}
	if o.TokenAuthFile != "" {
		tokens, err := authn.LoadTokenFile(o.TokenAuthFile)
		if err != nil {
			return nil, fmt.Errorf("-token-auth-file: %w", err)
		}
		chain = append(chain, tokens)
	}
	chain = append(chain, host.Authenticators...)
	if client != nil {
		chain = append(chain, &authn.TokenReview{Server: client.Server, Client: client.HTTP, CacheTTL: o.AuthenticationCacheTTL})
	}
	switch {
	case len(chain) > 0:
		return authn.Union(chain...), nil
	case o.AnonymousAuth:
		return nil, nil
	}
	return nil, errors.New("no authentication configured: give -client-ca-file, -requestheader-client-ca-file, -token-auth-file or -authentication-kubeconfig, or -anonymous-auth")
}

func (o *Options) authorizer(host Host) (authz.Authorizer, error) {
	var chain []authz.Authorizer
	if len(o.AlwaysAllowPaths) > 0 {
		chain = append(chain, authz.AlwaysAllowPaths(o.AlwaysAllowPaths...))
	}
	if len(o.AlwaysAllowGroups) > 0 {
		chain = append(chain, authz.PrivilegedGroups(o.AlwaysAllowGroups...))
	}
	if host.Authorizer != nil {
		chain = append(chain, host.Authorizer)
	}
	if o.AuthorizationKubeconfig != "" {
		client, err := o.delegationClient(o.AuthorizationKubeconfig)
		if err != nil {
			return nil, fmt.Errorf("-authorization-kubeconfig: %w", err)
		}
		chain = append(chain, &authz.SubjectAccessReview{Server: client.Server, Client: client.HTTP, AllowTTL: o.AuthorizationAllowTTL, DenyTTL: o.AuthorizationDenyTTL})
	}
	if len(chain) == 0 {
		return nil, errors.New("no authorization configured: give -authorization-kubeconfig or a host authorizer")
	}
	return authz.Union(chain...), nil
}

// delegationClient loads a kubeconfig for calls to the kube-apiserver, each bounded by
// DelegationTimeout.
func (o *Options) delegationClient(path string) (*kubeconfig.Client, error) {
	c, err := kubeconfig.Load(path)
	if err != nil {
		return nil, err
	}
	httpClient := *c.HTTP
	httpClient.Timeout = o.DelegationTimeout
	c.HTTP = &httpClient
	return c, nil
}

// configMapRequestHeader is the front-proxy authenticator of the ConfigMap's current
// requestheader configuration (none while the ConfigMap has none), rebuilt when a
// refresh changes it: header names and allowed names may change, not only the CA.
type configMapRequestHeader struct {
	cm    *authenticationConfigMap
	built atomic.Pointer[builtRequestHeader]
}

type builtRequestHeader struct {
	from *RequestHeaderConfig
	auth authn.RequestHeader
}

// Authenticate implements authn.Authenticator.
func (a *configMapRequestHeader) Authenticate(r *http.Request) (*authn.User, bool, error) {
	cfg := a.cm.requestHeader()
	if cfg == nil {
		return nil, false, nil
	}
	b := a.built.Load()
	if b == nil || b.from != cfg {
		b = &builtRequestHeader{from: cfg, auth: requestHeaderAuthenticator(cfg)}
		a.built.Store(b)
	}
	return b.auth.Authenticate(r)
}

// requestHeaderAuthenticator is the front-proxy authenticator of cfg.
func requestHeaderAuthenticator(cfg *RequestHeaderConfig) authn.RequestHeader {
	return authn.RequestHeader{
		ClientCA:            func() *x509.CertPool { return cfg.ClientCA },
		AllowedNames:        cfg.AllowedNames,
		UsernameHeaders:     cfg.UsernameHeaders,
		UIDHeaders:          cfg.UIDHeaders,
		GroupHeaders:        cfg.GroupHeaders,
		ExtraHeaderPrefixes: cfg.ExtraHeaderPrefixes,
	}
}
