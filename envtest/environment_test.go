package envtest_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/apikit-dev/apikit/envtest"
)

// startEnv starts env and stops it when the test ends.
func startEnv(t *testing.T, env *envtest.Environment) *rest.Config {
	t.Helper()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return cfg
}

func newClient(t *testing.T, cfg *rest.Config) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return c
}

func object(gvk schema.GroupVersionKind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

var widgetGVK = schema.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}

func TestStart_ServesTheCRDsOfPathsAndObjectsWithTheirValidation(t *testing.T) {
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("testdata", "crds")},
		CRDs:                  []*apiextensionsv1.CustomResourceDefinition{gadgetCRD(1)},
		ErrorIfCRDPathMissing: true,
	}
	cfg := startEnv(t, env)
	if env.Config != cfg || len(env.KubeConfig) == 0 {
		t.Errorf("after Start, Config = %p (Start returned %p), len(KubeConfig) = %d; want Start's config and a kubeconfig", env.Config, cfg, len(env.KubeConfig))
	}
	c := newClient(t, cfg)
	ctx := context.Background()
	gadget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget1"}
	tests := []struct {
		name    string
		obj     *unstructured.Unstructured
		invalid string // a part of the error's message; "" for success
	}{
		{"a widget of the CRD directory is created", object(widgetGVK, "default", "w1", map[string]any{"replicas": int64(3)}), ""},
		{"the CEL rule of the widget CRD is enforced", object(widgetGVK, "default", "w2", map[string]any{"replicas": int64(11)}), "replicas must be at most 10"},
		{"the OpenAPI schema of the widget CRD is enforced", object(widgetGVK, "default", "w3", map[string]any{"replicas": int64(-1)}), "should be greater than or equal to 0"},
		{"a gadget of the CRD objects is created", object(gadget, "", "g1", map[string]any{"size": "small"}), ""},
		{"the enum of the gadget CRD is enforced", object(gadget, "", "g2", map[string]any{"size": "huge"}), "Unsupported value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Create(ctx, tt.obj)
			switch {
			case tt.invalid == "" && err != nil:
				t.Fatalf("Create = %v, want success", err)
			case tt.invalid != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tt.invalid)):
				t.Fatalf("Create = %v, want Invalid with %q", err, tt.invalid)
			case tt.invalid == "":
				got := &unstructured.Unstructured{}
				got.SetGroupVersionKind(tt.obj.GroupVersionKind())
				if err := c.Get(ctx, client.ObjectKeyFromObject(tt.obj), got); err != nil || got.GetUID() == "" {
					t.Errorf("Get = %v, uid %q; want the stored object", err, got.GetUID())
				}
			}
		})
	}
}

func TestStart_RefusesWhatItCannotServe(t *testing.T) {
	yes := true
	tests := []struct {
		name string
		env  *envtest.Environment
		want string
	}{
		{"a missing CRD path with ErrorIfCRDPathMissing", &envtest.Environment{CRDDirectoryPaths: []string{"testdata/missing"}, ErrorIfCRDPathMissing: true}, "testdata/missing"},
		{"a missing CRD path with CRDInstallOptions.ErrorIfPathMissing", &envtest.Environment{CRDInstallOptions: envtest.CRDInstallOptions{Paths: []string{"testdata/missing"}, ErrorIfPathMissing: true}}, "testdata/missing"},
		{"UseExistingCluster", &envtest.Environment{UseExistingCluster: &yes}, "UseExistingCluster"},
		{"a CRD kube-apiserver refuses", &envtest.Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{badNameCRD()}}, "metadata.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := tt.env.Start()
			if err == nil {
				_ = tt.env.Stop()
				t.Fatalf("Start = %v, nil; want an error naming %q", cfg, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start error = %v, want it to name %q", err, tt.want)
			}
			if err := tt.env.Stop(); err != nil {
				t.Errorf("Stop after a failed Start = %v, want nil", err)
			}
		})
	}
}

func TestStart_RefusesUSE_EXISTING_CLUSTERUnlessTheFieldSaysFalse(t *testing.T) {
	t.Setenv("USE_EXISTING_CLUSTER", "true")
	if _, err := (&envtest.Environment{}).Start(); err == nil || !strings.Contains(err.Error(), "USE_EXISTING_CLUSTER") {
		t.Errorf("Start with USE_EXISTING_CLUSTER=true = %v, want it refused", err)
	}
	no := false
	startEnv(t, &envtest.Environment{UseExistingCluster: &no})
}

func TestStart_SkipsAMissingCRDPathWithoutErrorIfCRDPathMissing(t *testing.T) {
	cfg := startEnv(t, &envtest.Environment{CRDDirectoryPaths: []string{"testdata/missing", "testdata/crds"}})
	if err := newClient(t, cfg).Create(context.Background(), object(widgetGVK, "default", "w1", nil)); err != nil {
		t.Errorf("Create widget = %v, want the CRD of the existing path served", err)
	}
}

func TestStart_TwiceWithoutStopIsAnError(t *testing.T) {
	env := &envtest.Environment{}
	startEnv(t, env)
	if _, err := env.Start(); err == nil {
		t.Error("second Start = nil error, want one")
	}
}

func TestAddUser_TheUserAuthenticatesWithItsOwnTokenAndKeepsItsBaseConfig(t *testing.T) {
	env := &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crds"}}
	if _, err := env.AddUser(envtest.User{Name: "early"}, nil); err == nil {
		t.Error("AddUser before Start = nil error, want one")
	}
	admin := startEnv(t, env)
	user, err := env.AddUser(envtest.User{Name: "alice", Groups: []string{"devs"}}, &rest.Config{QPS: 7, UserAgent: "mine"})
	if err != nil {
		t.Fatalf("AddUser: %v", err)
	}
	cfg := user.Config()
	if cfg.QPS != 7 || cfg.UserAgent != "mine" || cfg.Host != admin.Host || cfg.BearerToken == "" || cfg.BearerToken == admin.BearerToken {
		t.Errorf("user config = QPS %v, UserAgent %q, Host %q, token %q; want the base's QPS and UserAgent, the server %q and a token of its own", cfg.QPS, cfg.UserAgent, cfg.Host, cfg.BearerToken, admin.Host)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		t.Fatalf("KubeConfig: %v", err)
	}
	fromKubeconfig, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatalf("RESTConfigFromKubeConfig: %v", err)
	}
	stranger := rest.CopyConfig(admin)
	stranger.BearerToken = "not-a-token"
	tests := []struct {
		name    string
		cfg     *rest.Config
		allowed bool
	}{
		{"the admin", admin, true},
		{"the user", cfg, true},
		{"the user's kubeconfig", fromKubeconfig, true},
		{"an unknown token", stranger, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(widgetGVK.GroupVersion().WithKind("WidgetList"))
			err := newClient(t, tt.cfg).List(context.Background(), list)
			if tt.allowed && err != nil {
				t.Errorf("List = %v, want allowed", err)
			}
			if !tt.allowed && !apierrors.IsUnauthorized(err) {
				t.Errorf("List = %v, want Unauthorized", err)
			}
		})
	}
}

func TestStop_LeavesNoGoroutinesAndNothingListening(t *testing.T) {
	baseline := runtime.NumGoroutine()
	env := &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crds"}, CRDs: []*apiextensionsv1.CustomResourceDefinition{gadgetCRD(1)}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := env.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := env.Stop(); err != nil {
		t.Errorf("second Stop = %v, want nil", err)
	}
	var n int
	for range 500 {
		if n = runtime.NumGoroutine(); n <= baseline {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n > baseline {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines remain after Stop, want at most %d:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("HTTPClientFor: %v", err)
	}
	if resp, err := hc.Get(cfg.Host + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("GET /healthz after Stop = %d, want a connection error", resp.StatusCode)
	}
}
