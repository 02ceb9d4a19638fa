// Package apitest starts complete apikit servers in-process for tests, like
// net/http/httptest does for handlers.
//
// NewServer serves a scheme's resources (package rest with package rest/discovery) over a
// fresh storage/memory store on a loopback port, writes a kubeconfig that kubectl and
// client-go accept, and stops everything when the test ends:
//
//	srv := apitest.NewServer(t, api.NewScheme())
//	cmd := exec.Command("kubectl", "--kubeconfig", srv.KubeconfigPath, "get", "widgets")
//
// client-go takes the kubeconfig as a *rest.Config with one line:
//
//	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig) // k8s.io/client-go/tools/clientcmd
//
// NewServer takes any TB: a *testing.T, a *testing.B or Ginkgo's GinkgoT(). Code without
// a test (a standalone server, TestMain, Ginkgo's BeforeSuite) calls Start and closes
// the server itself:
//
//	srv, err := apitest.Start(api.NewScheme())
//	...
//	defer srv.Close()
//
// Options add strategies, authentication, authorization, admission, another storage or
// TLS. A scheme that serves the RBAC kinds (builtin.AddRBACToScheme) has
// strategies.RBAC for those the test gives no strategy of its own: kube's
// validation of them and its escalation checks (a user grants only what the
// Authorizer allows the user). kubectl and client-go's clientcmd send a kubeconfig's credentials only to https
// servers, so a test that drives them with WithToken also needs WithTLS.
//
// WithCRDs serves CustomResourceDefinitions (package rest/crds): the CRDs given are
// established before NewServer returns, and the customresourcedefinitions resource is
// served so that a test may add more. Servers without it start as before, with no
// CRD machinery.
//
//	crds, _ := apiextensions.Load("config/crd/bases")
//	srv := apitest.NewServer(t, scheme.New(), apitest.WithCRDs(crds...),
//		apitest.WithRESTOptions(func(o *rest.Options) { o.Rules = cel.New() })) // for CEL rules
package apitest
