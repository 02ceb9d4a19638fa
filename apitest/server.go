package apitest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/kubeconfig"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// ApplyTimeout bounds how long NewServer and Start wait for the CRDs of Options.CRDs to
// be established.
const ApplyTimeout = 30 * time.Second

// ShutdownTimeout bounds how long Close waits for the HTTP server to stop once it has
// closed the connections still open connectionGrace after every request was told to
// end (watches included).
const ShutdownTimeout = 5 * time.Second

// discardLog swallows net/http's own messages (client disconnects and the like).
var discardLog = log.New(io.Discard, "", 0)

// Server is a complete apikit server (rest.Handler, discovery and, unless Options gives
// another, memory storage) listening on a loopback port. Its fields are set by NewServer
// or Start and must not be changed.
type Server struct {
	// URL is the base URL of the server, "http://127.0.0.1:PORT" ("https://..." with
	// Options.TLS), without a trailing slash.
	URL string
	// Kubeconfig is a kubeconfig whose current context points at URL, with the bearer
	// token of Options.Token and, with Options.TLS, the server's certificate as its
	// authority; see the Kubeconfig function.
	Kubeconfig []byte
	// KubeconfigPath is the file holding Kubeconfig, in a directory of t.TempDir() (with
	// Start, a temporary directory that Close removes).
	KubeconfigPath string
	// Storage is the store the server serves from: a fresh storage/memory store, or
	// Options.Storage.
	Storage storage.Interface
	// Handler is the server's http.Handler, for tests that call it without a network.
	Handler http.Handler
	// CertificateAuthority is, with Options.TLS, the PEM certificate that signs (and is)
	// the server's certificate; nil otherwise.
	CertificateAuthority []byte
	// CRDs is, with Options.CRDs or Options.CRDAPI, the handler serving the
	// customresourcedefinitions resource and the resources of the stored CRDs (it is also
	// Handler): CRDs.Apply installs more and waits until they are established. nil
	// otherwise.
	CRDs *crdserver.Handler
	// Controllers are, with Options.Controllers, the namespace controller and the garbage
	// collector running beside the server; Controllers.WaitIdle waits until they have
	// nothing left to do.
	Controllers *controllers.Manager

	token     string
	httpSrv   *http.Server
	client    *http.Client
	cancel    context.CancelFunc // ends the server's context: requests, controllers, CRDs
	stopAfter func() bool        // unregisters the Close that Start's context would call
	serveDone chan struct{}
	ownStore  bool
	ownDir    string // the kubeconfig's directory, made by Start; removed by Close

	closeOnce sync.Once
	closeErr  error

	injection // faults.go
}

// Options configure a Server. The zero value serves the scheme's resources from a fresh
// memory store, over plain HTTP on 127.0.0.1 and a free port, to every client: no
// authentication, every request allowed, no CRDs, no controllers.
type Options struct {
	// REST is the template of the REST handler's options: strategies, authentication,
	// authorization, admission, Logger, Metrics, Rules (the CEL compiler that CRDs with
	// x-kubernetes-validations need: cel.New() of github.com/apikit-dev/apikit/cel),
	// limits and the rest. The Server sets Scheme, Storage and Discovery, and fills in
	// what REST leaves unset: without an Authenticator (and without Token) every request
	// is anonymous and allowed (AllowAnonymous); without an Authorizer every request is
	// allowed (authz.AlwaysAllow); without a Clock the handler uses the Server's Clock;
	// bearer tokens are accepted over plain HTTP unless TLS; a scheme serving the RBAC
	// kinds (builtin.AddRBACToScheme) gets strategies.RBAC (package registry/strategies)
	// for those Strategies does not name: kube's validation of them and its escalation
	// checks (a user grants only what the Authorizer allows the user). Without a Logger
	// the handler's messages are discarded. The Server does not modify REST's maps and
	// slices.
	REST rest.Options
	// Discovery are the options of the discovery handler (version, verbs, ...). nil means
	// discovery.Options{LazyOpenAPI: true}: the OpenAPI documents are built on the first
	// /openapi request, so that servers start fast.
	Discovery *discovery.Options
	// Storage is the store to serve from instead of a fresh memory store. The Server does
	// not close it: its owner does, after the server has stopped (a test registers that
	// cleanup before calling NewServer, as cleanups run last-registered first).
	Storage storage.Interface
	// Token is a bearer token the server requires (401 Unauthorized without it, unless
	// REST.Authenticator is set, which then authenticates instead); its user is
	// "resttest" in group system:masters. The token is in the kubeconfig and in the
	// requests of Server.Client.
	Token string
	// TLS serves HTTPS, with a certificate for 127.0.0.1, ::1 and localhost made for the
	// server, instead of plain HTTP. kubectl and client-go's clientcmd send a
	// kubeconfig's token only to https servers: a test that drives them with Token needs
	// TLS.
	TLS bool
	// Addr is the host:port to listen on instead of 127.0.0.1 and a free port, for a
	// standalone server whose clients are told the address in advance. URL and the
	// kubeconfig name 127.0.0.1 when Addr's host is unspecified ("", 0.0.0.0, ::). With
	// TLS, the certificate is for 127.0.0.1, ::1 and localhost only. Tests leave it
	// empty, which never collides.
	Addr string
	// CRDs are created through the CRD server (package apiextensions/server), beside the
	// kinds of the scheme, before NewServer or Start returns, which wait until every one
	// is established: their resources are served from the first request, and clients may
	// create, change and delete CRDs while the server runs. A CRD that cannot be served
	// fails NewServer or Start with the reason kube-apiserver would give. Setting CRDs
	// implies CRDAPI.
	CRDs []*apiextensions.CustomResourceDefinition
	// CRDAPI serves the customresourcedefinitions resource of apiextensions.k8s.io/v1
	// even without CRDs, for a test that creates its own. Servers without it or CRDs have
	// no CRD machinery.
	CRDAPI bool
	// Controllers runs beside the server what kube-controller-manager would for a
	// controller test: the namespace lifecycle (namespaces are created, terminated and
	// emptied as on a cluster when the scheme serves core/v1 namespaces, as package
	// builtin's does) and the garbage collector of ownerReferences (package
	// controllers), and, when the scheme serves core/v1 services, the Service
	// default/kubernetes (cluster IP 10.0.0.1, targetPort the server's port) with its
	// Endpoints and EndpointSlice at the address kube-apiserver would advertise (the
	// host's: the server listens on loopback), as kube-apiserver keeps them. Deletes then set kube's
	// propagation finalizers (rest.Options.GarbageCollection). /livez and /healthz get the controllers' checks
	// (garbage-collector-controller and namespace-controller, failing while the
	// controllers cannot follow the store); REST's Logger and Metrics receive theirs.
	Controllers bool
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

// NewServer starts a server for the resources of s, configured by opts, on 127.0.0.1 and
// a free port, and stops it on t.Cleanup. It fails t (t.Fatal) when the server cannot be
// built or started. The server is ready for requests when NewServer returns. Code
// without a test (a standalone server, a TestMain, Ginkgo's BeforeSuite) uses Start.
func NewServer(t TB, s *scheme.Scheme, opts Options) *Server {
	t.Helper()
	// The server lives until the test's cleanup closes it, not until t.Context() ends:
	// that happens before the cleanups, and those the test registered after NewServer
	// may still call the server.
	srv, err := start(context.Background(), s, t.TempDir(), opts)
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

// Start starts a server as NewServer does, for callers without a test. The server runs
// until ctx ends or the caller calls Close, which releases it (call Close in any case:
// it returns the error of stopping). The server writes KubeconfigPath in a temporary
// directory of its own, which Close removes. A client-go program turns the server into a
// *rest.Config with
//
//	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig) // k8s.io/client-go/tools/clientcmd
func Start(ctx context.Context, s *scheme.Scheme, opts Options) (*Server, error) {
	dir, err := os.MkdirTemp("", "resttest")
	if err != nil {
		return nil, fmt.Errorf("apitest: making the kubeconfig directory: %w", err)
	}
	srv, err := start(ctx, s, dir, opts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("apitest: %w", err), os.RemoveAll(dir))
	}
	srv.ownDir = dir
	return srv, nil
}

// restOptions returns the REST handler's options of opts for srv, without Scheme,
// Storage and Discovery, leaving opts.REST's maps and slices as they were.
func restOptions(s *scheme.Scheme, srv *Server, opts Options) rest.Options {
	o := opts.REST
	if opts.Token != "" && o.Authenticator == nil {
		o.Authenticator = TokenAuthenticator{Token: opts.Token, User: &authn.User{Name: "resttest", Groups: []string{"system:masters", "system:authenticated"}}}
	}
	// A test server on loopback: open unless the test configures otherwise.
	o.AllowAnonymous = o.AllowAnonymous || o.Authenticator == nil
	if o.Authorizer == nil {
		o.Authorizer = authz.AlwaysAllow{}
	}
	o.AllowBearerTokensOverHTTP = o.AllowBearerTokensOverHTTP || !opts.TLS
	if o.Clock == nil {
		o.Clock = srv.clock.Now
	}
	// A scheme serving the RBAC kinds gets kube's rules on writing them (validation and
	// the escalation checks) unless the test gave its own: a server where a user may
	// grant what the user does not hold would test what no cluster does.
	o.Strategies = maps.Clone(o.Strategies)
	for gr, st := range strategies.RBAC() {
		if _, served := s.Resource(gr); served {
			if _, set := o.Strategies[gr]; !set {
				if o.Strategies == nil {
					o.Strategies = map[scheme.GroupResource]registry.Strategy{}
				}
				o.Strategies[gr] = st
			}
		}
	}
	if opts.Controllers {
		o.GarbageCollection = true
		// /livez and /healthz report controllers that cannot follow the store; they
		// start after the Handler, before the server serves.
		o.LiveChecks = append(slices.Clone(o.LiveChecks), controllers.HealthChecksOf(func() *controllers.Manager { return srv.Controllers })...)
	}
	return o
}

func start(ctx context.Context, s *scheme.Scheme, dir string, opts Options) (_ *Server, err error) {
	srv := &Server{token: opts.Token, serveDone: make(chan struct{})}
	if opts.Storage != nil {
		srv.Storage = opts.Storage
	} else {
		srv.Storage, srv.ownStore = memory.New(memory.Options{}), true
	}
	// Every request's context, the controllers' and the CRD server's derive from life:
	// Close cancels it, which ends watches and other long requests (so that Shutdown
	// need not wait for them) and the goroutines of controllers and CRDs.
	life, cancel := context.WithCancel(ctx)
	srv.cancel = cancel
	defer func() {
		if err != nil {
			cancel()
			srv.stopControllers()
			_ = srv.closeCRDs()
			_ = srv.closeStorage()
		}
	}()
	restOpts := restOptions(s, srv, opts)
	disc := discovery.Options{LazyOpenAPI: true}
	if opts.Discovery != nil {
		disc = *opts.Discovery
	}
	var h http.Handler
	if opts.CRDAPI || len(opts.CRDs) > 0 {
		h, err = srv.startCRDs(life, s, restOpts, disc, opts.CRDs)
	} else {
		h, err = newREST(s, srv.Storage, restOpts, disc)
	}
	if err != nil {
		return nil, err
	}
	h = srv.installFaults(h)
	srv.Handler = h
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening: %w", err)
	}
	if opts.Controllers {
		if srv.Controllers, err = controllers.Start(life, controllers.Options{Scheme: s, Storage: srv.Storage, Logger: restOpts.Logger, Metrics: restOpts.Metrics, Clock: restOpts.Clock,
			Strategies: restOpts.Strategies, APIServer: AdvertiseAddress(ln.Addr())}); err != nil {
			return nil, errors.Join(fmt.Errorf("starting the controllers: %w", err), ln.Close())
		}
	}
	host := clientAddr(ln.Addr())
	transport := &http.Transport{
		DialContext:  (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConns: 10,
	}
	srv.URL = "http://" + host
	if opts.TLS {
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
	srv.Kubeconfig = Kubeconfig(srv.URL, opts.Token, srv.CertificateAuthority)
	srv.KubeconfigPath = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(srv.KubeconfigPath, srv.Kubeconfig, 0o600); err != nil {
		return nil, errors.Join(fmt.Errorf("writing kubeconfig: %w", err), ln.Close())
	}

	srv.httpSrv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return life },
		ErrorLog:          discardLog,
	}
	srv.client = &http.Client{Transport: &tokenTransport{token: opts.Token, base: transport}}
	go func() {
		defer close(srv.serveDone)
		_ = srv.httpSrv.Serve(ln) // returns http.ErrServerClosed after Shutdown or Close
	}()
	// The end of Start's context stops the server as Close does (NewServer's context
	// never ends: its test's cleanup closes the server).
	registered := make(chan struct{})
	srv.stopAfter = context.AfterFunc(ctx, func() {
		<-registered // Close reads stopAfter
		_ = srv.Close()
	})
	close(registered)
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
// AdvertiseAddress is the address kube-apiserver advertises for its kubernetes Service
// when it listens on addr without --advertise-address (as envtest starts it), which the
// test server with Controllers gives that Service's Endpoints: addr's own when it is
// not loopback or unspecified, else the host's address on its default route (found by
// routing a UDP socket, which sends nothing), with addr's port; without a route, only
// the port. A side-by-side test passes its address to a real kube-apiserver.
func AdvertiseAddress(addr net.Addr) netip.AddrPort {
	listening, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return netip.AddrPort{}
	}
	if a := listening.Addr(); !a.IsLoopback() && !a.IsUnspecified() {
		return listening
	}
	network, probe := "udp4", "192.0.2.1:9" // TEST-NET-1: routed, never answered
	if listening.Addr().Is6() && !listening.Addr().Is4In6() {
		network, probe = "udp6", "[2001:db8::1]:9"
	}
	c, err := net.Dial(network, probe)
	if err != nil {
		return netip.AddrPortFrom(netip.Addr{}, listening.Port())
	}
	defer c.Close()
	host, err := netip.ParseAddrPort(c.LocalAddr().String())
	if err != nil {
		return netip.AddrPortFrom(netip.Addr{}, listening.Port())
	}
	return netip.AddrPortFrom(host.Addr().Unmap(), listening.Port())
}

func newREST(s *scheme.Scheme, st storage.Interface, o rest.Options, disc discovery.Options) (http.Handler, error) {
	d, err := discovery.New(s, disc)
	if err != nil {
		return nil, fmt.Errorf("building discovery: %w", err)
	}
	o.Scheme, o.Storage, o.Discovery = s, st, d
	h, err := rest.New(o)
	if err != nil {
		return nil, fmt.Errorf("building handler: %w", err)
	}
	return h, nil
}

// startCRDs starts the CRD server, whose goroutine ends with ctx, and applies crds.
func (s *Server) startCRDs(ctx context.Context, sch *scheme.Scheme, o rest.Options, disc discovery.Options, crds []*apiextensions.CustomResourceDefinition) (http.Handler, error) {
	h, err := crdserver.Start(ctx, crdserver.Options{Scheme: sch, Storage: s.Storage, REST: o, Discovery: disc, CRDs: crds})
	if err != nil {
		return nil, fmt.Errorf("building the CRD handler: %w", err)
	}
	s.CRDs = h
	if len(crds) == 0 {
		return h, nil
	}
	actx, cancel := context.WithTimeout(ctx, ApplyTimeout)
	defer cancel()
	if err := h.Apply(actx, crds...); err != nil {
		return nil, err
	}
	return h, nil
}

// closeCRDs stops the CRD handler of Options.CRDs and CRDAPI, before the storage it watches closes.
func (s *Server) closeCRDs() error {
	if s.CRDs == nil {
		return nil
	}
	if err := s.CRDs.Close(); err != nil {
		return fmt.Errorf("stopping the CRD handler: %w", err)
	}
	return nil
}

// Client returns an HTTP client for the server that sends the bearer token of
// Options.Token, if any, and trusts the server's certificate with Options.TLS. Its idle connections are closed
// by Close.
func (s *Server) Client() *http.Client { return s.client }

// Token returns the bearer token of Options.Token ("" without one).
func (s *Server) Token() string { return s.token }

// Close stops the server: it ends long requests such as watches, shuts the HTTP server
// down (closing connections still open after a short grace) and closes the storage when
// the server created it (and, for Start, the kubeconfig's directory). NewServer
// registers Close with t.Cleanup, and the end of Start's context calls it; calling it
// earlier is allowed, and later calls return the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.stopAfter()
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

// TokenAuthenticator is authn.TokenAuthenticator; Options.Token installs one whose user
// is "resttest" in group system:masters.
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

// stopControllers stops the controllers of Options.Controllers, if any.
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
