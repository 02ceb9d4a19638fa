// Command widgets serves the example toys.example.com API (Widget, Warehouse) to kubectl,
// client-go and curl, over HTTPS and plain HTTP on one port:
//
//	go run ./examples/widgets -addr 127.0.0.1:8080 -data ./widgets-data -kubeconfig ./widgets.kubeconfig
//	kubectl --kubeconfig ./widgets.kubeconfig apply -f examples/widgets/manifests/widget.yaml
//	kubectl --kubeconfig ./widgets.kubeconfig get widgets
//
// Flags:
//
//	-addr ADDR         listen address (default 127.0.0.1:8080)
//	-data DIR          directory of the durable store, created if missing (default ./widgets-data)
//	-storage NAME      bolt (durable, the default), memory, or etcd (replicas over one cluster)
//	-kubeconfig FILE   where to write a kubeconfig for the server (default ./widgets.kubeconfig)
//	-token TOKEN       bearer token clients must send (default: random, written to the kubeconfig)
//	-max-requests-inflight N, -max-mutating-requests-inflight N
//	                   read-only and mutating requests served at once (default 400 and
//	                   200 as kube-apiserver; negative: no limit); beyond them, 429
//	-crds DIR          CustomResourceDefinition manifests to serve (a directory of .yaml,
//	                   .yml and .json files, such as kubebuilder's config/crd/bases, or one file)
//	-access-log        one line per request (verb, URI, latency, user, response code, ...)
//	                   to the server's log
//
// kube-apiserver's flags for the etcd cluster of -storage etcd (package storage/etcd,
// a module of its own; several servers over one cluster and prefix are replicas of one
// API, and /readyz/etcd reports whether this one reaches the cluster):
//
//	-etcd-endpoints URLS
//	                   comma-separated etcd client URLs (kube's --etcd-servers)
//	-etcd-prefix PREFIX
//	                   key prefix of every object (default /registry)
//	-etcd-cafile FILE, -etcd-certfile FILE, -etcd-keyfile FILE
//	                   CA of the etcd servers and client certificate presented to them
//	-etcd-compaction-interval DURATION
//	                   how often this server compacts etcd's history (default 5m; 0: never)
//	-watch-cache       serve watches, lists and gets from a watch cache kept by one etcd
//	                   watch per resource (default true, as kube's --watch-cache)
//
// and kube-apiserver's flags for serving as an aggregated API server (package serving):
//
//	-tls-cert-file FILE, -tls-private-key-file FILE
//	                   serving certificate and key, reloaded when they change (default: a
//	                   self-signed certificate made at start)
//	-client-ca-file FILE
//	                   CAs of client certificates (CN: user, O: groups)
//	-requestheader-client-ca-file FILE, -requestheader-allowed-names NAMES,
//	-requestheader-username-headers, -requestheader-uid-headers,
//	-requestheader-group-headers, -requestheader-extra-headers-prefix HEADERS
//	                   the front proxy (kube-aggregator) that names the user in headers
//	-authentication-kubeconfig FILE
//	                   delegate bearer tokens to TokenReview and read the client and
//	                   front-proxy CAs from kube-system/extension-apiserver-authentication
//	-authorization-kubeconfig FILE
//	                   delegate authorization to SubjectAccessReview
//	-token-auth-file FILE
//	                   static tokens in kube's CSV format
//	-authorization-always-allow-paths PATHS
//	                   paths allowed without authorization (default /healthz,/readyz,/livez)
//	-anonymous-auth    let requests without credentials in as system:anonymous
//	-audit-policy-file FILE
//	                   audit.k8s.io/v1 Policy: what the audit log records of each request
//	                   (without one, as in kube-apiserver, nothing is recorded)
//	-audit-log-path FILE
//	                   audit events as JSON lines, appended to FILE (created mode 0600) or,
//	                   for "-", written to standard output
//
// /metrics is always served, in Prometheus text format with kube-apiserver's metric
// names, to users authorized for it (the token's user in system:masters may read it).
//
// The server always serves the customresourcedefinitions resource of
// apiextensions.k8s.io/v1, so `kubectl apply -f` of a CRD adds a resource while it runs;
// -crds applies manifests at start and waits until they are established. CRDs' CEL
// validation rules (x-kubernetes-validations, kubebuilder's
// +kubebuilder:validation:XValidation markers) are checked as kube-apiserver checks them:
// the command links github.com/apikit-dev/apikit/cel (server.Config{Rules: cel.New()}),
// which this example module may require while apikit's main module does not.
//
// Requests without credentials get 401 Unauthorized. The token's user is in
// system:masters and may do everything; other users are authorized by the RBAC objects
// the server stores (it serves rbac.authorization.k8s.io/v1) and, with
// -authorization-kubeconfig, by the kube-apiserver. The port answers plain HTTP (health
// checks; bearer tokens are refused there) and, for clients that start a TLS handshake,
// HTTPS with the -tls-cert-file certificate or a self-signed one made at start; the
// kubeconfig points at https and embeds the self-signed certificate. The server stops cleanly on SIGINT
// or SIGTERM. The assembly lives in package server, so tests can run it in-process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/serving"
)

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		os.Exit(2) // the flag package has printed the problem and the usage
	}
	cfg.Logger = logger
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		logger.Error("widgets server failed", "err", err)
		os.Exit(1)
	}
}

// parseFlags turns the command line into a server.Config; errors (and -h) are reported
// on output.
func parseFlags(args []string, output io.Writer) (server.Config, error) {
	fs := flag.NewFlagSet("widgets", flag.ContinueOnError)
	fs.SetOutput(output)
	cfg := server.Config{Rules: cel.New()}
	fs.StringVar(&cfg.Addr, "addr", server.DefaultAddr, "listen `address` (host:port) for HTTPS and plain HTTP")
	fs.StringVar(&cfg.DataDir, "data", "./widgets-data", "`directory` of the durable store (bolt), created if missing")
	fs.StringVar(&cfg.Storage, "storage", server.StorageBolt, "storage backend: bolt, memory or etcd")
	var etcdCfg server.EtcdConfig
	etcdEndpoints := fs.String("etcd-endpoints", "", "comma-separated etcd client `URLs` of -storage etcd (kube's --etcd-servers)")
	fs.StringVar(&etcdCfg.Prefix, "etcd-prefix", "/registry", "the `prefix` of every etcd key; replicas of one API share it")
	fs.StringVar(&etcdCfg.CAFile, "etcd-cafile", "", "SSL Certificate Authority `file` used to secure etcd communication")
	fs.StringVar(&etcdCfg.CertFile, "etcd-certfile", "", "SSL certification `file` used to secure etcd communication")
	fs.StringVar(&etcdCfg.KeyFile, "etcd-keyfile", "", "SSL key `file` used to secure etcd communication")
	fs.DurationVar(&etcdCfg.CompactionInterval, "etcd-compaction-interval", 5*time.Minute, "the `interval` of compaction requests; 0 disables compaction from this server")
	watchCache := fs.Bool("watch-cache", true, "serve -storage etcd through a watch cache (kube's --watch-cache)")
	fs.StringVar(&cfg.KubeconfigPath, "kubeconfig", "./widgets.kubeconfig", "`file` to write a kubeconfig for this server to (empty: none)")
	fs.StringVar(&cfg.Token, "token", "", "bearer `token` clients must send (default: random)")
	fs.IntVar(&cfg.MaxRequestsInFlight, "max-requests-inflight", 0, "read-only requests served at once, beyond which kube's 429 (0: 400, negative: no limit)")
	fs.IntVar(&cfg.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", 0, "writes served at once, beyond which kube's 429 (0: 200, negative: no limit)")
	crdDir := fs.String("crds", "", "`directory` (or file) of CustomResourceDefinition manifests to serve (CEL rules included)")
	fs.BoolVar(&cfg.AccessLog, "access-log", false, "log one line per request (verb, URI, latency, user, response code) to the server's log")
	fs.StringVar(&cfg.AuditPolicyFile, "audit-policy-file", "", "`path` to the file that defines the audit policy configuration (audit.k8s.io/v1 Policy)")
	fs.StringVar(&cfg.AuditLogPath, "audit-log-path", "", "if set, the audit events of the requests the policy selects are appended to this `file` as JSON lines; '-' means standard out")
	fs.StringVar(&cfg.AuthorizationMode, "authorization-mode", server.AuthorizationRBAC, "how this server authorizes requests: RBAC (over the stored roles and bindings) or AlwaysAllow (everything; with -anonymous-auth the API is open to anyone, for benchmarks only)")
	cfg.Serving = serving.NewOptions()
	cfg.Serving.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return server.Config{}, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected arguments: %q", fs.Args())
		fmt.Fprintln(output, err)
		fs.Usage()
		return server.Config{}, err
	}
	switch cfg.Storage {
	case server.StorageBolt, server.StorageMemory:
		if *etcdEndpoints != "" {
			err := fmt.Errorf("-etcd-endpoints needs -storage etcd, not %s", cfg.Storage)
			fmt.Fprintln(output, err)
			return server.Config{}, err
		}
	case server.StorageEtcd:
		for _, e := range strings.Split(*etcdEndpoints, ",") {
			if e = strings.TrimSpace(e); e != "" {
				etcdCfg.Endpoints = append(etcdCfg.Endpoints, e)
			}
		}
		if len(etcdCfg.Endpoints) == 0 {
			err := errors.New("-storage etcd needs -etcd-endpoints")
			fmt.Fprintln(output, err)
			return server.Config{}, err
		}
		if etcdCfg.CompactionInterval == 0 {
			etcdCfg.CompactionInterval = -1 // never, as kube's --etcd-compaction-interval=0
		}
		etcdCfg.NoWatchCache = !*watchCache
		cfg.Etcd = etcdCfg
	default:
		err := fmt.Errorf("-storage must be %s, %s or %s, not %q", server.StorageBolt, server.StorageMemory, server.StorageEtcd, cfg.Storage)
		fmt.Fprintln(output, err)
		return server.Config{}, err
	}
	if m := cfg.AuthorizationMode; m != server.AuthorizationRBAC && m != server.AuthorizationAlwaysAllow {
		err := fmt.Errorf("-authorization-mode must be %s or %s, not %q", server.AuthorizationRBAC, server.AuthorizationAlwaysAllow, m)
		fmt.Fprintln(output, err)
		return server.Config{}, err
	}
	if *crdDir != "" {
		crds, err := apiextensions.Load(*crdDir)
		if err != nil {
			fmt.Fprintln(output, err)
			return server.Config{}, err
		}
		cfg.CRDs = crds
	}
	return cfg, nil
}

// run serves cfg until ctx ends, then shuts the server down.
func run(ctx context.Context, cfg server.Config) error {
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve() }()
	select {
	case <-ctx.Done():
		cfg.Logger.Info("shutting down", "cause", context.Cause(ctx))
		return srv.Close()
	case err := <-errc:
		return errors.Join(err, srv.Close())
	}
}
