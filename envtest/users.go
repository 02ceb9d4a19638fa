package envtest

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/apikit-dev/apikit/authn"

	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
)

// User is a user to provision with AddUser, as in controller-runtime.
type User struct {
	// Name is the user's name.
	Name string
	// Groups are the groups the user belongs to.
	Groups []string
}

// AuthenticatedUser is a user AddUser provisioned, with a configuration that
// authenticates as it.
type AuthenticatedUser struct {
	cfg *rest.Config
}

// Config returns the client configuration of the user.
func (u *AuthenticatedUser) Config() *rest.Config { return u.cfg }

// KubeConfig returns a kubeconfig equivalent to Config.
func (u AuthenticatedUser) KubeConfig() ([]byte, error) {
	return apitest.Kubeconfig(u.cfg.Host, u.cfg.BearerToken, u.cfg.CAData), nil
}

// AddUser provisions a user authenticated by a bearer token of its own and returns its
// configuration: a copy of baseConfig (nil is an empty one; QPS and the like are kept)
// with the server's URL, CA and the token. The server authorizes every authenticated
// user for everything (there is no RBAC), so that Groups matter only to code that looks
// at the caller (admission, SelfSubjectReview). The environment must be started.
func (te *Environment) AddUser(user User, baseConfig *rest.Config) (*AuthenticatedUser, error) {
	te.mu.Lock()
	defer te.mu.Unlock()
	if te.srv == nil {
		return nil, errors.New("envtest: AddUser before Start: the environment is not started")
	}
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	te.users.add(token, apikitUser(user))
	if baseConfig == nil {
		baseConfig = &rest.Config{}
	}
	return &AuthenticatedUser{cfg: te.userConfig(token, baseConfig)}, nil
}

// userConfig returns a copy of base that reaches the server with token.
func (te *Environment) userConfig(token string, base *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(base)
	cfg.Host = te.srv.URL
	cfg.CAData = te.srv.CertificateAuthority
	cfg.BearerToken, cfg.BearerTokenFile = token, ""
	return cfg
}

// apikitUser returns the request user of u, in group system:authenticated as well, as
// kube-apiserver adds it to every authenticated user.
func apikitUser(u User) *authn.User {
	groups := append([]string(nil), u.Groups...)
	if !slices.Contains(groups, "system:authenticated") {
		groups = append(groups, "system:authenticated")
	}
	return &authn.User{Name: u.Name, Groups: groups}
}

// tokenUsers authenticates requests by bearer token; AddUser adds tokens while the
// server runs.
type tokenUsers struct {
	mu      sync.RWMutex
	byToken map[string]*authn.User
}

func (a *tokenUsers) add(token string, u *authn.User) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.byToken[token] = u
}

// Authenticate implements authn.Authenticator: a request without a known token is
// unauthenticated (401).
func (a *tokenUsers) Authenticate(r *http.Request) (*authn.User, bool, error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, false, nil
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	u, ok := a.byToken[strings.TrimSpace(token)]
	if !ok {
		return nil, false, nil
	}
	return u, true, nil
}

var _ authn.Authenticator = (*tokenUsers)(nil)
