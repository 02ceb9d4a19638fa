// Package apitest starts complete apikit servers in-process for tests, like
// net/http/httptest does for handlers.
//
// NewServer serves a scheme's resources (the REST handler with its discovery) over a
// fresh memory store on a loopback port, writes a kubeconfig that kubectl and client-go
// accept, and stops everything when the test ends:
//
//	srv := apitest.NewServer(t, api.NewScheme(), apitest.Options{})
//	cmd := exec.Command("kubectl", "--kubeconfig", srv.KubeconfigPath, "get", "widgets")
//
// client-go takes the kubeconfig as a *rest.Config with one line:
//
//	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig) // k8s.io/client-go/tools/clientcmd
//
// NewServer takes any TB: a *testing.T, a *testing.B or Ginkgo's GinkgoT(). Code without
// a test (a standalone server, TestMain, Ginkgo's BeforeSuite) calls Start, whose server
// runs until its context ends or Close:
//
//	srv, err := apitest.Start(ctx, api.NewScheme(), apitest.Options{})
//	...
//	defer srv.Close()
//
// One Options value configures a server; its zero value is an open server over plain
// HTTP. Options.REST is the template of the REST handler's options (strategies,
// authentication, authorization, admission, limits, metrics, CEL rules); the other
// fields choose the storage, a bearer token, TLS, the address, CRDs and controllers. A
// scheme that serves the RBAC kinds (builtin.AddRBACToScheme) has strategies.RBAC
// (package registry/strategies) for those the test gives no strategy of its own: kube's
// validation of them and its escalation checks (a user grants only what the Authorizer
// allows the user). kubectl and client-go's clientcmd send a kubeconfig's credentials
// only to https servers, so a test that drives them with a Token also sets TLS.
//
// Options.CRDs serves CustomResourceDefinitions through the CRD server (package
// apiextensions/server): the CRDs given are established before NewServer returns, and
// the customresourcedefinitions resource is served so that a test may add more
// (Options.CRDAPI serves it without CRDs). Other servers have no CRD machinery.
//
//	crds, _ := apiextensions.Load("config/crd/bases")
//	srv := apitest.NewServer(t, scheme.New(), apitest.Options{
//		CRDs: crds,
//		REST: rest.Options{Rules: cel.New()}, // for CEL rules
//	})
//
// Options.Controllers runs the namespace lifecycle and the garbage collector beside the
// server, as kube-controller-manager would on a cluster.
package apitest
