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
// reached).
//
// WebhookInstallOptions work as in controller-runtime: Start picks a free port, writes
// a certificate and key to LocalServingCertDir, points the webhook configurations of
// Paths, MutatingWebhooks and ValidatingWebhooks (and the conversion webhook of each CRD
// whose kind the Scheme converts through a hub) at https://LocalServingHost:LocalServingPort,
// and creates the configurations; the suite starts its manager's webhook server there,
// as kubebuilder's webhook_suite_test.go does:
//
//	testEnv = &envtest.Environment{
//		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
//		WebhookInstallOptions: envtest.WebhookInstallOptions{
//			Paths: []string{filepath.Join("..", "..", "..", "config", "webhook")},
//		},
//	}
//	cfg, err = testEnv.Start()
//	...
//	o := &testEnv.WebhookInstallOptions
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{WebhookServer: webhook.NewServer(webhook.Options{
//		Host: o.LocalServingHost, Port: o.LocalServingPort, CertDir: o.LocalServingCertDir,
//	})})
package envtest
