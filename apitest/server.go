package apitest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/apiextensions"
	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/kubeconfig"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// ApplyTimeout bounds how long NewServer waits for the CRDs of WithCRDs to be
// established.
const ApplyTimeout = 30 * time.Second

// ShutdownTimeout bounds how long Close waits for the HTTP server to stop once it has
// closed the connections still open connectionGrace after every request was told to
// end (watches included).
const ShutdownTimeout = 5 * time.Second

// discardLog swallows net/http's own messages (client disconnects and the like).
var discardLog = log.New(io.Discard, "", 0)

// Server is a complete apikit server (rest.Handler, discovery and, unless an Option
// supplies another, memory storage) listening on a loopback port. Its fields are set by
// NewServer or Start and must not be changed.
type Server struct {
	// URL is the base URL of the server, "http://127.0.0.1:PORT" ("https://..." with
	// WithTLS), without a trailing slash.
	URL string
	// Kubeconfig is a kubeconfig whose current context points at URL, with the bearer
	// token of WithToken and, with WithTLS, the server's certificate as its authority;
	// see the Kubeconfig function.
	Kubeconfig []byte
	// KubeconfigPath is the file holding Kubeconfig, in a directory of t.TempDir() (with
	// Start, a temporary directory that Close removes).
	KubeconfigPath string
	// Storage is the store the server serves from: a fresh storage/memory store, or the
	// one given with WithStorage.
	Storage storage.Interface
	// Handler is the server's http.Handler, for tests that call it without a network.
	Handler http.Handler
	// CertificateAuthority is, with WithTLS, the PEM certificate that signs (and is) the
	// server's certificate; nil otherwise.
	CertificateAuthority []byte
	// CRDs is, with WithCRDs, the handler serving the customresourcedefinitions resource
	// and the resources of the stored CRDs (it is also Handler): CRDs.Apply installs more
	// and waits until they are established. nil otherwise.
	CRDs *crdserver.Handler
	// Controllers are, with WithControllers, the namespace controller and the garbage
	// collector running beside the server; Controllers.WaitIdle waits until they have
	// nothing left to do.
	Controllers *controllers.Manager

	token     string
	httpSrv   *http.Server
	client    *http.Client
	cancel    context.CancelFunc
	serveDone chan struct{}
	ownStore  bool
	ownDir    string // the kubeconfig's directory, made by Start; removed by Close

	closeOnce sync.Once
	closeErr  error

	injection // faults.go
}

// Option configures NewServer.
type Option func(*config)

type config struct {
	restOpts    rest.Options
	discOpts    discovery.Options
	storage     storage.Interface
	token       string
	tls         bool
	customAuthn bool
	tweaks      []func(*rest.Options)
	crdAPI      bool
	crds        []*apiextensions.CustomResourceDefinition
	addr        string
	controllers bool
}

// WithStrategy sets the strategy of one resource (see rest.Strategy).
func WithStrategy(gr scheme.GroupResource, s rest.Strategy) Option {
	return func(c *config) {
		if c.restOpts.Strategies == nil {
			c.restOpts.Strategies = map[scheme.GroupResource]rest.Strategy{}
		}
		c.restOpts.Strategies[gr] = s
	}
}

// WithStrategies sets the strategies of several resources, adding to earlier ones.
func WithStrategies(strategies map[scheme.GroupResource]rest.Strategy) Option {
	return func(c *config) {
		for gr, s := range strategies {
			WithStrategy(gr, s)(c)
		}
	}
}

// WithAuthenticator sets the authenticator; without one (and without WithToken) every
// request is anonymous and allowed.
func WithAuthenticator(a authn.Authenticator) Option {
	return func(c *config) { c.restOpts.Authenticator, c.customAuthn = a, true }
}

// WithAuthorizer sets the authorizer; without one every request is allowed
// (authz.AlwaysAllow).
func WithAuthorizer(a authz.Authorizer) Option {
	return func(c *config) { c.restOpts.Authorizer = a }
}

// WithMutatingAdmission appends mutating admission plugins.
func WithMutatingAdmission(plugins ...rest.MutatingAdmission) Option {
	return func(c *config) { c.restOpts.MutatingAdmission = append(c.restOpts.MutatingAdmission, plugins...) }
}

// WithValidatingAdmission appends validating admission plugins.
func WithValidatingAdmission(plugins ...rest.ValidatingAdmission) Option {
	return func(c *config) { c.restOpts.ValidatingAdmission = append(c.restOpts.ValidatingAdmission, plugins...) }
}

// WithStorage makes the server serve from st instead of a new memory store. The server
// does not close st: its owner does, after the server has stopped (register that cleanup
// before calling NewServer, as cleanups run last-registered first).
func WithStorage(st storage.Interface) Option {
	return func(c *config) { c.storage = st }
}

// WithToken makes the server require the bearer token (401 Unauthorized without it,
// unless WithAuthenticator sets another authenticator) and puts the token in the
// kubeconfig and in the requests of Server.Client.
func WithToken(token string) Option {
	return func(c *config) { c.token = token }
}

// WithTLS serves HTTPS, with a certificate for 127.0.0.1, ::1 and localhost made for the
// server, instead of plain HTTP. kubectl and client-go's clientcmd send a kubeconfig's
// token only to https servers: a test that drives them with WithToken needs WithTLS.
func WithTLS() Option {
	return func(c *config) { c.tls = true }
}

// WithLogger sets the logger of the REST handler; without one its messages are discarded.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.restOpts.Logger = l }
}

// WithDiscoveryOptions sets the options of the discovery handler (version, verbs, ...),
// replacing the default, which is discovery.Options{LazyOpenAPI: true}: the OpenAPI
// documents are built on the first /openapi request, so that servers start fast.
func WithDiscoveryOptions(opts discovery.Options) Option {
	return func(c *config) { c.discOpts = opts }
}

// WithRESTOptions lets f adjust the rest.Options after every other Option has been
// applied, for settings without an Option of their own (MaxRequestBodyBytes, ...).
// Scheme, Storage and Discovery are set by NewServer afterwards.
func WithRESTOptions(f func(*rest.Options)) Option {
	return func(c *config) { c.tweaks = append(c.tweaks, f) }
}

// WithCRDs serves the customresourcedefinitions resource of apiextensions.k8s.io/v1
// through package rest/crds, beside the kinds of the scheme, and creates crds (none is
// allowed) through it before NewServer returns, waiting until every one is established:
// their resources are served from the first request, and clients may create, change and
// delete CRDs while the server runs. A CRD that cannot be served fails NewServer with
// the reason kube-apiserver would give. CRDs with CEL rules (x-kubernetes-validations)
// need a rule compiler: WithRESTOptions(func(o *rest.Options) { o.Rules = cel.New() })
// with github.com/apikit-dev/apikit/cel. Several WithCRDs add up.
func WithCRDs(crds ...*apiextensions.CustomResourceDefinition) Option {
	return func(c *config) { c.crdAPI, c.crds = true, append(c.crds, crds...) }
}

// TB is the part of testing.TB that NewServer uses. *testing.T, *testing.B and every
// testing.TB satisfy it, and so does Ginkgo's GinkgoT(), whose FullGinkgoTInterface is
// not a testing.TB (it lacks testing.TB's private method): a Ginkgo suite passes
// GinkgoT() as it is.
type TB interface {
	Helper()
	Cleanup(func())
	TempDir() string
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// WithAddr makes the server listen on addr (host:port) instead of 127.0.0.1 and a free
// port, for a standalone server whose clients are told the address in advance. URL and
// the kubeconfig name 127.0.0.1 when addr's host is unspecified ("", 0.0.0.0, ::). With
// WithTLS, the certificate is for 127.0.0.1, ::1 and localhost only. Tests leave the
// default, which never collides.
func WithAddr(addr string) Option {
	return func(c *config) { c.addr = addr }
}

// NewServer starts a server for the resources of s on 127.0.0.1 and a free port, and
// stops it on t.Cleanup. It fails t (t.Fatal) when the server cannot be built or started.
// The server is ready for requests when NewServer returns. Code without a test (a
// standalone server, a TestMain, Ginkgo's BeforeSuite) uses Start.
func NewServer(t TB, s *scheme.Scheme, opts ...Option) *Server {
	t.Helper()
	srv, err := start(s, t.TempDir(), opts)
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("apitest: %v", err)
		}
	})
	return srv
}

// Start starts a server as NewServer does, for callers without a test: the caller calls
// Close when done. The server writes KubeconfigPath in a temporary directory of its own,
// which Close removes. A client-go program turns the server into a *rest.Config with
//
//	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig) // k8s.io/client-go/tools/clientcmd
func Start(s *scheme.Scheme, opts ...Option) (*Server, error) {
	dir, err := os.MkdirTemp("", "resttest")
	if err != nil {
		return nil, fmt.Errorf("apitest: making the kubeconfig directory: %w", err)
	}
	srv, err := start(s, dir, opts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("apitest: %w", err), os.RemoveAll(dir))
	}
	srv.ownDir = dir
	return srv, nil
}

func start(s *scheme.Scheme, dir string, opts []Option) (_ *Server, err error) {
	c := config{discOpts: discovery.Options{LazyOpenAPI: true}}
	for _, o := range opts {
		o(&c)
	}
	srv := &Server{token: c.token, serveDone: make(chan struct{})}
	if c.storage != nil {
		srv.Storage = c.storage
	} else {
		srv.Storage, srv.ownStore = memory.New(memory.Options{}), true
	}
	defer func() {
		if err != nil {
			srv.stopControllers()
			_ = srv.closeCRDs()
			_ = srv.closeStorage()
		}
	}()
	if c.token != "" && !c.customAuthn {
		c.restOpts.Authenticator = TokenAuthenticator{Token: c.token, User: &authn.User{Name: "resttest", Groups: []string{"system:masters", "system:authenticated"}}}
	}
	// A test server on loopback: open unless the test configures otherwise.
	c.restOpts.AllowAnonymous = c.restOpts.Authenticator == nil
	if c.restOpts.Authorizer == nil {
		c.restOpts.Authorizer = authz.AlwaysAllow{}
	}
	c.restOpts.AllowBearerTokensOverHTTP = !c.tls
	c.restOpts.Clock = srv.clock.Now
	for _, f := range c.tweaks {
		f(&c.restOpts)
	}
	// A scheme serving the RBAC kinds gets kube's rules on writing them (validation and
	// the escalation checks) unless the test gave its own: a server where a user may
	// grant what the user does not hold would test what no cluster does.
	for gr, st := range builtin.RBACStrategies() {
		if _, served := s.Resource(gr); served {
			if _, set := c.restOpts.Strategies[gr]; !set {
				WithStrategy(gr, st)(&c)
			}
		}
	}
	if c.controllers {
		c.restOpts.GarbageCollection = true
		// /livez and /healthz report controllers that cannot follow the store; they
		// start after the Handler, before the server serves.
		c.restOpts.LiveChecks = append(slices.Clone(c.restOpts.LiveChecks), controllers.HealthChecksOf(func() *controllers.Manager { return srv.Controllers })...)
	}
	var h http.Handler
	if c.crdAPI {
		h, err = srv.startCRDs(s, &c)
	} else {
		h, err = newREST(s, srv.Storage, &c)
	}
	if err != nil {
		return nil, err
	}
	h = srv.installFaults(h)
	srv.Handler = h
	if c.controllers {
		if srv.Controllers, err = controllers.Start(context.Background(), controllers.Options{Scheme: s, Storage: srv.Storage, Logger: c.restOpts.Logger, Metrics: c.restOpts.Metrics, Clock: c.restOpts.Clock}); err != nil {
			return nil, fmt.Errorf("starting the controllers: %w", err)
		}
	}

	addr := c.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening: %w", err)
	}
	host := clientAddr(ln.Addr())
	transport := &http.Transport{
		DialContext:  (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConns: 10,
	}
	srv.URL = "http://" + host
	if c.tls {
		cert, caPEM, err := kubeconfig.SelfSignedCertificate("resttest", 24*time.Hour, "127.0.0.1", "::1", "localhost")
		if err != nil {
			return nil, errors.Join(err, ln.Close())
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		pool := x509.NewCertPool()
		pool.AddCert(cert.Leaf)
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		srv.URL = "https://" + host
		srv.CertificateAuthority = caPEM
	}
	srv.Kubeconfig = Kubeconfig(srv.URL, c.token, srv.CertificateAuthority)
	srv.KubeconfigPath = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(srv.KubeconfigPath, srv.Kubeconfig, 0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("writing kubeconfig: %w", err), ln.Close())
	}

	// Every request's context derives from base: cancelling it on Close ends watches
	// and other long requests, so that Shutdown need not wait for them.
	base, cancel := context.WithCancel(context.Background())
	srv.cancel = cancel
	srv.httpSrv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          discardLog,
	}
	srv.client = &http.Client{Transport: &tokenTransport{token: c.token, base: transport}}
	go func() {
		defer close(srv.serveDone)
		_ = srv.httpSrv.Serve(ln) // returns http.ErrServerClosed after Shutdown or Close
	}()
	return srv, nil
}

// clientAddr is the host:port clients reach a listener at: its own, or 127.0.0.1 and its
// port when it listens on every address.
func clientAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}

// newREST builds the plain rest.Handler with its discovery.
func newREST(s *scheme.Scheme, st storage.Interface, c *config) (http.Handler, error) {
	disc, err := discovery.New(s, c.discOpts)
	if err != nil {
		return nil, fmt.Errorf("building discovery: %w", err)
	}
	c.restOpts.Scheme, c.restOpts.Storage, c.restOpts.Discovery = s, st, disc
	h, err := rest.New(c.restOpts)
	if err != nil {
		return nil, fmt.Errorf("building handler: %w", err)
	}
	return h, nil
}

// startCRDs builds the handler of WithCRDs and applies its CRDs.
func (s *Server) startCRDs(sch *scheme.Scheme, c *config) (http.Handler, error) {
	h, err := crdserver.Start(context.Background(), crdserver.Options{Scheme: sch, Storage: s.Storage, REST: c.restOpts, Discovery: c.discOpts, CRDs: c.crds})
	if err != nil {
		return nil, fmt.Errorf("building the CRD handler: %w", err)
	}
	s.CRDs = h
	if len(c.crds) == 0 {
		return h, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ApplyTimeout)
	defer cancel()
	if err := h.Apply(ctx, c.crds...); err != nil {
		return nil, err
	}
	return h, nil
}

// closeCRDs stops the CRD handler of WithCRDs, before the storage it watches closes.
func (s *Server) closeCRDs() error {
	if s.CRDs == nil {
		return nil
	}
	if err := s.CRDs.Close(); err != nil {
		return fmt.Errorf("stopping the CRD handler: %w", err)
	}
	return nil
}

// Client returns an HTTP client for the server that sends the WithToken bearer token, if
// any, and trusts the server's certificate with WithTLS. Its idle connections are closed
// by Close.
func (s *Server) Client() *http.Client { return s.client }

// Token returns the bearer token given with WithToken ("" without one).
func (s *Server) Token() string { return s.token }

// Close stops the server: it ends long requests such as watches, shuts the HTTP server
// down (closing connections still open after a short grace) and closes the storage when
// the server created it (and, for Start, the kubeconfig's directory). NewServer
// registers Close with t.Cleanup; calling it earlier is allowed, and later calls return
// the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		var errs []error
		if err := s.shutdown(); err != nil {
			errs = append(errs, fmt.Errorf("shutting down %s: %w", s.URL, err))
		}
		<-s.serveDone
		s.client.CloseIdleConnections()
		s.stopControllers()
		if err := s.closeCRDs(); err != nil {
			errs = append(errs, err)
		}
		if err := s.closeStorage(); err != nil {
			errs = append(errs, err)
		}
		if s.ownDir != "" {
			if err := os.RemoveAll(s.ownDir); err != nil {
				errs = append(errs, fmt.Errorf("removing the kubeconfig directory: %w", err))
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// closeStorage closes the storage if the server created it.
func (s *Server) closeStorage() error {
	if !s.ownStore {
		return nil
	}
	switch st := s.Storage.(type) {
	case interface{ Close() error }:
		if err := st.Close(); err != nil {
			return fmt.Errorf("closing storage: %w", err)
		}
	case interface{ Close() }:
		st.Close()
	}
	return nil
}

// TokenAuthenticator is authn.TokenAuthenticator; WithToken installs one whose user is
// "resttest" in group system:masters.
type TokenAuthenticator = authn.TokenAuthenticator

// tokenTransport adds a bearer token to requests that carry no Authorization header.
type tokenTransport struct {
	token string
	base  *http.Transport
}

func (t *tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.token == "" || r.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the base transport.
func (t *tokenTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// WithControllers runs beside the server what kube-controller-manager would for a
// controller test: the namespace lifecycle (namespaces are created, terminated and
// emptied as on a cluster when the scheme serves core/v1 namespaces, as package
// builtin's does) and the garbage collector of ownerReferences (package controllers).
// Deletes then set kube's propagation finalizers (rest.Options.GarbageCollection).
// /livez and /healthz get the controllers' checks (garbage-collector-controller and
// namespace-controller, failing while the controllers cannot follow the store), the
// REST handler's Logger and Metrics receive theirs.
func WithControllers() Option {
	return func(c *config) { c.controllers = true }
}

// stopControllers stops the controllers of WithControllers, if any.
func (s *Server) stopControllers() {
	if s.Controllers != nil {
		s.Controllers.Stop()
	}
}

// connectionGrace is how long Close lets connections that are neither busy nor idle
// (net/http's StateNew: a client connected, maybe mid-TLS-handshake, and sent no
// request yet) live before closing them. http.Server.Shutdown would wait five seconds
// for them, which a test suite's teardown pays whenever a client connects as it stops.
const connectionGrace = 50 * time.Millisecond

// shutdown waits for the requests in flight, which end soon since their contexts are
// cancelled, for at most ShutdownTimeout; connections that have sent no request are
// closed after connectionGrace.
func (s *Server) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.httpSrv.Shutdown(ctx) }()
	select {
	case err := <-done:
		return err
	case <-time.After(connectionGrace):
	}
	// Still waiting: for a request in flight, or for a connection that never sent one.
	// Requests have had their contexts cancelled; close what remains.
	_ = s.httpSrv.Close()
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
