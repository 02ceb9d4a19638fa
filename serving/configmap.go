package serving

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/kubeconfig"
)

// The ConfigMap in which kube-apiserver publishes how it authenticates to aggregated API
// servers: its client CA and its front-proxy (requestheader) configuration.
const (
	AuthenticationConfigMapNamespace = "kube-system"
	AuthenticationConfigMapName      = "extension-apiserver-authentication"
)

// AuthenticationConfig is the content of the extension-apiserver-authentication
// ConfigMap.
type AuthenticationConfig struct {
	// ClientCA is the client-ca-file bundle; nil when the ConfigMap has none.
	ClientCA *x509.CertPool
	// RequestHeader is the front-proxy configuration; nil when the ConfigMap has no
	// requestheader-client-ca-file.
	RequestHeader *RequestHeaderConfig

	data map[string]string // the ConfigMap's data, to tell whether a refresh changed it
}

// RequestHeaderConfig is a front-proxy authenticator's configuration: the CA that signs
// the proxy's client certificate, the names it may have and the headers it sets.
type RequestHeaderConfig struct {
	ClientCA                                  *x509.CertPool
	AllowedNames                              []string
	UsernameHeaders, UIDHeaders, GroupHeaders []string
	ExtraHeaderPrefixes                       []string
}

// FetchAuthenticationConfig reads the kube-system/extension-apiserver-authentication
// ConfigMap through c. The requestheader lists are JSON arrays in the ConfigMap, as
// kube-apiserver writes them.
func FetchAuthenticationConfig(ctx context.Context, c *kubeconfig.Client) (*AuthenticationConfig, error) {
	url := c.Server + "/api/v1/namespaces/" + AuthenticationConfigMapNamespace + "/configmaps/" + AuthenticationConfigMapName
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	if resp.StatusCode != http.StatusOK {
		var status struct{ Message string }
		_ = json.Unmarshal(body, &status)
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %s %s", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, resp.Status, status.Message)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(body, &cm); err != nil {
		return nil, fmt.Errorf("decoding ConfigMap %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	cfg, err := parseAuthenticationConfig(cm.Data)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	return cfg, nil
}

func parseAuthenticationConfig(data map[string]string) (*AuthenticationConfig, error) {
	cfg := &AuthenticationConfig{data: data}
	if ca := data["client-ca-file"]; ca != "" {
		pool, err := caPool([]byte(ca))
		if err != nil {
			return nil, fmt.Errorf("client-ca-file: %w", err)
		}
		cfg.ClientCA = pool
	}
	ca := data["requestheader-client-ca-file"]
	if ca == "" {
		return cfg, nil
	}
	pool, err := caPool([]byte(ca))
	if err != nil {
		return nil, fmt.Errorf("requestheader-client-ca-file: %w", err)
	}
	rh := &RequestHeaderConfig{ClientCA: pool}
	for key, list := range map[string]*[]string{
		"requestheader-allowed-names":        &rh.AllowedNames,
		"requestheader-username-headers":     &rh.UsernameHeaders,
		"requestheader-uid-headers":          &rh.UIDHeaders,
		"requestheader-group-headers":        &rh.GroupHeaders,
		"requestheader-extra-headers-prefix": &rh.ExtraHeaderPrefixes,
	} {
		if data[key] == "" {
			continue
		}
		if err := json.Unmarshal([]byte(data[key]), list); err != nil {
			return nil, fmt.Errorf("%s is not a JSON array of strings: %w", key, err)
		}
	}
	// Empty header names (an empty extra prefix would make every header extra) are
	// refused, as kube refuses them.
	if err := requestHeaderAuthenticator(rh).Validate(); err != nil {
		return nil, err
	}
	cfg.RequestHeader = rh
	return cfg, nil
}

// authenticationConfigMap keeps the extension-apiserver-authentication ConfigMap
// current, as kube's dynamic CA and requestheader controllers do: read at start (which
// must succeed), then again every refresh until the context ends; a failed refresh
// keeps the last good content.
type authenticationConfigMap struct {
	client  *kubeconfig.Client
	log     *slog.Logger
	current atomic.Pointer[AuthenticationConfig]
}

func newAuthenticationConfigMap(ctx context.Context, client *kubeconfig.Client, refresh time.Duration, log *slog.Logger) (*authenticationConfigMap, error) {
	w := &authenticationConfigMap{client: client, log: log}
	cfg, err := FetchAuthenticationConfig(ctx, client)
	if err != nil {
		return nil, err
	}
	w.current.Store(cfg)
	go w.refreshEvery(ctx, refresh)
	return w, nil
}

func (w *authenticationConfigMap) refreshEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.refresh(ctx)
		}
	}
}

// refresh reads the ConfigMap again and stores it when its data changed, so that
// readers comparing pointers see a change only when there is one.
func (w *authenticationConfigMap) refresh(ctx context.Context) {
	cfg, err := FetchAuthenticationConfig(ctx, w.client)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("serving: refreshing the authentication ConfigMap failed; keeping the previous content", "err", err)
		}
		return
	}
	if maps.Equal(cfg.data, w.current.Load().data) {
		return
	}
	w.current.Store(cfg)
	w.log.Info("serving: the authentication ConfigMap changed; reloaded it")
}

// clientCA returns the ConfigMap's client CA (nil when it has none).
func (w *authenticationConfigMap) clientCA() *x509.CertPool { return w.current.Load().ClientCA }

// requestHeader returns the ConfigMap's front-proxy configuration (nil when it has none).
func (w *authenticationConfigMap) requestHeader() *RequestHeaderConfig {
	return w.current.Load().RequestHeader
}

// requestHeaderCA returns the ConfigMap's front-proxy CA (nil when it has none).
func (w *authenticationConfigMap) requestHeaderCA() *x509.CertPool {
	if rh := w.requestHeader(); rh != nil {
		return rh.ClientCA
	}
	return nil
}
