package envtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/authn"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/cel"
	apikitrest "github.com/apikit-dev/apikit/rest"
)

// Environment is an in-process API server for controller tests, with the fields and
// methods of controller-runtime's envtest.Environment that tests use. Set the fields,
// call Start, and Stop when done.
type Environment struct {
	// Scheme decides which CRDs convert through the test's webhook server: Start points
	// the conversion webhook of each CRD whose kind is convertible in it (a Hub and its
	// spokes, as controller-runtime's conversion package has them) at
	// WebhookInstallOptions' server, and removes it from the others (see
	// WebhookInstallOptions.IgnoreSchemeConvertible). Start sets it to client-go's
	// scheme.Scheme when nil, as controller-runtime does. The server itself knows its
	// kinds from the CRDs.
	Scheme *runtime.Scheme

	// Config is the admin's client configuration, set by Start (an https URL, the
	// server's CA and a bearer token of a user in group system:masters).
	Config *rest.Config

	// KubeConfig is a kubeconfig equivalent to Config, set by Start unless already set.
	KubeConfig []byte

	// WebhookInstallOptions are the admission webhook configurations Start installs, and
	// the address and certificate of the webhook server the suite runs.
	WebhookInstallOptions WebhookInstallOptions

	// CRDInstallOptions are the CRDs to install, merged with CRDDirectoryPaths, CRDs
	// and ErrorIfCRDPathMissing.
	CRDInstallOptions CRDInstallOptions

	// ErrorIfCRDPathMissing makes Start fail when a path of CRDDirectoryPaths does not
	// exist; without it, missing paths are skipped.
	ErrorIfCRDPathMissing bool

	// CRDs are CRDs to install, in controller-runtime's types (k8s.io/apiextensions-apiserver).
	CRDs []*apiextensionsv1.CustomResourceDefinition

	// CRDDirectoryPaths are files and directories of CRD manifests (YAML or JSON) to
	// install; a directory's .yaml, .yml and .json files are read, not its
	// subdirectories.
	CRDDirectoryPaths []string

	// UseExistingCluster must be nil or false: Start refuses true, as there is no
	// cluster to connect to in-process (use controller-runtime's envtest for that).
	UseExistingCluster *bool

	// DownloadBinaryAssets, DownloadBinaryAssetsVersion, DownloadBinaryAssetsIndexURL,
	// BinaryAssetsDirectory, ControlPlaneStartTimeout, ControlPlaneStopTimeout and
	// AttachControlPlaneOutput configure controller-runtime's binaries; they are
	// accepted and ignored, since no binary runs.
	DownloadBinaryAssets         bool
	DownloadBinaryAssetsVersion  string
	DownloadBinaryAssetsIndexURL string
	BinaryAssetsDirectory        string
	ControlPlaneStartTimeout     time.Duration
	ControlPlaneStopTimeout      time.Duration
	AttachControlPlaneOutput     bool

	mu    sync.Mutex
	srv   *apitest.Server
	users *tokenUsers
}

// CRDInstallOptions are the CRDs Start installs, as in controller-runtime. Its other
// fields there (polling, clean-up, webhooks) have no use in-process: CRDs are
// established before Start returns and go away with the server.
type CRDInstallOptions struct {
	// Paths are files and directories of CRD manifests.
	Paths []string
	// CRDs are CRDs to install.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// ErrorIfPathMissing makes Start fail when a path does not exist.
	ErrorIfPathMissing bool
}

// adminUser is the user of Config, as controller-runtime's envtest provisions it.
var adminUser = User{Name: "admin", Groups: []string{"system:masters"}}

// Start starts the server with the CRDs installed and established and the webhook
// configurations of WebhookInstallOptions created, and returns the admin's
// configuration (also left in Config). Before the server starts, it prepares
// WebhookInstallOptions (a free port, a certificate in a new LocalServingCertDir) and
// points the conversion of the CRDs at that address, as controller-runtime does, so a
// suite then starts its webhook server there; Start does not wait for that server. A
// failed Start stops what it started and removes the certificate directory. QPS and
// Burst are high, as controller-runtime sets them, since the server is the test's own.
func (te *Environment) Start() (*rest.Config, error) {
	te.mu.Lock()
	defer te.mu.Unlock()
	if te.srv != nil {
		return nil, errors.New("envtest: the environment is already started")
	}
	if err := te.refuseExistingCluster(); err != nil {
		return nil, err
	}
	if te.Scheme == nil {
		te.Scheme = clientgoscheme.Scheme
	}
	cfg, err := te.start()
	if err != nil {
		// Like a failed Start of controller-runtime, but stopping what was started.
		if te.srv != nil {
			_ = te.srv.Close()
			te.srv, te.users = nil, nil
		}
		_ = te.WebhookInstallOptions.Cleanup()
		return nil, err
	}
	return cfg, nil
}

// start does Start's work: the webhook server's port and certificate first, as the CRDs'
// conversion webhooks point there, then the server with the CRDs, then the webhook
// configurations.
func (te *Environment) start() (*rest.Config, error) {
	if err := te.WebhookInstallOptions.PrepWithoutInstalling(); err != nil {
		return nil, err
	}
	crds, err := te.loadCRDs()
	if err != nil {
		return nil, err
	}
	if err := pointConversionAtWebhookServer(crds, te.Scheme, &te.WebhookInstallOptions); err != nil {
		return nil, err
	}
	s, strategies, plugins, err := coreKinds()
	if err != nil {
		return nil, err
	}
	adminToken, err := newToken()
	if err != nil {
		return nil, err
	}
	te.users = &tokenUsers{byToken: map[string]*authn.User{adminToken: apikitUser(adminUser)}}
	// controller-runtime's Start takes no context: the server runs until Stop closes it.
	srv, err := apitest.Start(context.Background(), s, apitest.Options{
		REST: apikitrest.Options{Authenticator: te.users, Strategies: strategies, Rules: cel.New(),
			MutatingAdmission: plugins.Mutating, ValidatingAdmission: plugins.Validating},
		TLS:         true,
		Token:       adminToken,
		CRDs:        crds,
		CRDAPI:      true, // as on kube-apiserver, even without CRDs to install
		Controllers: true,
	})
	if err != nil {
		return nil, fmt.Errorf("envtest: %w", err)
	}
	te.srv = srv
	te.Config = te.userConfig(adminToken, &rest.Config{QPS: 1000, Burst: 2000})
	if len(te.KubeConfig) == 0 {
		te.KubeConfig = srv.Kubeconfig
	}
	if err := te.WebhookInstallOptions.Install(te.Config); err != nil {
		return nil, err
	}
	return te.Config, nil
}

// Stop removes the webhook certificate directory (WebhookInstallOptions.Cleanup) and
// stops the controllers and the server, which forgets everything it stored. Stopping an
// environment that is not started only does the former.
func (te *Environment) Stop() error {
	te.mu.Lock()
	defer te.mu.Unlock()
	if err := te.WebhookInstallOptions.Cleanup(); err != nil {
		return fmt.Errorf("envtest: %w", err)
	}
	if te.srv == nil {
		return nil
	}
	err := te.srv.Close() // stops the controllers too
	te.srv, te.users = nil, nil
	if err != nil {
		return fmt.Errorf("envtest: %w", err)
	}
	return nil
}

// refuseExistingCluster fails for UseExistingCluster, or USE_EXISTING_CLUSTER=true
// when it is nil, which controller-runtime's envtest reads the same way: a suite that
// means to test against a real cluster must not pass silently in-process.
func (te *Environment) refuseExistingCluster() error {
	use := os.Getenv("USE_EXISTING_CLUSTER") == "true"
	if te.UseExistingCluster != nil {
		use = *te.UseExistingCluster
	}
	if use {
		return errors.New("envtest: UseExistingCluster (or USE_EXISTING_CLUSTER=true) is not supported: github.com/apikit-dev/apikit/envtest serves in-process; use sigs.k8s.io/controller-runtime/pkg/envtest to test against a cluster")
	}
	return nil
}

// newToken returns a random bearer token.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("envtest: making a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
