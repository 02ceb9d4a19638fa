package aggregator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/filters"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apiserver"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	"k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	aggregatorserver "k8s.io/kube-aggregator/pkg/cmd/server"
	"k8s.io/kube-aggregator/pkg/generated/openapi"
)

// Bounds of the aggregator's life in a test run.
const (
	// aggregatorReadyTimeout bounds the start until /readyz answers ok.
	aggregatorReadyTimeout = 60 * time.Second
	// apiServiceAvailableTimeout bounds the wait for the aggregator's own availability
	// controller to mark an APIService Available (usually a second or two).
	apiServiceAvailableTimeout = 60 * time.Second
	// aggregatorStopTimeout bounds the graceful stop; a proxied watch still open keeps
	// the HTTP/2 server from shutting down, so tests close theirs first.
	aggregatorStopTimeout = 30 * time.Second
	// pollInterval is the pause between two readiness checks.
	pollInterval = 50 * time.Millisecond
)

// backendNamespace is the namespace of the Services that stand for the aggregated servers.
const backendNamespace = "default"

// aggregatedBackend is one aggregated API server and the APIService GROUP/VERSION that
// routes to it.
type aggregatedBackend struct {
	Group, Version string
	// Addr is the server's 127.0.0.1:PORT.
	Addr *net.TCPAddr
}

// APIServiceName is the APIService's name, VERSION.GROUP.
func (b aggregatedBackend) APIServiceName() string { return b.Version + "." + b.Group }

// ServiceName is the name of the Service the APIService points at.
func (b aggregatedBackend) ServiceName() string {
	return strings.ReplaceAll(b.Group, ".", "-") + "-" + b.Version
}

// aggregatorConfig is what startAggregator needs.
type aggregatorConfig struct {
	EtcdURL string
	// ProxyClientCertFile and ProxyClientKeyFile are the front-proxy client certificate
	// (kube-apiserver's --proxy-client-cert-file and --proxy-client-key-file).
	ProxyClientCertFile, ProxyClientKeyFile string
	// Users maps each bearer token the aggregator accepts to its user.
	Users map[string]*user.DefaultInfo
	// Backends are the aggregated servers; their Services and EndpointSlices exist from
	// the start, their APIServices once RegisterAPIServices creates them.
	Backends []aggregatedBackend
}

// kubeAggregator is a running kube-aggregator, serving HTTPS on 127.0.0.1.
type kubeAggregator struct {
	// URL is https://127.0.0.1:PORT.
	URL string
	// CAPEM verifies the aggregator's (self-signed) serving certificate.
	CAPEM []byte
	// loopback is the aggregator's privileged in-process client configuration.
	loopback *rest.Config
	stop     context.CancelFunc
	done     chan struct{}
	runErr   error
}

// startAggregator runs the kube-aggregator as its own command builds it
// (k8s.io/kube-aggregator/pkg/cmd/server), with what a standalone aggregator lacks put
// in place, since there is no kube-apiserver behind it:
//
//   - authentication is a static token table, authorization aggregatorAuthorizer;
//   - there is no core API: Services and EndpointSlices come from an in-memory clientset
//     holding one of each per backend, so that kube's own ClusterIP service resolver
//     routes to the backend and kube's own availability controller checks it;
//   - no admission, no priority and fairness; the delegate is an empty server.
func startAggregator(cfg aggregatorConfig) (_ *kubeAggregator, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			ln.Close()
		}
	}()
	addr := ln.Addr().(*net.TCPAddr)

	opts := aggregatorserver.NewDefaultOptions(io.Discard, io.Discard)
	if err := opts.ServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	opts.ServerRunOptions.AdvertiseAddress = addr.IP
	opts.ServerRunOptions.ExternalHost = addr.String()
	recommended := opts.RecommendedOptions
	recommended.Etcd.StorageConfig.Transport.ServerList = []string{cfg.EtcdURL}
	recommended.SecureServing.Listener = ln
	recommended.SecureServing.BindAddress, recommended.SecureServing.BindPort = addr.IP, addr.Port
	recommended.SecureServing.ServerCert.CertDirectory = "" // a serving certificate made in memory
	recommended.Authentication, recommended.Authorization = nil, nil
	recommended.CoreAPI, recommended.Admission = nil, nil
	recommended.Features.EnablePriorityAndFairness = false
	opts.ProxyClientCertFile, opts.ProxyClientKeyFile = cfg.ProxyClientCertFile, cfg.ProxyClientKeyFile
	if err := opts.Complete(); err != nil {
		return nil, err
	}
	if err := opts.Validate(nil); err != nil {
		return nil, err
	}
	if err := recommended.SecureServing.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{addr.IP}); err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}
	caPEM, _ := recommended.SecureServing.ServerCert.GeneratedCert.CurrentCertKeyContent()

	generic := genericapiserver.NewRecommendedConfig(aggregatorscheme.Codecs)
	if err := opts.ServerRunOptions.ApplyTo(&generic.Config); err != nil {
		return nil, err
	}
	if err := recommended.ApplyTo(generic); err != nil {
		return nil, err
	}
	if err := opts.APIEnablement.ApplyTo(&generic.Config, apiserver.DefaultAPIResourceConfigSource(), aggregatorscheme.Scheme); err != nil {
		return nil, err
	}
	generic.LongRunningFunc = filters.BasicLongRunningRequestCheck(sets.NewString("watch", "proxy"), sets.NewString("proxy"))
	// kubectl reads OpenAPI v3 (explain, and whether the server validates fields); the
	// aggregator merges the backends' documents into its own.
	namer := openapinamer.NewDefinitionNamer(aggregatorscheme.Scheme)
	generic.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openapi.GetOpenAPIDefinitions, namer)
	generic.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openapi.GetOpenAPIDefinitions, namer)
	generic.SkipOpenAPIInstallation = true
	tokens := bearertoken.New(tokenfile.New(cfg.Users))
	generic.Authentication.Authenticator = tokens
	generic.Authorization.Authorizer = aggregatorAuthorizer(backendGroups(cfg.Backends)...)
	generic.SharedInformerFactory = informers.NewSharedInformerFactory(fake.NewClientset(serviceObjects(cfg.Backends)...), 0)

	config := &apiserver.Config{
		GenericConfig: generic,
		ExtraConfig: apiserver.ExtraConfig{
			ServiceResolver:     apiserver.NewClusterIPServiceResolver(generic.SharedInformerFactory.Core().V1().Services().Lister()),
			ProxyClientCertFile: cfg.ProxyClientCertFile,
			ProxyClientKeyFile:  cfg.ProxyClientKeyFile,
		},
	}
	aggregator, err := config.Complete().NewWithDelegate(genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, fmt.Errorf("building the aggregator: %w", err)
	}
	prepared, err := aggregator.PrepareRun()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &kubeAggregator{
		URL:      "https://" + addr.String(),
		CAPEM:    caPEM,
		loopback: rest.CopyConfig(aggregator.GenericAPIServer.LoopbackClientConfig),
		stop:     cancel,
		done:     make(chan struct{}),
	}
	go func() {
		a.runErr = prepared.Run(ctx)
		close(a.done)
	}()
	if err := a.waitReady(); err != nil {
		return nil, errors.Join(err, a.Stop())
	}
	return a, nil
}

// Stop stops the aggregator and waits, bounded, until it has.
func (a *kubeAggregator) Stop() error {
	a.stop()
	select {
	case <-a.done:
		return a.runErr
	case <-time.After(aggregatorStopTimeout):
		return fmt.Errorf("the aggregator did not stop within %s", aggregatorStopTimeout)
	}
}

// waitReady polls /readyz until it answers ok, the aggregator exits, or the time is up.
func (a *kubeAggregator) waitReady() error {
	client, err := rest.HTTPClientFor(a.loopback)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), aggregatorReadyTimeout)
	defer cancel()
	var last string
	err = wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		select {
		case <-a.done:
			return false, fmt.Errorf("the aggregator exited: %w", a.runErr)
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.loopback.Host+"/readyz", nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = fmt.Sprintf("%d %s", resp.StatusCode, body)
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("aggregator not ready (last /readyz: %s): %w", last, err)
	}
	return nil
}

// RegisterAPIServices creates an APIService for each backend and waits until the
// aggregator's availability controller marks it Available. TLS to the backend skips
// verification, since its certificate does not name the Service's DNS name.
func (a *kubeAggregator) RegisterAPIServices(backends ...aggregatedBackend) error {
	client, err := clientset.NewForConfig(a.loopback)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiServiceAvailableTimeout)
	defer cancel()
	apiServices := client.ApiregistrationV1().APIServices()
	for _, b := range backends {
		port := int32(b.Addr.Port)
		_, err := apiServices.Create(ctx, &apiregistrationv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: b.APIServiceName()},
			Spec: apiregistrationv1.APIServiceSpec{
				Service:               &apiregistrationv1.ServiceReference{Namespace: backendNamespace, Name: b.ServiceName(), Port: &port},
				Group:                 b.Group,
				Version:               b.Version,
				InsecureSkipTLSVerify: true,
				GroupPriorityMinimum:  1000,
				VersionPriority:       15,
			},
		}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating APIService %s: %w", b.APIServiceName(), err)
		}
	}
	for _, b := range backends {
		var condition string
		err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
			as, err := apiServices.Get(ctx, b.APIServiceName(), metav1.GetOptions{})
			if err != nil {
				condition = err.Error()
				return false, nil
			}
			for _, c := range as.Status.Conditions {
				if c.Type == apiregistrationv1.Available {
					condition = fmt.Sprintf("Available=%s %s: %s", c.Status, c.Reason, c.Message)
					return c.Status == apiregistrationv1.ConditionTrue, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("APIService %s not available (%s): %w", b.APIServiceName(), condition, err)
		}
	}
	return nil
}

// aggregatorAuthorizer stands in for kube-apiserver's RBAC at the aggregator:
// system:masters may do everything, every authenticated user may GET non-resource paths
// (discovery, as kube's system:discovery role allows), and requests for the aggregated
// groups pass to the aggregated server, whose own (delegated) authorization decides.
func aggregatorAuthorizer(aggregatedGroups ...string) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		switch {
		case a.GetUser() != nil && slices.Contains(a.GetUser().GetGroups(), user.SystemPrivilegedGroup):
			return authorizer.DecisionAllow, "", nil
		case !a.IsResourceRequest() && a.GetVerb() == "get":
			return authorizer.DecisionAllow, "", nil
		case a.IsResourceRequest() && slices.Contains(aggregatedGroups, a.GetAPIGroup()):
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
}

func backendGroups(backends []aggregatedBackend) []string {
	var groups []string
	for _, b := range backends {
		groups = append(groups, b.Group)
	}
	return groups
}

// serviceObjects returns, per backend, a ClusterIP Service whose cluster IP is the
// backend's loopback address, and an EndpointSlice with one ready endpoint: what kube's
// ClusterIP resolver routes by and what its availability controller checks.
func serviceObjects(backends []aggregatedBackend) []runtime.Object {
	var objs []runtime.Object
	for _, b := range backends {
		ip, port, portName, ready := b.Addr.IP.String(), int32(b.Addr.Port), "https", true
		objs = append(objs,
			&corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: backendNamespace, Name: b.ServiceName()},
				Spec: corev1.ServiceSpec{
					Type:       corev1.ServiceTypeClusterIP,
					ClusterIP:  ip,
					ClusterIPs: []string{ip},
					Ports:      []corev1.ServicePort{{Name: portName, Port: port, Protocol: corev1.ProtocolTCP}},
				},
			},
			&discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{
					Namespace: backendNamespace,
					Name:      b.ServiceName() + "-" + strconv.Itoa(b.Addr.Port),
					Labels:    map[string]string{discoveryv1.LabelServiceName: b.ServiceName()},
				},
				AddressType: discoveryv1.AddressTypeIPv4,
				Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
				Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port}},
			})
	}
	return objs
}
