package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/serving"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		want       server.Config
		wantErr    error
		wantOutput string
	}{
		{
			name: "defaults serve bolt on 127.0.0.1:8080 and write ./widgets.kubeconfig",
			want: server.Config{AuthorizationMode: "RBAC", Addr: "127.0.0.1:8080", DataDir: "./widgets-data", Storage: "bolt", KubeconfigPath: "./widgets.kubeconfig"},
		},
		{
			name: "the documented command line",
			args: []string{"-addr", "127.0.0.1:9090", "-data", "/tmp/w", "-kubeconfig", "/tmp/w.kubeconfig"},
			want: server.Config{AuthorizationMode: "RBAC", Addr: "127.0.0.1:9090", DataDir: "/tmp/w", Storage: "bolt", KubeconfigPath: "/tmp/w.kubeconfig"},
		},
		{
			name: "memory storage and a fixed token",
			args: []string{"-storage=memory", "-token=abc", "-addr=:0"},
			want: server.Config{AuthorizationMode: "RBAC", Addr: ":0", DataDir: "./widgets-data", Storage: "memory", KubeconfigPath: "./widgets.kubeconfig", Token: "abc"},
		},
		{
			name: "kube-apiserver's audit flags and the access log",
			args: []string{"-audit-policy-file=/etc/audit/policy.yaml", "-audit-log-path=-", "-access-log"},
			want: server.Config{AuthorizationMode: "RBAC", Addr: "127.0.0.1:8080", DataDir: "./widgets-data", Storage: "bolt", KubeconfigPath: "./widgets.kubeconfig",
				AuditPolicyFile: "/etc/audit/policy.yaml", AuditLogPath: "-", AccessLog: true},
		},
		{
			name: "the benchmarks' open mode: anonymous plain HTTP, everything allowed",
			args: []string{"-storage=memory", "-anonymous-auth", "-authorization-mode=AlwaysAllow"},
			want: server.Config{AuthorizationMode: "AlwaysAllow", Addr: "127.0.0.1:8080", DataDir: "./widgets-data", Storage: "memory", KubeconfigPath: "./widgets.kubeconfig"},
		},
		{
			name:       "an authorization mode kube has but this server does not is refused",
			args:       []string{"-authorization-mode=Node"},
			wantErr:    errAny,
			wantOutput: `-authorization-mode must be RBAC or AlwaysAllow, not "Node"`,
		},
		{
			name:       "an unknown storage is refused",
			args:       []string{"-storage", "sqlite"},
			wantErr:    errAny,
			wantOutput: `-storage must be bolt, memory or etcd, not "sqlite"`,
		},
		{
			name: "etcd storage with kube-apiserver's etcd flags",
			args: []string{"-storage=etcd", "-etcd-endpoints", "https://10.0.0.1:2379, https://10.0.0.2:2379", "-etcd-prefix=/widgets",
				"-etcd-cafile=/pki/etcd/ca.crt", "-etcd-certfile=/pki/apiserver-etcd-client.crt", "-etcd-keyfile=/pki/apiserver-etcd-client.key"},
			want: server.Config{AuthorizationMode: "RBAC", Addr: "127.0.0.1:8080", DataDir: "./widgets-data", Storage: "etcd", KubeconfigPath: "./widgets.kubeconfig",
				Etcd: server.EtcdConfig{Endpoints: []string{"https://10.0.0.1:2379", "https://10.0.0.2:2379"}, Prefix: "/widgets",
					CAFile: "/pki/etcd/ca.crt", CertFile: "/pki/apiserver-etcd-client.crt", KeyFile: "/pki/apiserver-etcd-client.key",
					CompactionInterval: 5 * time.Minute}},
		},
		{
			name: "etcd storage defaults to kube's prefix and compaction interval",
			args: []string{"-storage=etcd", "-etcd-endpoints=http://127.0.0.1:2379"},
			want: server.Config{AuthorizationMode: "RBAC", Addr: "127.0.0.1:8080", DataDir: "./widgets-data", Storage: "etcd", KubeconfigPath: "./widgets.kubeconfig",
				Etcd: server.EtcdConfig{Endpoints: []string{"http://127.0.0.1:2379"}, Prefix: "/registry", CompactionInterval: 5 * time.Minute}},
		},
		{
			name: "a compaction interval of 0 compacts never",
			args: []string{"-storage=etcd", "-etcd-endpoints=http://127.0.0.1:2379", "-etcd-compaction-interval=0"},
			want: server.Config{AuthorizationMode: "RBAC", Addr: "127.0.0.1:8080", DataDir: "./widgets-data", Storage: "etcd", KubeconfigPath: "./widgets.kubeconfig",
				Etcd: server.EtcdConfig{Endpoints: []string{"http://127.0.0.1:2379"}, Prefix: "/registry", CompactionInterval: -1}},
		},
		{
			name:       "etcd storage without endpoints is refused",
			args:       []string{"-storage=etcd"},
			wantErr:    errAny,
			wantOutput: "-storage etcd needs -etcd-endpoints",
		},
		{
			name:       "etcd endpoints without etcd storage are refused",
			args:       []string{"-etcd-endpoints=http://127.0.0.1:2379"},
			wantErr:    errAny,
			wantOutput: "-etcd-endpoints needs -storage etcd, not bolt",
		},
		{
			name:       "an unknown flag is refused with usage",
			args:       []string{"-port", "80"},
			wantErr:    errAny,
			wantOutput: "flag provided but not defined: -port",
		},
		{
			name:       "positional arguments are refused",
			args:       []string{"serve"},
			wantErr:    errAny,
			wantOutput: `unexpected arguments: ["serve"]`,
		},
		{
			name:       "-h prints usage and is ErrHelp",
			args:       []string{"-h"},
			wantErr:    flag.ErrHelp,
			wantOutput: "-kubeconfig file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := parseFlags(tt.args, &out)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("parseFlags(%q) = %v, want no error", tt.args, err)
			case tt.wantErr == errAny && err == nil, tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("parseFlags(%q) error = %v, want %v", tt.args, err, tt.wantErr)
			}
			// Serving has a test of its own below; Rules is the cel module's compiler
			// (TestParseFlags_CRDsWithCELRulesAreServed).
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(server.Config{}, "Logger", "Serving", "Rules")); diff != "" {
				t.Errorf("parseFlags(%q) config (-want +got):\n%s", tt.args, diff)
			}
			if !strings.Contains(out.String(), tt.wantOutput) {
				t.Errorf("output %q does not contain %q", out.String(), tt.wantOutput)
			}
		})
	}
}

func TestParseFlags_KubeServingFlagsReachServingOptions(t *testing.T) {
	args := []string{
		"-tls-cert-file=/s/tls.crt", "-tls-private-key-file=/s/tls.key", "-client-ca-file=/s/ca.crt",
		"-requestheader-client-ca-file=/s/proxy-ca.crt", "-requestheader-allowed-names=front-proxy-client",
		"-requestheader-username-headers=X-Remote-User", "-requestheader-uid-headers=X-Remote-Uid",
		"-requestheader-group-headers=X-Remote-Group", "-requestheader-extra-headers-prefix=X-Remote-Extra-",
		"-authentication-kubeconfig=/k/authn", "-authorization-kubeconfig=/k/authz", "-token-auth-file=/k/tokens.csv",
		"-authorization-always-allow-paths=/healthz", "-anonymous-auth=false",
	}
	cfg, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatalf("parseFlags: %v", err)
	}
	want := serving.NewOptions()
	want.TLSCertFile, want.TLSPrivateKeyFile, want.ClientCAFile = "/s/tls.crt", "/s/tls.key", "/s/ca.crt"
	want.RequestHeader = serving.RequestHeaderOptions{
		ClientCAFile: "/s/proxy-ca.crt", AllowedNames: []string{"front-proxy-client"},
		UsernameHeaders: []string{"X-Remote-User"}, UIDHeaders: []string{"X-Remote-Uid"},
		GroupHeaders: []string{"X-Remote-Group"}, ExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
	}
	want.AuthenticationKubeconfig, want.AuthorizationKubeconfig, want.TokenAuthFile = "/k/authn", "/k/authz", "/k/tokens.csv"
	want.AlwaysAllowPaths = []string{"/healthz"}
	if diff := cmp.Diff(want, cfg.Serving); diff != "" {
		t.Errorf("serving options (-want +got):\n%s", diff)
	}
	if defaults, _ := parseFlags(nil, io.Discard); !cmp.Equal(serving.NewOptions(), defaults.Serving) {
		t.Errorf("without flags, serving options = %+v, want serving.NewOptions()", defaults.Serving)
	}
}

// errAny stands for "some error" in TestParseFlags.
var errAny = errors.New("any error")

func TestRun_WritesKubeconfigAndStopsWhenContextEnds(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := server.Config{
		Addr:           "127.0.0.1:0",
		DataDir:        filepath.Join(dir, "data"),
		KubeconfigPath: filepath.Join(dir, "widgets.kubeconfig"),
		Logger:         slog.New(slog.DiscardHandler),
	}
	if err := run(ctx, cfg); err != nil {
		t.Fatalf("run = %v, want nil after the context ends", err)
	}
	for _, p := range []string{cfg.KubeconfigPath, filepath.Join(cfg.DataDir, server.DBFile)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("after run: %v", err)
		}
	}
}

func TestParseFlags_CRDsLoadsTheManifestsOfADirectory(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantNames  []string
		wantOutput string
	}{
		{name: "the example's crds directory", args: []string{"-crds", "crds"}, wantNames: []string{"gizmos.lab.example.com"}},
		{name: "kubebuilder's output with CEL rules", args: []string{"-crds=../../apiextensions/testdata/crd"}, wantNames: []string{"robots.fleet.example.com"}},
		{name: "a missing directory is refused", args: []string{"-crds", "no-such-dir"}, wantOutput: "no-such-dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cfg, err := parseFlags(tt.args, &out)
			if (err != nil) != (tt.wantOutput != "") || !strings.Contains(out.String(), tt.wantOutput) {
				t.Fatalf("parseFlags(%q) = %v, output %q; want output %q", tt.args, err, out.String(), tt.wantOutput)
			}
			var names []string
			for _, crd := range cfg.CRDs {
				names = append(names, crd.Name)
			}
			if diff := cmp.Diff(tt.wantNames, names); diff != "" {
				t.Errorf("CRDs (-want +got):\n%s", diff)
			}
		})
	}
}

// The command links the cel module: the CEL rules of a CRD (kubebuilder's
// +kubebuilder:validation:XValidation) are checked as kube-apiserver checks them, and an
// object that breaks one is kube's 422 Invalid with the rule's message and field.
func TestParseFlags_CRDsWithCELRulesAreServed(t *testing.T) {
	cfg, err := parseFlags([]string{"-storage=memory", "-addr=127.0.0.1:0", "-kubeconfig=", "-token=tok", "-crds=../../apiextensions/testdata/crd"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Rules == nil {
		t.Fatal("parseFlags left Config.Rules nil, want the cel module's compiler")
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatalf("New with a CEL CRD = %v, want it served", err)
	}
	srv.Start()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(srv.CertificateAuthority()) {
		t.Fatal("no certificate authority")
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}
	const robots = "/apis/fleet.example.com/v1/namespaces/default/robots"
	tests := []struct {
		name       string
		body       string
		wantCode   int
		wantStatus string
	}{
		{
			name:     "a robot the rules allow is created",
			body:     `{"apiVersion":"fleet.example.com/v1","kind":"Robot","metadata":{"name":"r1"},"spec":{"model":"T100","minReplicas":1,"maxReplicas":3}}`,
			wantCode: http.StatusCreated,
		},
		{
			name:     "a robot that breaks a rule is kube's 422 on the rule's fieldPath, with its message",
			body:     `{"apiVersion":"fleet.example.com/v1","kind":"Robot","metadata":{"name":"r2"},"spec":{"model":"T100","minReplicas":5,"maxReplicas":3}}`,
			wantCode: http.StatusUnprocessableEntity,
			wantStatus: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
				`"message":"Robot.fleet.example.com \"r2\" is invalid: spec.maxReplicas: Invalid value: minReplicas must not exceed maxReplicas",` +
				`"reason":"Invalid","details":{"name":"r2","group":"fleet.example.com","kind":"Robot",` +
				`"causes":[{"reason":"FieldValueInvalid","message":"Invalid value: minReplicas must not exceed maxReplicas","field":"spec.maxReplicas"}]},"code":422}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", srv.TLSURL()+robots, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer tok")
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("POST = %d %s, want %d", resp.StatusCode, body, tt.wantCode)
			}
			if tt.wantStatus != "" && strings.TrimSpace(string(body)) != tt.wantStatus {
				t.Errorf("POST body:\n got %s\nwant %s", body, tt.wantStatus)
			}
		})
	}
}
