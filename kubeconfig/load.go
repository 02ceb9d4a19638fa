package kubeconfig

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"
)

// Client is what a kubeconfig's current context says about reaching its cluster: the
// server's base URL and an HTTP client that trusts the cluster's certificate authority
// and presents the user's credentials (client certificate, bearer token). An aggregated
// API server uses one to call its kube-apiserver (TokenReview, SubjectAccessReview, the
// extension-apiserver-authentication ConfigMap).
type Client struct {
	// Server is the cluster's base URL, such as https://10.0.0.1:6443, without a
	// trailing slash.
	Server string
	// Namespace is the current context's namespace ("" when it names none).
	Namespace string
	// HTTP sends requests to Server with the user's credentials. It has no overall
	// timeout: callers bound their requests with contexts or set one on a copy.
	HTTP *http.Client
}

// tokenFileRefresh is how long a token read from a user's tokenFile is used before the
// file is read again, so that a rotated (projected service account) token is picked up
// as client-go's cached token source picks it up.
const tokenFileRefresh = time.Minute

// Load reads the kubeconfig file at path and returns the Client of its current context.
// It understands what a kubeconfig for a service or an aggregated API server holds:
// the cluster's server, certificate-authority or certificate-authority-data,
// insecure-skip-tls-verify and tls-server-name, and the user's token or tokenFile and
// client-certificate(-data) with client-key(-data). Relative file names are relative to
// the kubeconfig's directory, as kubectl reads them. Credentials Load cannot use (exec
// plugins, auth providers, basic auth) are an error rather than silently dropped. Errors
// name the file and the missing or broken piece, never a secret.
func Load(path string) (*Client, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	var cfg config
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	c, err := cfg.client(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return c, nil
}

// config is the part of a kubeconfig (clientcmd's v1 Config) that Load reads.
type config struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string  `json:"name"`
		Cluster cluster `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User user   `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster   string `json:"cluster"`
			User      string `json:"user"`
			Namespace string `json:"namespace"`
		} `json:"context"`
	} `json:"contexts"`
}

type cluster struct {
	Server                   string `json:"server"`
	CertificateAuthority     string `json:"certificate-authority"`
	CertificateAuthorityData []byte `json:"certificate-authority-data"`
	InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify"`
	TLSServerName            string `json:"tls-server-name"`
}

type user struct {
	Token                 string `json:"token"`
	TokenFile             string `json:"tokenFile"`
	ClientCertificate     string `json:"client-certificate"`
	ClientCertificateData []byte `json:"client-certificate-data"`
	ClientKey             string `json:"client-key"`
	ClientKeyData         []byte `json:"client-key-data"`
	Username              string `json:"username"`
	Exec                  any    `json:"exec"`
	AuthProvider          any    `json:"auth-provider"`
}

// client resolves the current context; dir is the kubeconfig's directory.
func (cfg *config) client(dir string) (*Client, error) {
	if cfg.CurrentContext == "" {
		return nil, errors.New("no current-context")
	}
	var clusterName, userName, namespace string
	found := false
	for _, c := range cfg.Contexts {
		if c.Name == cfg.CurrentContext {
			clusterName, userName, namespace, found = c.Context.Cluster, c.Context.User, c.Context.Namespace, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("current-context %q is not among its contexts", cfg.CurrentContext)
	}
	var cl *cluster
	for i := range cfg.Clusters {
		if cfg.Clusters[i].Name == clusterName {
			cl = &cfg.Clusters[i].Cluster
			break
		}
	}
	if cl == nil {
		return nil, fmt.Errorf("context %q names cluster %q, which is not among its clusters", cfg.CurrentContext, clusterName)
	}
	u := &user{} // a context without a user sends no credentials
	if userName != "" {
		u = nil
		for i := range cfg.Users {
			if cfg.Users[i].Name == userName {
				u = &cfg.Users[i].User
				break
			}
		}
		if u == nil {
			return nil, fmt.Errorf("context %q names user %q, which is not among its users", cfg.CurrentContext, userName)
		}
	}

	server, err := serverURL(clusterName, cl.Server)
	if err != nil {
		return nil, err
	}
	tlsConfig, err := cl.tlsConfig(clusterName, dir)
	if err != nil {
		return nil, err
	}
	if err := u.addClientCertificate(tlsConfig, userName, dir); err != nil {
		return nil, err
	}
	auth, err := u.authorization(userName, dir)
	if err != nil {
		return nil, err
	}
	if auth != nil && !strings.HasPrefix(server, "https://") {
		// client-go sends no credentials to a plain http server either.
		return nil, fmt.Errorf("user %q has a bearer token but cluster %q is not https", userName, clusterName)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	var rt http.RoundTripper = transport
	if auth != nil {
		rt = &bearerRoundTripper{next: transport, token: auth}
	}
	return &Client{Server: server, Namespace: namespace, HTTP: &http.Client{Transport: rt}}, nil
}

func serverURL(clusterName, server string) (string, error) {
	if server == "" {
		return "", fmt.Errorf("cluster %q has no server", clusterName)
	}
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("cluster %q: server %q is not an http(s) URL", clusterName, server)
	}
	return strings.TrimSuffix(server, "/"), nil
}

// tlsConfig is the TLS configuration that trusts the cluster's certificate authority.
func (cl *cluster) tlsConfig(clusterName, dir string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cl.TLSServerName}
	caPEM, err := dataOrFile(cl.CertificateAuthorityData, cl.CertificateAuthority, dir)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: certificate-authority: %w", clusterName, err)
	}
	switch {
	case cl.InsecureSkipTLSVerify && caPEM != nil:
		return nil, fmt.Errorf("cluster %q has both insecure-skip-tls-verify and a certificate authority", clusterName)
	case cl.InsecureSkipTLSVerify:
		cfg.InsecureSkipVerify = true
	case caPEM != nil:
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("cluster %q: certificate-authority holds no PEM certificate", clusterName)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// addClientCertificate adds the user's client certificate, if any, to cfg.
func (u *user) addClientCertificate(cfg *tls.Config, userName, dir string) error {
	certPEM, err := dataOrFile(u.ClientCertificateData, u.ClientCertificate, dir)
	if err != nil {
		return fmt.Errorf("user %q: client-certificate: %w", userName, err)
	}
	keyPEM, err := dataOrFile(u.ClientKeyData, u.ClientKey, dir)
	if err != nil {
		return fmt.Errorf("user %q: client-key: %w", userName, err)
	}
	switch {
	case certPEM == nil && keyPEM == nil:
		return nil
	case certPEM == nil:
		return fmt.Errorf("user %q has a client-key but no client-certificate", userName)
	case keyPEM == nil:
		return fmt.Errorf("user %q has a client-certificate but no client-key", userName)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// tls.X509KeyPair's errors describe the PEM blocks, never the key's bytes.
		return fmt.Errorf("user %q: client certificate and key: %w", userName, err)
	}
	cfg.Certificates = []tls.Certificate{cert}
	return nil
}

// authorization returns the user's bearer token source, nil when the user has none.
func (u *user) authorization(userName, dir string) (*tokenSource, error) {
	switch {
	case u.Exec != nil:
		return nil, fmt.Errorf("user %q uses an exec credential plugin, which is not supported here", userName)
	case u.AuthProvider != nil:
		return nil, fmt.Errorf("user %q uses an auth-provider, which is not supported here", userName)
	case u.Username != "":
		return nil, fmt.Errorf("user %q uses basic authentication, which is not supported here", userName)
	case u.Token != "":
		return &tokenSource{token: u.Token}, nil
	case u.TokenFile != "":
		ts := &tokenSource{file: resolve(u.TokenFile, dir)}
		if _, err := ts.get(); err != nil {
			return nil, fmt.Errorf("user %q: tokenFile: %w", userName, err)
		}
		return ts, nil
	}
	return nil, nil
}

// dataOrFile returns data when set, else the contents of file (relative to dir), else
// nil.
func dataOrFile(data []byte, file, dir string) ([]byte, error) {
	if len(data) > 0 {
		return data, nil
	}
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(resolve(file, dir))
	if err != nil {
		return nil, err
	}
	return b, nil
}

func resolve(file, dir string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(dir, file)
}

// tokenSource is a bearer token, fixed or read from a file that may be rotated.
type tokenSource struct {
	token string // the fixed token, or the one last read from file
	file  string

	mu   sync.Mutex
	read time.Time
}

// get returns the token, reading file again once tokenFileRefresh has passed.
func (ts *tokenSource) get() (string, error) {
	if ts.file == "" {
		return ts.token, nil
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.token != "" && time.Since(ts.read) < tokenFileRefresh {
		return ts.token, nil
	}
	b, err := os.ReadFile(ts.file)
	if err != nil {
		if ts.token != "" {
			return ts.token, nil // keep the last good token over a transient failure
		}
		return "", err
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("%s is empty", ts.file)
	}
	ts.token, ts.read = token, time.Now()
	return token, nil
}

// bearerRoundTripper adds "Authorization: Bearer <token>" to requests that carry no
// Authorization of their own.
type bearerRoundTripper struct {
	next  http.RoundTripper
	token *tokenSource
}

// RoundTrip implements http.RoundTripper.
func (rt *bearerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") != "" {
		return rt.next.RoundTrip(r)
	}
	token, err := rt.token.get()
	if err != nil {
		if r.Body != nil {
			_ = r.Body.Close() // a RoundTripper closes the body, even on errors
		}
		return nil, fmt.Errorf("kubeconfig bearer token: %w", err)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return rt.next.RoundTrip(r)
}
