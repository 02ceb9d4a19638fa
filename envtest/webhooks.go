package envtest

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/kubeconfig"
)

// WebhookInstallOptions are the admission webhook configurations Start installs and the
// address, certificate and key of the test's webhook server, with the fields and methods
// of controller-runtime's envtest.WebhookInstallOptions. Start prepares them (a free
// port, a certificate in a fresh LocalServingCertDir), points every webhook and every
// CRD conversion webhook at that address, creates the configurations and waits until
// they can be read back; the suite then starts its manager's webhook server on
// LocalServingHost, LocalServingPort and LocalServingCertDir. Stop removes the
// certificate directory.
type WebhookInstallOptions struct {
	// Paths are files and directories of webhook manifests (YAML, several documents a
	// file, or JSON); only .yaml, .yml and .json files are read, and of a directory not
	// its subdirectories. Their MutatingWebhookConfigurations and
	// ValidatingWebhookConfigurations (admissionregistration.k8s.io/v1 only) are added to
	// MutatingWebhooks and ValidatingWebhooks; other documents (a Service, a kustomization)
	// are skipped.
	Paths []string

	// MutatingWebhooks are the MutatingWebhookConfigurations to install.
	MutatingWebhooks []*admissionv1.MutatingWebhookConfiguration

	// ValidatingWebhooks are the ValidatingWebhookConfigurations to install.
	ValidatingWebhooks []*admissionv1.ValidatingWebhookConfiguration

	// IgnoreSchemeConvertible points the conversion webhook of every CRD at the local
	// server, not only of those whose kinds are convertible in Environment.Scheme (for
	// unstructured types or types not in the scheme).
	IgnoreSchemeConvertible bool

	// IgnoreErrorIfPathMissing skips the paths of Paths that do not exist; without it,
	// a missing path fails Start.
	IgnoreErrorIfPathMissing bool

	// LocalServingHost is the host the webhook server listens on; when LocalServingPort
	// is 0 it is replaced by the IP address it resolves to ("localhost" when empty,
	// usually 127.0.0.1).
	LocalServingHost string

	// LocalServingPort is the port the webhook server listens on; 0 picks a free one.
	LocalServingPort int

	// LocalServingCertDir is the directory of the webhook server's certificate and key,
	// tls.crt and tls.key (PEM), set to a new temporary directory by Start.
	LocalServingCertDir string

	// LocalServingCAData is the PEM certificate that the configurations' caBundle holds,
	// which the certificate of LocalServingCertDir chains to.
	LocalServingCAData []byte

	// LocalServingHostExternalName is the host name the API server reaches the webhook
	// server by, instead of LocalServingHost; the certificate is valid for it too.
	LocalServingHostExternalName string

	// MaxTime bounds the wait for the installed configurations (10s when 0).
	MaxTime time.Duration

	// PollInterval is how often the wait looks (100ms when 0).
	PollInterval time.Duration
}

// The waits' defaults, controller-runtime's.
const (
	defaultMaxWait      = 10 * time.Second
	defaultPollInterval = 100 * time.Millisecond
	// servingCertValidity is how long the webhook server's certificate is valid.
	servingCertValidity = 7 * 24 * time.Hour
)

// ModifyWebhookDefinitions points every webhook of MutatingWebhooks and
// ValidatingWebhooks at the local server: each gets LocalServingCAData as its caBundle,
// and one that names a Service with a path gets the URL
// https://<host>:<port>/<path> instead (the host is LocalServingHostExternalName, or
// LocalServingHost), exactly as controller-runtime writes it: a path of "/validate-x"
// gives "https://127.0.0.1:9443//validate-x", which kube-apiserver sends to
// /validate-x. A free port is picked first when LocalServingPort is 0.
func (o *WebhookInstallOptions) ModifyWebhookDefinitions() error {
	hostPort, err := o.generateHostPort()
	if err != nil {
		return err
	}
	for _, c := range o.MutatingWebhooks {
		for i := range c.Webhooks {
			o.pointAt(&c.Webhooks[i].ClientConfig, hostPort)
		}
	}
	for _, c := range o.ValidatingWebhooks {
		for i := range c.Webhooks {
			o.pointAt(&c.Webhooks[i].ClientConfig, hostPort)
		}
	}
	return nil
}

// pointAt sets cc's caBundle and replaces a Service with a path by its local URL.
func (o *WebhookInstallOptions) pointAt(cc *admissionv1.WebhookClientConfig, hostPort string) {
	cc.CABundle = o.LocalServingCAData
	if cc.Service == nil || cc.Service.Path == nil {
		return
	}
	url := "https://" + hostPort + "/" + *cc.Service.Path
	cc.URL, cc.Service = &url, nil
}

// generateHostPort picks the port (and resolves the host) when LocalServingPort is 0,
// and returns the host:port the API server dials.
func (o *WebhookInstallOptions) generateHostPort() (string, error) {
	if o.LocalServingPort == 0 {
		port, host, err := freePort(o.LocalServingHost)
		if err != nil {
			return "", fmt.Errorf("envtest: unable to grab random port for serving webhooks on: %w", err)
		}
		o.LocalServingPort, o.LocalServingHost = port, host
	}
	host := o.LocalServingHostExternalName
	if host == "" {
		host = o.LocalServingHost
	}
	return net.JoinHostPort(host, strconv.Itoa(o.LocalServingPort)), nil
}

// freePort returns a port free on host ("localhost" when empty) and the IP address the
// host resolves to.
func freePort(host string) (int, string, error) {
	if host == "" {
		host = "localhost"
	}
	addr, err := net.ResolveTCPAddr("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, "", err
	}
	l, err := net.ListenTCP("tcp", addr)
	if err != nil {
		return 0, "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, "", err
	}
	return port, addr.IP.String(), nil
}

// PrepWithoutInstalling does what Install does before creating anything: it writes a
// new certificate and key to a new LocalServingCertDir (setting LocalServingCAData),
// reads Paths into MutatingWebhooks and ValidatingWebhooks, and calls
// ModifyWebhookDefinitions. Start calls it before installing the CRDs, whose conversion
// webhooks need the address and certificate.
func (o *WebhookInstallOptions) PrepWithoutInstalling() error {
	if err := o.setupCA(); err != nil {
		return err
	}
	if err := o.readPaths(); err != nil {
		return err
	}
	return o.ModifyWebhookDefinitions()
}

// Install creates (or updates, when they exist) MutatingWebhooks and ValidatingWebhooks
// through config, after PrepWithoutInstalling unless LocalServingCAData is already set,
// and waits until every one can be read back (WaitForWebhooks). It does not wait for the
// webhook server, which the suite starts afterwards.
func (o *WebhookInstallOptions) Install(config *rest.Config) error {
	if o.MaxTime == 0 {
		o.MaxTime = defaultMaxWait
	}
	if o.PollInterval == 0 {
		o.PollInterval = defaultPollInterval
	}
	if len(o.LocalServingCAData) == 0 {
		if err := o.PrepWithoutInstalling(); err != nil {
			return err
		}
	}
	objs := o.configurations()
	if len(objs) == 0 {
		return nil
	}
	c, err := client.New(config, client.Options{})
	if err != nil {
		return fmt.Errorf("envtest: %w", err)
	}
	for _, obj := range objs {
		if err := createOrUpdate(c, obj); err != nil {
			return err
		}
	}
	return WaitForWebhooks(config, o.MutatingWebhooks, o.ValidatingWebhooks, *o)
}

// configurations returns MutatingWebhooks then ValidatingWebhooks.
func (o *WebhookInstallOptions) configurations() []client.Object {
	var objs []client.Object
	for _, c := range o.MutatingWebhooks {
		objs = append(objs, c)
	}
	for _, c := range o.ValidatingWebhooks {
		objs = append(objs, c)
	}
	return objs
}

// createOrUpdate creates obj, or replaces the object of its name when there is one.
func createOrUpdate(c client.Client, obj client.Object) error {
	ctx := context.Background()
	existing := obj.DeepCopyObject().(client.Object)
	err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing)
	switch {
	case apierrors.IsNotFound(err):
		err = c.Create(ctx, obj)
	case err == nil:
		obj.SetResourceVersion(existing.GetResourceVersion())
		err = c.Update(ctx, obj)
	}
	if err != nil {
		return fmt.Errorf("envtest: installing webhook configuration %q: %w", obj.GetName(), err)
	}
	return nil
}

// Cleanup removes LocalServingCertDir, when set.
func (o *WebhookInstallOptions) Cleanup() error {
	if o.LocalServingCertDir == "" {
		return nil
	}
	return os.RemoveAll(o.LocalServingCertDir)
}

// WaitForWebhooks waits, every options.PollInterval for at most options.MaxTime, until
// every configuration of mutatingWebhooks and validatingWebhooks can be read through
// config, as controller-runtime's envtest.WaitForWebhooks does. An error other than
// NotFound ends the wait.
func WaitForWebhooks(config *rest.Config,
	mutatingWebhooks []*admissionv1.MutatingWebhookConfiguration,
	validatingWebhooks []*admissionv1.ValidatingWebhookConfiguration,
	options WebhookInstallOptions,
) error {
	pending := map[string][]string{} // kind -> names
	for _, c := range mutatingWebhooks {
		pending["MutatingWebhookConfiguration"] = append(pending["MutatingWebhookConfiguration"], c.Name)
	}
	for _, c := range validatingWebhooks {
		pending["ValidatingWebhookConfiguration"] = append(pending["ValidatingWebhookConfiguration"], c.Name)
	}
	c, err := client.New(config, client.Options{})
	if err != nil {
		return fmt.Errorf("envtest: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), options.MaxTime)
	defer cancel()
	for {
		for kind, names := range pending {
			var missing []string
			for _, name := range names {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(admissionv1.SchemeGroupVersion.WithKind(kind))
				switch err := c.Get(ctx, client.ObjectKey{Name: name}, u); {
				case apierrors.IsNotFound(err):
					missing = append(missing, name)
				case err != nil:
					return fmt.Errorf("envtest: waiting for %s %q: %w", kind, name, err)
				}
			}
			pending[kind] = missing
			if len(missing) == 0 {
				delete(pending, kind)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("envtest: waiting for the webhook configurations %v: %w", pending, ctx.Err())
		case <-time.After(options.PollInterval):
		}
	}
}

// setupCA writes a new certificate (its own CA) and key for localhost,
// LocalServingHost and LocalServingHostExternalName, and the IP addresses the names
// resolve to, as tls.crt and tls.key to a new temporary LocalServingCertDir, and sets
// LocalServingCAData to the certificate.
func (o *WebhookInstallOptions) setupCA() error {
	hosts, err := servingNames("localhost", o.LocalServingHost, o.LocalServingHostExternalName)
	if err != nil {
		return fmt.Errorf("envtest: unable to set up webhook serving certs: %w", err)
	}
	cert, certPEM, err := kubeconfig.SelfSignedCertificate("localhost", servingCertValidity, hosts...)
	if err != nil {
		return fmt.Errorf("envtest: unable to set up webhook serving certs: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return fmt.Errorf("envtest: unable to marshal webhook serving key: %w", err)
	}
	dir, err := os.MkdirTemp("", "envtest-serving-certs-")
	if err != nil {
		return fmt.Errorf("envtest: unable to create directory for webhook serving certs: %w", err)
	}
	o.LocalServingCertDir = dir
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o640); err != nil {
		return fmt.Errorf("envtest: unable to write webhook serving cert: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("envtest: unable to write webhook serving key: %w", err)
	}
	o.LocalServingCAData = certPEM
	return nil
}

// servingNames returns the non-empty names, each DNS name followed by the IP addresses
// it resolves to (within a bounded time).
func servingNames(names ...string) ([]string, error) {
	var out []string
	for _, name := range names {
		if name == "" || slices.Contains(out, name) {
			continue
		}
		out = append(out, name)
		if net.ParseIP(name) != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		addrs, err := net.DefaultResolver.LookupHost(ctx, name)
		cancel()
		if err != nil {
			return nil, err
		}
		for _, a := range addrs {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

// readPaths adds the webhook configurations of Paths to MutatingWebhooks and
// ValidatingWebhooks.
func (o *WebhookInstallOptions) readPaths() error {
	for _, p := range o.Paths {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && o.IgnoreErrorIfPathMissing {
			continue
		}
		if err != nil {
			return fmt.Errorf("envtest: reading webhooks: %w", err)
		}
		files := []string{p}
		if info.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return fmt.Errorf("envtest: reading webhooks: %w", err)
			}
			files = files[:0]
			for _, e := range entries {
				if !e.IsDir() {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
		for _, f := range files {
			if !slices.Contains([]string{".json", ".yaml", ".yml"}, filepath.Ext(f)) {
				continue // as controller-runtime, a named file too
			}
			if err := o.readManifest(f); err != nil {
				return fmt.Errorf("envtest: reading webhooks of %s: %w", f, err)
			}
		}
	}
	return nil
}

// readManifest adds the webhook configurations of the YAML or JSON documents of file.
func (o *WebhookInstallOptions) readManifest(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	r := codec.NewYAMLReader(bytes.NewReader(data))
	for n := 1; ; n++ {
		doc, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var head metav1.PartialObjectMetadata
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return fmt.Errorf("document %d: %w", n, err)
		}
		var into any
		switch head.Kind {
		case "MutatingWebhookConfiguration":
			c := &admissionv1.MutatingWebhookConfiguration{}
			into, o.MutatingWebhooks = c, append(o.MutatingWebhooks, c)
		case "ValidatingWebhookConfiguration":
			c := &admissionv1.ValidatingWebhookConfiguration{}
			into, o.ValidatingWebhooks = c, append(o.ValidatingWebhooks, c)
		default:
			continue // a Service, a kustomization, ...
		}
		if head.APIVersion != admissionv1.SchemeGroupVersion.String() {
			return fmt.Errorf("only v1 is supported right now for %s (name: %s)", head.Kind, head.Name)
		}
		if err := yaml.Unmarshal(doc, into); err != nil {
			return fmt.Errorf("document %d: %w", n, err)
		}
	}
}
