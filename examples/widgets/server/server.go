package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/kubeconfig"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/serving"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/bolt"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/validation/structural"
)

// The storage backends Config.Storage names.
const (
	// StorageBolt is the durable embedded backend (storage/bolt), the default.
	StorageBolt = "bolt"
	// StorageMemory keeps everything in memory (storage/memory); nothing survives a restart.
	StorageMemory = "memory"
	// StorageEtcd keeps the objects in an etcd cluster (storage/etcd, Config.Etcd), so
	// that several servers over one cluster are replicas of one API.
	StorageEtcd = "etcd"
)

// DefaultAddr is the listen address when Config.Addr is empty.
const DefaultAddr = "127.0.0.1:8080"

// DBFile is the name of the bolt file inside Config.DataDir.
const DBFile = "widgets.db"

// ApplyTimeout bounds how long New waits for Config.CRDs to be established.
const ApplyTimeout = 30 * time.Second

// ShutdownTimeout bounds how long Close waits for requests in flight before it closes
// their connections.
const ShutdownTimeout = 10 * time.Second

// Config configures New. The zero Config is not usable: bolt storage needs DataDir.
type Config struct {
	// Addr is the TCP address to serve plain HTTP on; "" means DefaultAddr, and port 0
	// picks a free port (see Server.URL).
	Addr string
	// Storage is StorageBolt ("" means the same), StorageMemory or StorageEtcd.
	Storage string
	// DataDir is the directory of the bolt file DBFile, created if missing; required for
	// StorageBolt, unused otherwise.
	DataDir string
	// Etcd is the cluster of StorageEtcd; its Endpoints are required for it.
	Etcd EtcdConfig
	// KubeconfigPath, when set, is where New writes (mode 0600) a kubeconfig for the
	// server carrying Token.
	KubeconfigPath string
	// Token is a bearer token of user "admin" in system:masters, accepted over TLS
	// beside the credentials of Serving; "" generates a random one (see Server.Token).
	Token string
	// Logger receives the server's messages; nil means slog.Default().
	Logger *slog.Logger
	// CRDs are CustomResourceDefinitions New creates (or updates) through the API and
	// waits for, so that their resources are served from the first request, beside the
	// Go kinds and whatever CRDs clients create later (the -crds flag loads them with
	// apiextensions.Load).
	CRDs []*apiextensions.CustomResourceDefinition
	// Serving holds kube-apiserver's serving, authentication and authorization options
	// (package serving: -tls-cert-file, -client-ca-file, -requestheader-*,
	// -authentication-kubeconfig, -authorization-kubeconfig, ...); nil means
	// serving.NewOptions(): a self-signed certificate made at start, the token, and RBAC
	// over the stored roles and bindings.
	Serving *serving.Options
	// Rules compiles CEL validation rules (x-kubernetes-validations); the example's
	// command sets it to cel.New() of github.com/apikit-dev/apikit/cel, a module of its
	// own so that apikit's main module does not depend on cel-go. With Rules nil, New
	// refuses Config.CRDs with rules (see ErrCELNotEnabled), and the API refuses such
	// CRDs as kube-apiserver refuses invalid ones.
	Rules structural.RuleCompiler
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight are rest.Options' in-flight
	// limits (kube's --max-requests-inflight, --max-mutating-requests-inflight): 0 means
	// kube's defaults, 400 and 200, a negative value no limit.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// AuditPolicyFile is an audit.k8s.io/v1 Policy (kube-apiserver's
	// --audit-policy-file) deciding what AuditLogPath receives of each request. As in
	// kube-apiserver, nothing is recorded without one, and an invalid one fails New
	// also when AuditLogPath is empty.
	AuditPolicyFile string
	// AuditLogPath is where audit events go as JSON lines (kube-apiserver's
	// --audit-log-path): "-" is standard output, any other path a file (and its
	// directory) created if missing, mode 0600, appended to and closed by Close.
	AuditLogPath string
	// AccessLog sends one line per request to Logger (rest.Options.AccessLog), with
	// the fields of kube-apiserver's httplog.
	AccessLog bool
	// AuthorizationMode is kube-apiserver's --authorization-mode for this server's own
	// decisions: AuthorizationRBAC ("" means the same) or AuthorizationAlwaysAllow, which
	// lets every authenticated request do everything. With Serving.AnonymousAuth that
	// opens the whole API to anyone, over plain HTTP too: a mode for benchmarks against
	// servers run that way, never for a server others can reach.
	AuthorizationMode string
}

// The values of Config.AuthorizationMode, spelled as kube-apiserver's --authorization-mode.
const (
	AuthorizationRBAC        = "RBAC"
	AuthorizationAlwaysAllow = "AlwaysAllow"
)

// ErrCELNotEnabled is the error of New for a CRD with CEL validation rules when
// Config.Rules is nil.
var ErrCELNotEnabled = errors.New("has CEL validation rules (x-kubernetes-validations); serving it needs a server built with github.com/apikit-dev/apikit/cel (Config.Rules = cel.New())")

// Server is the example widget API server. Create it with New, serve with Start (or
// Serve) and stop it with Close.
type Server struct {
	cfg        Config
	log        *slog.Logger
	store      storage.Interface
	closeStore func() error
	// readyChecks and liveChecks are /readyz's and /livez's checks of the storage
	// (openStorage).
	readyChecks []rest.HealthCheck
	liveChecks  []rest.HealthCheck
	handler     http.Handler
	crds        *crdserver.Handler
	ln          net.Listener
	// rawListener is ln before TLS sniffing, closed by New when it fails.
	rawListener net.Listener
	// rbacDone is closed when the RBAC authorizer stops following storage.
	rbacDone chan struct{}
	// auditLog is the file of Config.AuditLogPath, nil for none or standard output.
	auditLog   *os.File
	httpSrv    *http.Server
	url        string
	tlsURL     string
	caPEM      []byte
	kubeconfig []byte
	cancel     context.CancelFunc

	mu        sync.Mutex
	started   bool
	closed    bool
	serveDone chan struct{}
	serveErr  error
	closeOnce sync.Once
	closeErr  error

	// newConns are the connections that have not sent a request yet. Shutdown lets such
	// a connection wait up to five seconds before it counts as idle (net/http, Go issue
	// 22682); Close closes them at once, since they carry no request. closing makes
	// the ConnState hook close any that arrive meanwhile.
	connMu   sync.Mutex
	newConns map[net.Conn]struct{}
	closing  bool
}

// New builds the server of cfg: the listener on cfg.Addr, the scheme of package api with
// Strategies and the rbac.authorization.k8s.io/v1 kinds, the storage backend, the
// authentication and authorization of cfg.Serving (the token's user, client
// certificates, the front proxy, delegation; RBAC over the stored roles and bindings),
// the handler of package apiextensions/server (the Go kinds, the customresourcedefinitions
// resource and every stored CRD's resource, with discovery, /metrics, and the audit and
// access logs cfg asks for), and cfg.CRDs applied and established; it writes the
// kubeconfig when cfg.KubeconfigPath is set. The server does
// not answer requests before Start or Serve.
func New(cfg Config) (_ *Server, err error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Token == "" {
		cfg.Token = rand.Text()
	}
	if cfg.Rules == nil {
		for _, crd := range cfg.CRDs {
			if crd.HasRules() {
				return nil, fmt.Errorf("widgets server: CRD %s %w", crd.Name, ErrCELNotEnabled)
			}
		}
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, log: cfg.Logger, serveDone: make(chan struct{}), cancel: cancel}
	defer func() {
		if err != nil {
			cancel()
			err = errors.Join(err, s.stopRBAC(), s.closeCRDs(), s.closeStorage(), s.closeAuditLog(), s.closeListener())
		}
	}()

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("widgets server: %w", err)
	}
	s.rawListener = ln
	hostPort := clientAddress(ln.Addr().(*net.TCPAddr))
	s.url, s.tlsURL = "http://"+hostPort, "https://"+hostPort

	sch := api.NewScheme()
	if err := builtin.AddRBACToScheme(sch); err != nil {
		return nil, fmt.Errorf("widgets server: %w", err)
	}
	if err := s.openStorage(base, sch); err != nil {
		return nil, err
	}

	servingOpts, err := s.servingOptions(hostPort)
	if err != nil {
		return nil, err
	}
	auditConfig, err := s.openAuditLog()
	if err != nil {
		return nil, err
	}
	rbac, err := authz.NewRBAC()
	if err != nil {
		return nil, fmt.Errorf("widgets server: %w", err)
	}
	var authorizer authz.Authorizer = rbac
	switch cfg.AuthorizationMode {
	case "", AuthorizationRBAC:
	case AuthorizationAlwaysAllow:
		authorizer = authz.AlwaysAllow{}
		s.log.Warn("authorization mode AlwaysAllow: every authenticated request may do everything", "anonymousAuth", servingOpts.AnonymousAuth)
	default:
		return nil, fmt.Errorf("widgets server: authorization mode must be %s or %s, not %q", AuthorizationRBAC, AuthorizationAlwaysAllow, cfg.AuthorizationMode)
	}
	sec, err := servingOpts.Build(base, serving.Host{
		// The token's user is in system:masters, whom the always-allowed groups let do
		// everything, as kube-apiserver does.
		Authenticators: []authn.Authenticator{TokenAuthenticator{Token: cfg.Token}},
		Authorizer:     authorizer,
	})
	if err != nil {
		return nil, fmt.Errorf("widgets server: %w", err)
	}
	writeRules := Strategies()
	maps.Copy(writeRules, strategies.RBAC())
	h, err := crdserver.Start(base, crdserver.Options{
		Scheme:  sch,
		Storage: s.store,
		REST: sec.ApplyTo(rest.Options{
			Strategies: writeRules,
			Logger:     cfg.Logger,
			Rules:      cfg.Rules,

			MaxRequestsInFlight:         cfg.MaxRequestsInFlight,
			MaxMutatingRequestsInFlight: cfg.MaxMutatingRequestsInFlight,

			// /metrics with kube-apiserver's metric names, authorized like any
			// non-resource path: system:masters (the token's user) may read it.
			Metrics:   metrics.NewRegistry(),
			Audit:     auditConfig,
			AccessLog: accessLogger(cfg),

			ReadyChecks: s.readyChecks,
			LiveChecks:  s.liveChecks,
		}),
	})
	if err != nil {
		return nil, fmt.Errorf("widgets server: building handler: %w", err)
	}
	s.handler, s.crds = h, h
	s.followRBAC(base, rbac, sch)
	if len(cfg.CRDs) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), ApplyTimeout)
		err := h.Apply(ctx, cfg.CRDs...)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("widgets server: %w", err)
		}
		s.log.Info("CRDs applied", "count", len(cfg.CRDs))
	}

	// net/http speaks HTTP/2 only on a *tls.Conn it accepted itself; the sniffed
	// connections of dualListener answer HTTP/1.1, so ALPN must not offer h2.
	tlsConfig := sec.TLS.Clone()
	tlsConfig.NextProtos = []string{"http/1.1"}
	s.ln = dualListener{Listener: ln, config: tlsConfig}
	s.kubeconfig = Kubeconfig(s.tlsURL, cfg.Token, s.caPEM)
	if cfg.KubeconfigPath != "" {
		if err := os.WriteFile(cfg.KubeconfigPath, s.kubeconfig, 0o600); err != nil {
			return nil, fmt.Errorf("widgets server: writing kubeconfig: %w", err)
		}
		// WriteFile keeps the mode of an existing file: make sure the token is private.
		if err := os.Chmod(cfg.KubeconfigPath, 0o600); err != nil {
			return nil, fmt.Errorf("widgets server: writing kubeconfig: %w", err)
		}
	}

	s.httpSrv = sec.HTTPServer(withTLSState(h))
	s.httpSrv.TLSConfig = nil // dualListener speaks TLS; Serve must not
	s.httpSrv.BaseContext = func(net.Listener) context.Context { return base }
	s.httpSrv.ConnContext = withConn
	s.httpSrv.ErrorLog = slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug)
	s.httpSrv.ConnState = s.trackConn
	return s, nil
}

// openStorage opens the backend cfg.Storage names for sch; what it starts (the etcd
// watch cache) runs until ctx ends.
func (s *Server) openStorage(ctx context.Context, sch *scheme.Scheme) error {
	switch s.cfg.Storage {
	case "", StorageBolt:
		if s.cfg.DataDir == "" {
			return errors.New("widgets server: bolt storage needs a data directory")
		}
		if err := os.MkdirAll(s.cfg.DataDir, 0o700); err != nil {
			return fmt.Errorf("widgets server: creating data directory: %w", err)
		}
		path := filepath.Join(s.cfg.DataDir, DBFile)
		st, err := bolt.New(path, bolt.Options{
			Codec:  newStorageCodec(sch),
			Logger: s.cfg.Logger,
		})
		if err != nil {
			return fmt.Errorf("widgets server: opening storage: %w", err)
		}
		s.store, s.closeStore = st, st.Close
		// A bolt store whose write or fsync failed (a full disk) takes no more writes
		// until the process restarts (see storage/bolt): /readyz fails so that no
		// request is sent here meanwhile, and /livez so that the supervisor restarts it.
		check := rest.HealthCheck{Name: "bolt", Check: st.Check}
		s.readyChecks = append(s.readyChecks, check)
		s.liveChecks = append(s.liveChecks, check)
		s.log.Info("storage opened", "backend", StorageBolt, "path", path)
	case StorageMemory:
		st := memory.New(memory.Options{})
		s.store, s.closeStore = st, func() error { st.Close(); return nil }
		s.log.Info("storage opened", "backend", StorageMemory)
	case StorageEtcd:
		return s.openEtcd(ctx, sch)
	default:
		return fmt.Errorf("widgets server: unknown storage %q (want %q, %q or %q)", s.cfg.Storage, StorageBolt, StorageMemory, StorageEtcd)
	}
	return nil
}

// openAuditLog returns the audit configuration of Config.AuditPolicyFile and
// Config.AuditLogPath, nil when nothing is to be recorded, opening the log file (kept
// in s.auditLog for Close). It follows kube-apiserver's audit options: the policy is
// loaded and validated whenever it is named; a log path without a policy records
// nothing, which is logged, not refused; "-" is standard output; a file is created with
// its directory (0700) as mode 0600 and appended to.
func (s *Server) openAuditLog() (*audit.Config, error) {
	var policy *audit.Policy
	if s.cfg.AuditPolicyFile != "" {
		p, err := audit.LoadPolicyFile(s.cfg.AuditPolicyFile)
		if err != nil {
			return nil, fmt.Errorf("widgets server: %w", err)
		}
		policy = p
	}
	switch {
	case s.cfg.AuditLogPath == "":
		return nil, nil
	case policy == nil:
		s.log.Info("no audit policy file provided, no events will be recorded for the log backend", "auditLogPath", s.cfg.AuditLogPath)
		return nil, nil
	case s.cfg.AuditLogPath == "-":
		return &audit.Config{Policy: policy, Sink: audit.NewWriterSink(os.Stdout)}, nil
	}
	if err := os.MkdirAll(filepath.Dir(s.cfg.AuditLogPath), 0o700); err != nil {
		return nil, fmt.Errorf("widgets server: creating the audit log directory: %w", err)
	}
	f, err := os.OpenFile(s.cfg.AuditLogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("widgets server: opening the audit log: %w", err)
	}
	s.auditLog = f
	s.log.Info("audit log opened", "path", s.cfg.AuditLogPath, "policy", s.cfg.AuditPolicyFile)
	return &audit.Config{Policy: policy, Sink: audit.NewWriterSink(f)}, nil
}

// closeAuditLog closes the audit log file, which must happen after the last request
// has ended.
func (s *Server) closeAuditLog() error {
	if s.auditLog == nil {
		return nil
	}
	err := s.auditLog.Close()
	s.auditLog = nil
	if err != nil {
		return fmt.Errorf("widgets server: closing the audit log: %w", err)
	}
	return nil
}

// accessLogger is the access log of cfg: its Logger when AccessLog is set.
func accessLogger(cfg Config) *slog.Logger {
	if cfg.AccessLog {
		return cfg.Logger
	}
	return nil
}

// servingOptions returns a copy of cfg.Serving (serving.NewOptions() when nil) whose
// default certificate is self-signed for hostPort's host, 127.0.0.1, ::1 and localhost,
// used unless -tls-cert-file is given; its PEM becomes CertificateAuthority.
func (s *Server) servingOptions(hostPort string) (*serving.Options, error) {
	opts := serving.NewOptions()
	if s.cfg.Serving != nil {
		*opts = *s.cfg.Serving
	}
	if opts.Logger == nil {
		opts.Logger = s.cfg.Logger
	}
	if opts.TLSCertFile != "" {
		return opts, nil
	}
	host, _, _ := net.SplitHostPort(hostPort)
	cert, caPEM, err := kubeconfig.SelfSignedCertificate("widgets example server", 365*24*time.Hour, uniq("127.0.0.1", "::1", "localhost", host)...)
	if err != nil {
		return nil, fmt.Errorf("widgets server: %w", err)
	}
	opts.DefaultCertificate, s.caPEM = &cert, caPEM
	return opts, nil
}

// followRBAC keeps rbac in step with the roles and bindings in storage until ctx ends;
// stopRBAC waits for that.
func (s *Server) followRBAC(ctx context.Context, rbac *authz.RBAC, sch *scheme.Scheme) {
	done := make(chan struct{})
	s.rbacDone = done
	go func() {
		defer close(done)
		if err := rbac.WatchStorage(ctx, sch, s.store); err != nil && ctx.Err() == nil {
			s.log.Error("RBAC stopped following storage; only system:masters and the token are authorized", "err", err)
		}
	}()
}

// stopRBAC waits until followRBAC's goroutine has ended (its context is cancelled
// first), which must happen before the storage closes.
func (s *Server) stopRBAC() error {
	if s.rbacDone != nil {
		<-s.rbacDone
	}
	return nil
}

// closeListener closes the listener when New fails after opening it.
func (s *Server) closeListener() error {
	if s.rawListener == nil {
		return nil
	}
	return s.rawListener.Close()
}

// URL returns the server's plain HTTP base URL, "http://HOST:PORT" (127.0.0.1 when
// listening on every address).
func (s *Server) URL() string { return s.url }

// TLSURL returns the server's HTTPS base URL, "https://HOST:PORT": the same port as
// URL, answering TLS with a certificate signed by CertificateAuthority. The kubeconfig
// uses it, because kubectl and client-go's clientcmd send a kubeconfig's token only to
// https servers.
func (s *Server) TLSURL() string { return s.tlsURL }

// CertificateAuthority returns the PEM certificate that signs (and is) the server's TLS
// certificate, made at start for 127.0.0.1, ::1, localhost and the listen host; nil
// when Config.Serving names a -tls-cert-file (the kubeconfig then embeds no CA).
func (s *Server) CertificateAuthority() []byte { return s.caPEM }

// Token returns the bearer token requests must carry.
func (s *Server) Token() string { return s.cfg.Token }

// Kubeconfig returns the kubeconfig of the server (see the Kubeconfig function).
func (s *Server) Kubeconfig() []byte { return s.kubeconfig }

// Handler returns the server's http.Handler (authentication included).
func (s *Server) Handler() http.Handler { return s.handler }

// Storage returns the server's storage backend.
func (s *Server) Storage() storage.Interface { return s.store }

// Serve answers requests until Close; it returns nil after Close (also when Close came
// first) and the listener's error otherwise. Serve may be called once, and not together
// with Start.
func (s *Server) Serve() error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil
	case s.started:
		s.mu.Unlock()
		return errors.New("widgets server: already serving")
	}
	s.started = true
	s.mu.Unlock()
	s.log.Info("serving", "url", s.url, "tlsURL", s.tlsURL, "storage", s.storageName(), "kubeconfig", s.cfg.KubeconfigPath)
	err := s.httpSrv.Serve(s.ln)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	s.serveErr = err
	close(s.serveDone)
	return err
}

// Start serves in a goroutine of its own and returns at once; Close stops it and returns
// its error.
func (s *Server) Start() {
	go func() {
		if err := s.Serve(); err != nil {
			s.log.Error("serving failed", "err", err)
		}
	}()
}

// Close stops the server: it ends long requests such as watches, shuts HTTP down
// (closing connections still busy after ShutdownTimeout), closes the storage (for
// bolt, committing what is queued) and the audit log file. Later calls return the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		started := s.started
		s.closed = true // a Serve that has not started yet returns at once
		s.mu.Unlock()
		s.cancel()
		s.closeNewConns()
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		var errs []error
		if err := s.httpSrv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("widgets server: shutting down: %w", err))
			_ = s.httpSrv.Close()
		}
		if started {
			<-s.serveDone
			if s.serveErr != nil {
				errs = append(errs, fmt.Errorf("widgets server: serving: %w", s.serveErr))
			}
		} else {
			_ = s.ln.Close() // Shutdown closes only listeners that Serve saw
		}
		_ = s.stopRBAC() // cancel above ended it
		if err := s.closeCRDs(); err != nil {
			errs = append(errs, err)
		}
		if err := s.closeStorage(); err != nil {
			errs = append(errs, err)
		}
		if err := s.closeAuditLog(); err != nil {
			errs = append(errs, err)
		}
		s.closeErr = errors.Join(errs...)
		s.log.Info("stopped", "url", s.url)
	})
	return s.closeErr
}

// trackConn keeps newConns as connections change state.
func (s *Server) trackConn(c net.Conn, state http.ConnState) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	switch {
	case state == http.StateNew && s.closing:
		_ = c.Close()
	case state == http.StateNew:
		if s.newConns == nil {
			s.newConns = map[net.Conn]struct{}{}
		}
		s.newConns[c] = struct{}{}
	default:
		delete(s.newConns, c)
	}
}

// closeNewConns closes the connections that have not sent a request, and every one
// accepted from now on.
func (s *Server) closeNewConns() {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.closing = true
	for c := range s.newConns {
		_ = c.Close()
	}
	clear(s.newConns)
}

// closeCRDs stops following the stored CRDs, which must happen before the storage
// closes.
func (s *Server) closeCRDs() error {
	if s.crds == nil {
		return nil
	}
	err := s.crds.Close()
	s.crds = nil
	if err != nil {
		return fmt.Errorf("widgets server: stopping the CRD handler: %w", err)
	}
	return nil
}

func (s *Server) closeStorage() error {
	if s.closeStore == nil {
		return nil
	}
	err := s.closeStore()
	s.closeStore = nil
	if err != nil {
		return fmt.Errorf("widgets server: closing storage: %w", err)
	}
	return nil
}

func (s *Server) storageName() string {
	if s.cfg.Storage == "" {
		return StorageBolt
	}
	return s.cfg.Storage
}

// TokenAuthenticator is the example's authn.Authenticator, authn.TokenAuthenticator: a
// request is "admin" (group system:masters) when it carries "Authorization: Bearer
// <Token>", and unauthenticated (401) otherwise.
type TokenAuthenticator = authn.TokenAuthenticator

// Kubeconfig returns the kubeconfig kubectl and client-go use (see kubeconfig.New), with
// cluster, user and context named "widgets". kubectl sends the token only when
// serverURL is https.
func Kubeconfig(serverURL, token string, caPEM []byte) []byte {
	return kubeconfig.New("widgets", serverURL, token, caPEM)
}

// clientAddress is the host:port clients use for a listener's address: the loopback
// address when the listener takes every address.
func clientAddress(a *net.TCPAddr) string {
	ip := a.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(a.Port))
}

// uniq returns the distinct non-empty values, in order.
func uniq(values ...string) []string {
	var out []string
	for _, v := range values {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
