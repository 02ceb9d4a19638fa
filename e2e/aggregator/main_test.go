package aggregator

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/klog/v2"
)

// frontProxyClientName is the name of the aggregator's proxy client certificate, as
// kubeadm names it; aggregated servers list it in -requestheader-allowed-names.
const frontProxyClientName = "front-proxy-client"

// widgetViewersGroup is the group whose members the cluster's policy lets read.
const widgetViewersGroup = "widget-viewers"

// The test users: admin (system:masters) may do everything, bob only read.
const (
	adminUser = "admin"
	bobUser   = "bob"
)

// env is the environment every test of the package shares: starting the aggregator and
// etcd takes seconds, so it happens once, in TestMain, and stops after the last test.
var env *environment

// environment is the kube-aggregator over its etcd, the kube-apiserver stand-in, and the
// two aggregated servers behind the aggregator, with the credentials to reach them.
type environment struct {
	etcd       *embeddedEtcd
	kube       *kubeAPIServerStandIn
	aggregator *kubeAggregator
	// echo serves echo.example.com/v1: it reports what the aggregator's proxy presents.
	echo *httptest.Server
	// widgets is the example server, serving toys.example.com/v1.
	widgets *server.Server
	// pkiDir holds the certificate, key and kubeconfig files the servers read.
	pkiDir string
	// tokens maps each test user to the bearer token the aggregator (and the stand-in's
	// TokenReview) knows.
	tokens map[string]string
	// frontProxyCA signs the aggregator's proxy client certificate; clusterCA signs the
	// cluster's client certificates (the ConfigMap's client-ca-file); servingCA signs the
	// widgets server's serving certificate.
	frontProxyCA, clusterCA, servingCA *certificateAuthority
}

func TestMain(m *testing.M) {
	if !verboseLogs() {
		klog.SetLogger(logr.Discard())
	}
	e, err := startEnvironment()
	if err != nil {
		fmt.Fprintf(os.Stderr, "aggregator tests: %v\n", err)
		os.Exit(1)
	}
	env = e
	code := m.Run()
	if err := e.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "aggregator tests: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// verboseLogs reports whether AGGREGATOR_LOG asks for the aggregator's and etcd's logs.
func verboseLogs() bool { return os.Getenv("AGGREGATOR_LOG") != "" }

func startEnvironment() (_ *environment, err error) {
	e := &environment{tokens: map[string]string{adminUser: rand.Text(), bobUser: rand.Text()}}
	defer func() {
		if err != nil {
			err = errors.Join(err, e.Stop())
		}
	}()
	if e.pkiDir, err = os.MkdirTemp("", "apikit-aggregator-pki-"); err != nil {
		return nil, err
	}
	if e.frontProxyCA, err = newCertificateAuthority("front-proxy-ca"); err != nil {
		return nil, err
	}
	if e.clusterCA, err = newCertificateAuthority("kubernetes-ca"); err != nil {
		return nil, err
	}
	if e.servingCA, err = newCertificateAuthority("widgets-serving-ca"); err != nil {
		return nil, err
	}
	proxyCert, err := e.frontProxyCA.ClientCert(frontProxyClientName)
	if err != nil {
		return nil, err
	}
	proxyCertFile, proxyKeyFile, err := proxyCert.WriteFiles(e.pkiDir, frontProxyClientName)
	if err != nil {
		return nil, err
	}

	users := map[string]authenticationv1.UserInfo{
		e.tokens[adminUser]: {Username: adminUser, Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}},
		e.tokens[bobUser]:   {Username: bobUser, Groups: []string{widgetViewersGroup, user.AllAuthenticated}},
	}
	e.kube = startKubeAPIServerStandIn(authenticationConfig{
		ClientCAPEM:        e.clusterCA.PEM,
		RequestHeaderCAPEM: e.frontProxyCA.PEM,
		AllowedNames:       []string{frontProxyClientName},
	}, users)
	e.echo = startEchoBackend(e.frontProxyCA.Pool())
	if e.widgets, err = startWidgetsServer(e); err != nil {
		return nil, err
	}
	widgetsAddr, err := net.ResolveTCPAddr("tcp", strings.TrimPrefix(e.widgets.TLSURL(), "https://"))
	if err != nil {
		return nil, err
	}
	backends := []aggregatedBackend{
		{Group: echoGroup, Version: echoVersion, Addr: e.echo.Listener.Addr().(*net.TCPAddr)},
		{Group: toysGroup, Version: toysVersion, Addr: widgetsAddr},
	}

	if e.etcd, err = startEtcd(); err != nil {
		return nil, err
	}
	aggregatorUsers := map[string]*user.DefaultInfo{}
	for token, u := range users {
		aggregatorUsers[token] = &user.DefaultInfo{Name: u.Username, Groups: u.Groups}
	}
	e.aggregator, err = startAggregator(aggregatorConfig{
		EtcdURL:             e.etcd.ClientURL,
		ProxyClientCertFile: proxyCertFile,
		ProxyClientKeyFile:  proxyKeyFile,
		Users:               aggregatorUsers,
		Backends:            backends,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the aggregator: %w", err)
	}
	if err := e.aggregator.RegisterAPIServices(backends...); err != nil {
		return nil, err
	}
	return e, nil
}

// Stop stops everything started, in the reverse order.
func (e *environment) Stop() error {
	var errs []error
	if e.aggregator != nil {
		errs = append(errs, e.aggregator.Stop())
	}
	if e.etcd != nil {
		errs = append(errs, e.etcd.Stop())
	}
	if e.widgets != nil {
		errs = append(errs, e.widgets.Close())
	}
	if e.echo != nil {
		e.echo.Close()
	}
	if e.kube != nil {
		e.kube.Close()
	}
	if e.pkiDir != "" {
		errs = append(errs, os.RemoveAll(e.pkiDir))
	}
	return errors.Join(errs...)
}
