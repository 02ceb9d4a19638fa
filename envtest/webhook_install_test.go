package envtest_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crconversion "sigs.k8s.io/controller-runtime/pkg/conversion"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"github.com/apikit-dev/apikit/envtest"
)

// crdClient returns a client that also reads and writes CRDs.
func crdClient(t *testing.T, cfg *rest.Config) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	return c
}

// urlOf returns the URL of the local webhook server for path, as
// ModifyWebhookDefinitions writes it (a "/" between host:port and the path).
func urlOf(o envtest.WebhookInstallOptions, path string) string {
	return "https://" + net.JoinHostPort(o.LocalServingHost, strconv.Itoa(o.LocalServingPort)) + "/" + path
}

func TestWebhookInstallOptions_InstallsTheConfigurationsOfPathsAndObjectsPointedAtTheLocalServer(t *testing.T) {
	byURL := "https://elsewhere.example.com/validate"
	env := &envtest.Environment{WebhookInstallOptions: envtest.WebhookInstallOptions{
		Paths: []string{filepath.Join("testdata", "webhook")},
		ValidatingWebhooks: []*admissionv1.ValidatingWebhookConfiguration{{
			ObjectMeta: metav1.ObjectMeta{Name: "by-url"},
			Webhooks: []admissionv1.ValidatingWebhook{{Name: "url.example.com", ClientConfig: admissionv1.WebhookClientConfig{URL: &byURL},
				SideEffects: new(admissionv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}}},
		}},
	}}
	c := newClient(t, startEnv(t, env))
	o := env.WebhookInstallOptions
	if o.LocalServingPort == 0 || net.ParseIP(o.LocalServingHost) == nil || len(o.LocalServingCAData) == 0 {
		t.Fatalf("after Start, host %q port %d, %d bytes of CA; want an IP address, a port and a CA", o.LocalServingHost, o.LocalServingPort, len(o.LocalServingCAData))
	}
	if len(o.MutatingWebhooks) != 1 || len(o.ValidatingWebhooks) != 2 {
		t.Fatalf("after Start, %d mutating and %d validating configurations, want 1 (of the path) and 2 (the given one, then the path's)", len(o.MutatingWebhooks), len(o.ValidatingWebhooks))
	}
	tests := []struct {
		name    string
		obj     client.Object
		webhook func(client.Object) admissionv1.WebhookClientConfig
		url     string
	}{
		{"a mutating webhook of a Service", &admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "mutating-webhook-configuration"}},
			func(o client.Object) admissionv1.WebhookClientConfig {
				return o.(*admissionv1.MutatingWebhookConfiguration).Webhooks[0].ClientConfig
			}, urlOf(o, "/mutate-toys-example-com-v1-widget")},
		{"a validating webhook of a Service", &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "validating-webhook-configuration"}},
			func(o client.Object) admissionv1.WebhookClientConfig {
				return o.(*admissionv1.ValidatingWebhookConfiguration).Webhooks[0].ClientConfig
			}, urlOf(o, "/validate-toys-example-com-v1-widget")},
		{"a webhook of a URL keeps it", &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "by-url"}},
			func(o client.Object) admissionv1.WebhookClientConfig {
				return o.(*admissionv1.ValidatingWebhookConfiguration).Webhooks[0].ClientConfig
			}, byURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(tt.obj), tt.obj); err != nil {
				t.Fatalf("Get: %v", err)
			}
			cc := tt.webhook(tt.obj)
			if cc.URL == nil || *cc.URL != tt.url || cc.Service != nil || !bytes.Equal(cc.CABundle, o.LocalServingCAData) {
				t.Errorf("clientConfig = url %v, service %v, %d bytes of caBundle; want url %q, no service and LocalServingCAData", deref(cc.URL), cc.Service, len(cc.CABundle), tt.url)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestWebhookInstallOptions_AMissingPathFailsStartUnlessIgnored(t *testing.T) {
	missing := filepath.Join("testdata", "no-webhooks")
	env := &envtest.Environment{WebhookInstallOptions: envtest.WebhookInstallOptions{Paths: []string{missing}}}
	if _, err := env.Start(); err == nil || !strings.Contains(err.Error(), missing) {
		_ = env.Stop()
		t.Fatalf("Start with a missing path = %v, want an error naming %s", err, missing)
	}
	if dir := env.WebhookInstallOptions.LocalServingCertDir; dir != "" {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after a failed Start, the certificate directory: %v, want it removed", err)
		}
	}
	env = &envtest.Environment{WebhookInstallOptions: envtest.WebhookInstallOptions{
		Paths: []string{missing, filepath.Join("testdata", "webhook", "manifests.yaml")}, IgnoreErrorIfPathMissing: true}}
	startEnv(t, env)
	if n := len(env.WebhookInstallOptions.MutatingWebhooks); n != 1 {
		t.Errorf("with IgnoreErrorIfPathMissing, %d mutating configurations, want the one of the file", n)
	}
}

func TestWebhookInstallOptions_TheServingCertificateIsValidForTheHostAndStopRemovesIt(t *testing.T) {
	env := &envtest.Environment{WebhookInstallOptions: envtest.WebhookInstallOptions{LocalServingHostExternalName: "127.0.0.2"}}
	startEnv(t, env)
	o := env.WebhookInstallOptions
	pair, err := tls.LoadX509KeyPair(filepath.Join(o.LocalServingCertDir, "tls.crt"), filepath.Join(o.LocalServingCertDir, "tls.key"))
	if err != nil {
		t.Fatalf("the key pair of LocalServingCertDir: %v", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(o.LocalServingCAData) {
		t.Fatal("LocalServingCAData holds no PEM certificate")
	}
	for _, name := range []string{"localhost", o.LocalServingHost, "127.0.0.2"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("the serving certificate for %q: %v", name, err)
		}
	}
	if err := env.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := os.Stat(o.LocalServingCertDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Stop, the certificate directory: %v, want it removed", err)
	}
}

// ShapeV1 and ShapeV2 are the two versions of Shape, convertible through the hub
// ShapeV1 as controller-runtime's conversion webhook converts them: v1 has spec.sides,
// v2 spec.edges.
type ShapeV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Sides int64 `json:"sides,omitempty"`
	} `json:"spec"`
}

type ShapeV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Edges int64 `json:"edges,omitempty"`
	} `json:"spec"`
}

func (s *ShapeV1) DeepCopyObject() runtime.Object {
	c := *s
	s.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (s *ShapeV2) DeepCopyObject() runtime.Object {
	c := *s
	s.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (*ShapeV1) Hub() {}

func (s *ShapeV2) ConvertTo(dst crconversion.Hub) error {
	hub := dst.(*ShapeV1)
	hub.ObjectMeta, hub.Spec.Sides = s.ObjectMeta, s.Spec.Edges
	return nil
}

func (s *ShapeV2) ConvertFrom(src crconversion.Hub) error {
	hub := src.(*ShapeV1)
	s.ObjectMeta, s.Spec.Edges = hub.ObjectMeta, hub.Spec.Sides
	return nil
}

// shapeScheme returns a scheme where Shape converts through its hub.
func shapeScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Shape"}, &ShapeV1{})
	s.AddKnownTypeWithName(schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Shape"}, &ShapeV2{})
	return s
}

// serveWebhooks runs controller-runtime's webhook server on the options' address and
// certificate, serving the conversion webhook of s at /convert, until the test ends.
func serveWebhooks(t *testing.T, o envtest.WebhookInstallOptions, s *runtime.Scheme) {
	t.Helper()
	srv := webhook.NewServer(webhook.Options{Host: o.LocalServingHost, Port: o.LocalServingPort, CertDir: o.LocalServingCertDir})
	srv.Register("/convert", conversion.NewWebhookHandler(s, conversion.NewRegistry()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	addr := net.JoinHostPort(o.LocalServingHost, strconv.Itoa(o.LocalServingPort))
	for range 500 { // as kubebuilder's suites wait for it
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err == nil {
			conn.Close()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the webhook server at %s does not answer", addr)
}

func TestStart_PointsTheConversionOfConvertibleCRDsAtTheWebhookServer(t *testing.T) {
	env := &envtest.Environment{Scheme: shapeScheme(), CRDs: []*apiextensionsv1.CustomResourceDefinition{shapeCRD("https://nowhere.invalid/convert", nil)}}
	cfg := startEnv(t, env)
	serveWebhooks(t, env.WebhookInstallOptions, env.Scheme)
	c := crdClient(t, cfg)
	ctx := context.Background()

	if err := c.Create(ctx, object(shapeV2, "default", "square", map[string]any{"edges": int64(4)})); err != nil {
		t.Fatalf("create in v2: %v", err)
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(shapeV1)
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "square"}, stored); err != nil {
		t.Fatalf("get in v1: %v", err)
	}
	if n, _, _ := unstructured.NestedInt64(stored.Object, "spec", "sides"); n != 4 {
		t.Errorf("the v1 object = %v, want spec.sides 4", stored.Object)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: "shapes.example.com"}, crd); err != nil {
		t.Fatal(err)
	}
	wantURL := urlOf(env.WebhookInstallOptions, "convert")
	if conv := crd.Spec.Conversion; conv.Webhook == nil || conv.Webhook.ClientConfig == nil || deref(conv.Webhook.ClientConfig.URL) != wantURL ||
		strings.Join(conv.Webhook.ConversionReviewVersions, ",") != "v1,v1beta1" {
		t.Errorf("spec.conversion = %+v, want the webhook at %s for v1 and v1beta1", conv, wantURL)
	}
}

var (
	shapeV1 = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Shape"}
	shapeV2 = schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Shape"}
)

func TestStart_TheConversionOfOtherCRDsIsRemovedUnlessIgnoreSchemeConvertible(t *testing.T) {
	tests := []struct {
		name   string
		ignore bool
		want   apiextensionsv1.ConversionStrategyType
	}{
		{"a kind the scheme does not convert gets None", false, apiextensionsv1.NoneConverter},
		{"with IgnoreSchemeConvertible every CRD gets the webhook server", true, apiextensionsv1.WebhookConverter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &envtest.Environment{
				CRDs:                  []*apiextensionsv1.CustomResourceDefinition{shapeCRD("https://nowhere.invalid/convert", nil)},
				WebhookInstallOptions: envtest.WebhookInstallOptions{IgnoreSchemeConvertible: tt.ignore},
			}
			c := crdClient(t, startEnv(t, env))
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(context.Background(), client.ObjectKey{Name: "shapes.example.com"}, crd); err != nil {
				t.Fatal(err)
			}
			conv := crd.Spec.Conversion
			if conv == nil || conv.Strategy != tt.want {
				t.Fatalf("spec.conversion = %+v, want strategy %s", conv, tt.want)
			}
			if tt.want == apiextensionsv1.WebhookConverter && deref(conv.Webhook.ClientConfig.URL) != urlOf(env.WebhookInstallOptions, "convert") {
				t.Errorf("the conversion webhook = %s, want the local server's /convert", deref(conv.Webhook.ClientConfig.URL))
			}
		})
	}
}

func TestPrepWithoutInstalling_ReadsTheWebhookConfigurationsOfManifestsOnly(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	beta := write("beta.yaml", "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: old\n")
	notYAML := write("hooks.txt", "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: txt\n")
	broken := write("broken.json", "{")
	manifests := filepath.Join("testdata", "webhook", "manifests.yaml")
	tests := []struct {
		name                 string
		paths                []string
		mutating, validating int
		wantErr              string
	}{
		{"a directory's configurations; its Service, kustomization and README are skipped", []string{filepath.Join("testdata", "webhook")}, 1, 1, ""},
		{"a file", []string{manifests}, 1, 1, ""},
		{"a named file that is not .yaml, .yml or .json is skipped", []string{notYAML}, 0, 0, ""},
		{"a configuration of another version is refused", []string{beta}, 0, 0, "only v1 is supported right now for ValidatingWebhookConfiguration (name: old)"},
		{"a document that is not YAML", []string{broken}, 0, 0, "broken.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &envtest.WebhookInstallOptions{Paths: tt.paths}
			err := o.PrepWithoutInstalling()
			t.Cleanup(func() { _ = o.Cleanup() })
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("PrepWithoutInstalling = %v, want an error with %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Fatalf("PrepWithoutInstalling = %v", err)
			case tt.wantErr == "" && (len(o.MutatingWebhooks) != tt.mutating || len(o.ValidatingWebhooks) != tt.validating):
				t.Errorf("%d mutating and %d validating configurations, want %d and %d", len(o.MutatingWebhooks), len(o.ValidatingWebhooks), tt.mutating, tt.validating)
			}
		})
	}
}
