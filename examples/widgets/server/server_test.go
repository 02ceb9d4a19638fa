package server_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/serving"
	"github.com/apikit-dev/apikit/validation"
)

const widgetsPath = "/apis/toys.example.com/v1/namespaces/default/widgets"

var quiet = slog.New(slog.DiscardHandler)

// start builds and starts a server of cfg on a free loopback port and closes it when the
// test ends.
func start(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv.Start()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// do sends a request over TLS to srv (trusting its certificate) with the bearer token
// (none when token is "") and returns the status code and body.
func do(t *testing.T, srv *server.Server, method, path, token, body string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, srv.TLSURL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := trustingClient(t, srv, nil).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp.StatusCode, data
}

// trustingClient returns a client without keep-alives that trusts srv's self-signed
// certificate and presents cert when it is not nil.
func trustingClient(t *testing.T, srv *server.Server, cert *tls.Certificate) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(srv.CertificateAuthority()) {
		t.Fatalf("CertificateAuthority() = %q, want a PEM certificate", srv.CertificateAuthority())
	}
	cfg := &tls.Config{RootCAs: pool}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}
}

func widgetJSON(name, color string) string {
	return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"color":"` + color + `"}}`
}

func decodeWidget(t *testing.T, data []byte) v1.Widget {
	t.Helper()
	var w v1.Widget
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatalf("decoding widget: %v\n%s", err, data)
	}
	return w
}

func TestServer_ServesWidgetsToTokenHoldersWithEitherStorage(t *testing.T) {
	for _, backend := range []string{server.StorageBolt, server.StorageMemory} {
		t.Run(backend, func(t *testing.T) {
			srv := start(t, server.Config{Storage: backend, DataDir: t.TempDir(), Token: "tok"})
			tests := []struct {
				name          string
				method, path  string
				token, body   string
				want          int
				wantBodyParts []string
			}{
				{name: "create without the token is 401", method: "POST", path: widgetsPath, body: widgetJSON("w1", "red"), want: http.StatusUnauthorized},
				{name: "create with a wrong token is 401", method: "POST", path: widgetsPath, token: "other", body: widgetJSON("w1", "red"), want: http.StatusUnauthorized},
				{name: "create with the token is 201", method: "POST", path: widgetsPath, token: "tok", body: widgetJSON("w1", "red"), want: http.StatusCreated},
				{name: "get with the token finds it", method: "GET", path: widgetsPath + "/w1", token: "tok", want: http.StatusOK, wantBodyParts: []string{`"name":"w1"`, `"color":"red"`}},
				{name: "get without the token is 401", method: "GET", path: widgetsPath + "/w1", want: http.StatusUnauthorized},
				{name: "an unsupported color is 422 from the widget strategy", method: "POST", path: widgetsPath, token: "tok", body: widgetJSON("w2", "purple"), want: http.StatusUnprocessableEntity, wantBodyParts: []string{"spec.color", "Unsupported value"}},
				{name: "a warehouse without location is 422", method: "POST", path: "/apis/toys.example.com/v1/warehouses", token: "tok", body: `{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"h"},"spec":{}}`, want: http.StatusUnprocessableEntity, wantBodyParts: []string{"spec.location", "Required value"}},
			}
			for _, tt := range tests {
				code, body := do(t, srv, tt.method, tt.path, tt.token, tt.body)
				if code != tt.want {
					t.Errorf("%s: %s %s = %d %s, want %d", tt.name, tt.method, tt.path, code, body, tt.want)
				}
				for _, part := range tt.wantBodyParts {
					if !strings.Contains(string(body), part) {
						t.Errorf("%s: body %s does not contain %s", tt.name, body, part)
					}
				}
			}
		})
	}
}

func TestServer_RestartOnSameDataKeepsWidgetsOnlyWithBolt(t *testing.T) {
	tests := []struct {
		backend  string
		wantKept bool
	}{
		{backend: server.StorageBolt, wantKept: true},
		{backend: server.StorageMemory, wantKept: false},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			cfg := server.Config{Addr: "127.0.0.1:0", Storage: tt.backend, DataDir: filepath.Join(t.TempDir(), "nested", "data"), Token: "tok", Logger: quiet}
			first, err := server.New(cfg)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			first.Start()
			code, body := do(t, first, "POST", widgetsPath, "tok", widgetJSON("durable", "blue"))
			if code != http.StatusCreated {
				first.Close()
				t.Fatalf("POST = %d %s, want 201", code, body)
			}
			created := decodeWidget(t, body)
			if err := first.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}

			second := start(t, cfg)
			code, body = do(t, second, "GET", widgetsPath+"/durable", "tok", "")
			switch {
			case tt.wantKept && code != http.StatusOK:
				t.Fatalf("GET after restart = %d %s, want 200", code, body)
			case tt.wantKept:
				got := decodeWidget(t, body)
				if got.UID != created.UID || got.ResourceVersion != created.ResourceVersion || got.Spec.Color != "blue" {
					t.Errorf("after restart got uid %s rv %s color %s, want uid %s rv %s color blue",
						got.UID, got.ResourceVersion, got.Spec.Color, created.UID, created.ResourceVersion)
				}
			case code != http.StatusNotFound:
				t.Errorf("GET after restart = %d %s, want 404", code, body)
			}
		})
	}
}

func TestServer_CloseLeavesNothingRunning(t *testing.T) {
	baseline := runtime.NumGoroutine()
	for _, backend := range []string{server.StorageBolt, server.StorageMemory} {
		srv, err := server.New(server.Config{Addr: "127.0.0.1:0", Storage: backend, DataDir: t.TempDir(), Logger: quiet})
		if err != nil {
			t.Fatalf("New(%s): %v", backend, err)
		}
		srv.Start()
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.TLSURL()+widgetsPath+"?watch=true", nil)
		req.Header.Set("Authorization", "Bearer "+srv.Token())
		tr := trustingClient(t, srv, nil).Transport.(*http.Transport)
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatalf("%s: starting a watch: %v", backend, err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("%s: Close with a watch open = %v, want nil", backend, err)
		}
		resp.Body.Close()
		cancel()
		tr.CloseIdleConnections()
	}
	var n int
	for range 500 {
		if n = runtime.NumGoroutine(); n <= baseline {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Errorf("%d goroutines remain after Close, want at most %d:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
}

// A client that connects and sends nothing (a TLS connection opened for later, a port
// probe) must not hold Close up: net/http's Shutdown would wait five seconds for it.
func TestServer_CloseClosesConnectionsThatSentNoRequest(t *testing.T) {
	srv, err := server.New(server.Config{Addr: "127.0.0.1:0", Storage: server.StorageMemory, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	silent, err := net.Dial("tcp", strings.TrimPrefix(srv.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// A request on another connection proves the server is accepting, so the silent
	// connection has been accepted too (connections are accepted in order).
	req, _ := http.NewRequest("GET", srv.URL()+"/healthz", nil)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	if resp, err := (&http.Client{Transport: tr}).Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	_ = silent.SetReadDeadline(time.Now().Add(time.Minute)) // bounds the test, asserts nothing
	if n, err := silent.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("read on the silent connection after Close = %d, %v; want EOF", n, err)
	}
}

// plainRequest sends an anonymous request over plain HTTP and returns its status code.
func plainRequest(t *testing.T, srv *server.Server, method, path, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func TestNew_OpensTheAPIToAnonymousPlainHTTPOnlyWhenAskedTwice(t *testing.T) {
	tests := []struct {
		name       string
		anonymous  bool
		mode       string
		wantList   int
		wantCreate int
	}{
		{name: "defaults: no anonymous access", wantList: http.StatusUnauthorized, wantCreate: http.StatusUnauthorized},
		{name: "anonymous under RBAC: authenticated, not authorized", anonymous: true, mode: server.AuthorizationRBAC, wantList: http.StatusForbidden, wantCreate: http.StatusForbidden},
		{name: "AlwaysAllow without anonymous: still unauthenticated", mode: server.AuthorizationAlwaysAllow, wantList: http.StatusUnauthorized, wantCreate: http.StatusUnauthorized},
		{name: "anonymous and AlwaysAllow: open, as the benchmarks run it", anonymous: true, mode: server.AuthorizationAlwaysAllow, wantList: http.StatusOK, wantCreate: http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := serving.NewOptions()
			opts.AnonymousAuth = tt.anonymous
			srv := start(t, server.Config{Storage: server.StorageMemory, Serving: opts, AuthorizationMode: tt.mode})
			if got := plainRequest(t, srv, http.MethodGet, widgetsPath, ""); got != tt.wantList {
				t.Errorf("anonymous plain-HTTP list = %d, want %d", got, tt.wantList)
			}
			if got := plainRequest(t, srv, http.MethodPost, widgetsPath, widgetJSON("w1", "red")); got != tt.wantCreate {
				t.Errorf("anonymous plain-HTTP create = %d, want %d", got, tt.wantCreate)
			}
			// The token keeps working over TLS in every mode.
			if code, body := do(t, srv, http.MethodGet, widgetsPath, srv.Token(), ""); code != http.StatusOK {
				t.Errorf("token list over TLS = %d, want 200: %s", code, body)
			}
		})
	}
}

func TestNew_RejectsUnusableConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     server.Config
		wantErr string
	}{
		{name: "unknown storage", cfg: server.Config{Storage: "sqlite", DataDir: t.TempDir()}, wantErr: `unknown storage "sqlite"`},
		{name: "etcd without endpoints", cfg: server.Config{Storage: server.StorageEtcd}, wantErr: "etcd storage needs endpoints"},
		{name: "etcd at an endpoint that is no URL", cfg: server.Config{Storage: server.StorageEtcd, Etcd: server.EtcdConfig{Endpoints: []string{"10.0.0.1:2379"}}},
			wantErr: `etcd endpoint "10.0.0.1:2379" is not an http:// or https:// URL`},
		{name: "etcd with a CA file that is missing", cfg: server.Config{Storage: server.StorageEtcd,
			Etcd: server.EtcdConfig{Endpoints: []string{"https://127.0.0.1:2379"}, CAFile: filepath.Join(t.TempDir(), "missing.crt")}},
			wantErr: "reading the etcd CA file"},
		{name: "bolt without a data directory", cfg: server.Config{Storage: server.StorageBolt}, wantErr: "data directory"},
		{name: "default storage is bolt and needs a data directory", cfg: server.Config{}, wantErr: "data directory"},
		{name: "an address that cannot be listened on", cfg: server.Config{Storage: server.StorageMemory, Addr: "127.0.0.1:-1"}, wantErr: "listen"},
		{name: "a data directory under a file", cfg: server.Config{DataDir: filepath.Join(writeFile(t), "sub")}, wantErr: "creating data directory"},
		{name: "an audit policy that is no Policy, even without a log path", cfg: server.Config{Storage: server.StorageMemory, AuditPolicyFile: writeFile(t)}, wantErr: "audit"},
		{name: "a missing audit policy file", cfg: server.Config{Storage: server.StorageMemory, AuditPolicyFile: filepath.Join(t.TempDir(), "none.yaml"), AuditLogPath: "-"}, wantErr: "reading policy"},
		{name: "an authorization mode kube has but this server does not", cfg: server.Config{Storage: server.StorageMemory, AuthorizationMode: "Webhook"}, wantErr: `authorization mode must be RBAC or AlwaysAllow, not "Webhook"`},
		{name: "an audit log under a file", cfg: server.Config{Storage: server.StorageMemory, AuditPolicyFile: writePolicy(t, audit.LevelMetadata), AuditLogPath: filepath.Join(writeFile(t), "audit.log")}, wantErr: "audit log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Logger = quiet
			srv, err := server.New(tt.cfg)
			if err == nil {
				srv.Close()
				t.Fatalf("New succeeded, want an error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("New = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func writeFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNew_WritesAPrivateKubeconfigWithTheToken(t *testing.T) {
	tests := []struct {
		name     string
		token    string
		existing bool
	}{
		{name: "a given token on a new file", token: "given"},
		{name: "a generated token", token: ""},
		{name: "an existing world-readable file becomes private", token: "given", existing: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "widgets.kubeconfig")
			if tt.existing {
				if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			srv := start(t, server.Config{Storage: server.StorageMemory, KubeconfigPath: path, Token: tt.token})
			if tt.token != "" && srv.Token() != tt.token {
				t.Errorf("Token() = %q, want %q", srv.Token(), tt.token)
			}
			if tt.token == "" && len(srv.Token()) < 16 {
				t.Errorf("Token() = %q, want at least 16 characters", srv.Token())
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
				t.Errorf("kubeconfig mode = %v, want 0600", fi.Mode().Perm())
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var cfg struct {
				Clusters []struct {
					Cluster struct{ Server string } `json:"cluster"`
				} `json:"clusters"`
				Users []struct {
					User struct{ Token string } `json:"user"`
				} `json:"users"`
				CurrentContext string `json:"current-context"`
			}
			if err := yaml.Unmarshal(data, &cfg); err != nil {
				t.Fatalf("kubeconfig does not parse: %v", err)
			}
			if len(cfg.Clusters) != 1 || cfg.Clusters[0].Cluster.Server != srv.TLSURL() ||
				len(cfg.Users) != 1 || cfg.Users[0].User.Token != srv.Token() || cfg.CurrentContext == "" {
				t.Errorf("kubeconfig = %s, want server %s and token %s", data, srv.TLSURL(), srv.Token())
			}
			if code, body := do(t, srv, "GET", widgetsPath, cfg.Users[0].User.Token, ""); code != http.StatusOK {
				t.Errorf("GET with the kubeconfig's token = %d %s, want 200", code, body)
			}
		})
	}
}

func TestNew_GeneratesADifferentTokenEachTime(t *testing.T) {
	a := start(t, server.Config{Storage: server.StorageMemory})
	b := start(t, server.Config{Storage: server.StorageMemory})
	if a.Token() == "" || a.Token() == b.Token() {
		t.Errorf("generated tokens %q and %q, want two different non-empty tokens", a.Token(), b.Token())
	}
}

func TestStrategies_ValidateHubObjects(t *testing.T) {
	replicas := int32(-1)
	ctx := context.Background()
	tests := []struct {
		name       string
		validate   func() validation.ErrorList
		wantFields []string
	}{
		{
			name:     "a valid widget passes",
			validate: func() validation.ErrorList { return server.WidgetStrategy.Validate(ctx, widget("ok", "red", nil)) },
		},
		{
			name: "negative replicas fail",
			validate: func() validation.ErrorList {
				return server.WidgetStrategy.Validate(ctx, widget("neg", "red", &replicas))
			},
			wantFields: []string{"spec.replicas"},
		},
		{
			name: "a renamed widget fails the update",
			validate: func() validation.ErrorList {
				return server.WidgetStrategy.ValidateUpdate(ctx, widget("new", "red", nil), widget("old", "red", nil))
			},
			wantFields: []string{"metadata.name"},
		},
		{
			name: "a warehouse with negative capacity fails",
			validate: func() validation.ErrorList {
				return server.WarehouseStrategy.Validate(ctx, &hub.Warehouse{ObjectMeta: scheme.ObjectMeta{Name: "h"}, Spec: hub.WarehouseSpec{Location: "x", Capacity: -1}})
			},
			wantFields: []string{"spec.capacity"},
		},
		{
			name: "a warehouse update keeps the rules of create",
			validate: func() validation.ErrorList {
				old := &hub.Warehouse{ObjectMeta: scheme.ObjectMeta{Name: "h", ResourceVersion: "1"}, Spec: hub.WarehouseSpec{Location: "x"}}
				return server.WarehouseStrategy.ValidateUpdate(ctx, &hub.Warehouse{ObjectMeta: scheme.ObjectMeta{Name: "h", ResourceVersion: "1"}}, old)
			},
			wantFields: []string{"spec.location"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.validate()
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			if strings.Join(fields, ",") != strings.Join(tt.wantFields, ",") {
				t.Errorf("errors on %v (%v), want on %v", fields, errs, tt.wantFields)
			}
		})
	}
	if got := len(server.Strategies()); got != 2 {
		t.Errorf("Strategies() has %d entries, want 2 (widgets, warehouses)", got)
	}
	if _, ok := server.Strategies()[scheme.GroupResource{Group: api.Group, Resource: "widgets"}]; !ok {
		t.Error("Strategies() has no entry for widgets")
	}
}

func widget(name, color string, replicas *int32) *hub.Widget {
	return &hub.Widget{
		ObjectMeta: scheme.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: "1"},
		Spec:       hub.WidgetSpec{Color: color, Replicas: replicas},
	}
}
