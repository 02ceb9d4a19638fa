// Package envtest is a drop-in for sigs.k8s.io/controller-runtime/pkg/envtest that
// serves in-process instead of running kube-apiserver and etcd binaries: Start takes
// milliseconds, needs no downloaded assets, and works from Ginkgo's BeforeSuite, a
// TestMain or a plain test alike (no testing.TB is needed).
//
// A kubebuilder suite switches by changing one import path:
//
//	import "sigs.k8s.io/controller-runtime/pkg/envtest"
//
// becomes
//
//	import "github.com/apikit-dev/apikit/envtest"
//
// and the suite stays as it is:
//
//	testEnv = &envtest.Environment{
//		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
//		ErrorIfCRDPathMissing: true,
//	}
//	cfg, err = testEnv.Start()
//	...
//	err = testEnv.Stop()
//
// The server is apikit's (package apitest, over memory storage) with TLS and a
// bearer token: the CRDs of CRDDirectoryPaths and CRDs are established before Start
// returns, their CEL rules (x-kubernetes-validations) are checked by
// github.com/apikit-dev/apikit/cel, and clients may create, change and delete CRDs
// while it runs. Every authenticated user may do everything (there is no RBAC); AddUser
// makes users with their own tokens, for code that looks at who is calling.
//
// Fields of controller-runtime's Environment that configure its binaries
// (BinaryAssetsDirectory, DownloadBinaryAssets..., the timeouts, AttachControlPlaneOutput)
// are accepted and ignored, so that suites setting them compile unchanged; ControlPlane,
// whose type is internal to controller-runtime, is not there. UseExistingCluster (and
// the USE_EXISTING_CLUSTER variable) is refused: there is no cluster to connect to.
// A CRD with conversion strategy Webhook calls its webhook (by URL; a Service is not
// reached); admission webhooks (WebhookInstallOptions) are not served.
package envtest
