package serving

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/kubeconfig"
)

// fakeKubeAPIServer is a kube-apiserver stand-in that serves the
// extension-apiserver-authentication ConfigMap to the holder of its token.
type fakeKubeAPIServer struct {
	*httptest.Server
	token string

	mu      sync.Mutex
	data    map[string]string
	reads   int
	tokens  map[string][]string // TokenReview: token -> user, groups...
	allowed []string            // SubjectAccessReview: "user verb resource"
}

func newFakeKubeAPIServer(t *testing.T, data map[string]string) *fakeKubeAPIServer {
	t.Helper()
	f := &fakeKubeAPIServer{token: "delegation-token", data: data}
	f.Server = httptest.NewTLSServer(http.HandlerFunc(f.serveHTTP))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeKubeAPIServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`))
		return
	}
	if r.Method == http.MethodPost && f.serveReview(w, r) {
		return
	}
	if r.URL.Path != "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"not found","reason":"NotFound","code":404}`))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	_ = json.NewEncoder(w).Encode(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": AuthenticationConfigMapName, "namespace": AuthenticationConfigMapNamespace},
		"data":     f.data,
	})
}

func (f *fakeKubeAPIServer) setData(data map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.data = data
}

// kubeconfigFor writes a kubeconfig that reaches f with token.
func (f *fakeKubeAPIServer) kubeconfigFor(t *testing.T, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.Certificate().Raw})
	writeFile(t, path, kubeconfig.New("kube", f.URL, token, caPEM))
	return path
}

func (f *fakeKubeAPIServer) client(t *testing.T, token string) *kubeconfig.Client {
	t.Helper()
	c, err := kubeconfig.Load(f.kubeconfigFor(t, token))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// kubeAuthenticationData is the ConfigMap's data as kube-apiserver writes it.
func kubeAuthenticationData(clientCA, proxyCA []byte) map[string]string {
	return map[string]string{
		"client-ca-file":                     string(clientCA),
		"requestheader-client-ca-file":       string(proxyCA),
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-uid-headers":          `["X-Remote-Uid"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
	}
}

// trustsCert tells whether pool verifies the PEM certificate (nil pool: no).
func trustsCert(t *testing.T, pool *x509.CertPool, certPEM []byte) bool {
	t.Helper()
	if pool == nil {
		return false
	}
	der, _ := pemDecode(certPEM)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err == nil
}

func TestFetchAuthenticationConfig_ReadsWhatKubeAPIServerPublishes(t *testing.T) {
	clientCA, proxyCA := newCertFiles(t, "client CA").cert, newCertFiles(t, "front-proxy CA").cert
	kube := newFakeKubeAPIServer(t, kubeAuthenticationData(clientCA, proxyCA))
	got, err := FetchAuthenticationConfig(context.Background(), kube.client(t, kube.token))
	if err != nil {
		t.Fatalf("FetchAuthenticationConfig: %v", err)
	}
	if !trustsCert(t, got.ClientCA, clientCA) || trustsCert(t, got.ClientCA, proxyCA) {
		t.Error("ClientCA does not trust exactly client-ca-file")
	}
	if got.RequestHeader == nil {
		t.Fatal("RequestHeader = nil, want the ConfigMap's front-proxy configuration")
	}
	if !trustsCert(t, got.RequestHeader.ClientCA, proxyCA) || trustsCert(t, got.RequestHeader.ClientCA, clientCA) {
		t.Error("RequestHeader.ClientCA does not trust exactly requestheader-client-ca-file")
	}
	want := RequestHeaderConfig{
		AllowedNames: []string{"front-proxy-client"}, UsernameHeaders: []string{"X-Remote-User"}, UIDHeaders: []string{"X-Remote-Uid"},
		GroupHeaders: []string{"X-Remote-Group"}, ExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
	}
	gotRH := *got.RequestHeader
	gotRH.ClientCA = nil
	if diff := cmp.Diff(want, gotRH); diff != "" {
		t.Errorf("RequestHeader (-want +got):\n%s", diff)
	}
}

func TestFetchAuthenticationConfig_Failures(t *testing.T) {
	ca := string(newCertFiles(t, "ca").cert)
	tests := []struct {
		name    string
		data    map[string]string
		token   string
		wantErr string
		check   func(t *testing.T, cfg *AuthenticationConfig)
	}{
		{name: "a wrong token is the kube-apiserver's 401", data: map[string]string{}, token: "wrong", wantErr: "401 Unauthorized Unauthorized"},
		{name: "a CA that is not PEM", data: map[string]string{"client-ca-file": "junk"}, wantErr: "client-ca-file: no PEM certificate"},
		{name: "an empty extra header prefix", data: map[string]string{"requestheader-client-ca-file": ca, "requestheader-extra-headers-prefix": `[""]`}, wantErr: "empty extra header prefix"},
		{name: "a header list that is not JSON", data: map[string]string{"requestheader-client-ca-file": ca, "requestheader-group-headers": "X-Remote-Group"}, wantErr: "requestheader-group-headers is not a JSON array"},
		{
			name: "no requestheader CA: no front-proxy configuration, whatever the other keys say",
			data: map[string]string{"client-ca-file": ca, "requestheader-username-headers": `["X-Remote-User"]`},
			check: func(t *testing.T, cfg *AuthenticationConfig) {
				if cfg.RequestHeader != nil || cfg.ClientCA == nil {
					t.Errorf("got ClientCA %v, RequestHeader %+v; want a client CA only", cfg.ClientCA != nil, cfg.RequestHeader)
				}
			},
		},
		{
			name: "an empty ConfigMap: nothing to trust",
			data: map[string]string{},
			check: func(t *testing.T, cfg *AuthenticationConfig) {
				if cfg.RequestHeader != nil || cfg.ClientCA != nil {
					t.Errorf("got %+v, want neither CA", cfg)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kube := newFakeKubeAPIServer(t, tt.data)
			token := kube.token
			if tt.token != "" {
				token = tt.token
			}
			cfg, err := FetchAuthenticationConfig(context.Background(), kube.client(t, token))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("FetchAuthenticationConfig = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, cfg)
		})
	}
}

func TestAuthenticationConfigMap_RefreshFollowsChangesAndKeepsTheLastGoodContent(t *testing.T) {
	first, second := newCertFiles(t, "first").cert, newCertFiles(t, "second").cert
	kube := newFakeKubeAPIServer(t, kubeAuthenticationData(first, first))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs logBuffer
	// A refresh interval far beyond the test: the test calls refresh itself.
	cm, err := newAuthenticationConfigMap(ctx, kube.client(t, kube.token), 1<<40, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	before := cm.current.Load()
	cm.refresh(ctx)
	if cm.current.Load() != before {
		t.Error("a refresh without a change replaced the configuration")
	}

	changed := kubeAuthenticationData(second, second)
	changed["requestheader-allowed-names"] = `["aggregator"]`
	kube.setData(changed)
	cm.refresh(ctx)
	if !trustsCert(t, cm.clientCA(), second) || trustsCert(t, cm.clientCA(), first) || !trustsCert(t, cm.requestHeaderCA(), second) {
		t.Error("after the ConfigMap changed, the CAs are not the new ones")
	}
	if got := cm.requestHeader().AllowedNames; len(got) != 1 || got[0] != "aggregator" {
		t.Errorf("allowed names after the change = %q, want [aggregator]", got)
	}

	kube.setData(map[string]string{"client-ca-file": "junk"})
	cm.refresh(ctx)
	if !trustsCert(t, cm.clientCA(), second) {
		t.Error("a broken ConfigMap replaced the last good content")
	}
	if !strings.Contains(logs.String(), "keeping the previous content") {
		t.Errorf("the failed refresh was not logged:\n%s", logs.String())
	}
}

func TestNewAuthenticationConfigMap_RefreshesInTheBackgroundUntilTheContextEnds(t *testing.T) {
	ca := newCertFiles(t, "ca").cert
	kube := newFakeKubeAPIServer(t, kubeAuthenticationData(ca, ca))
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := newAuthenticationConfigMap(ctx, kube.client(t, kube.token), time.Millisecond, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	reads := func() int {
		kube.mu.Lock()
		defer kube.mu.Unlock()
		return kube.reads
	}
	for i := 0; reads() < 3; i++ {
		if i == 1000 {
			t.Fatalf("%d reads of the ConfigMap, want a start and at least two refreshes", reads())
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
}
