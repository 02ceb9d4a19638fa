package envtest_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"os"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/apikit-dev/apikit/envtest"
)

// Start installs the webhook configurations of WebhookInstallOptions pointed at the
// address and certificate it prepared, where the suite then starts its manager's webhook
// server (webhook.Options{Host: o.LocalServingHost, Port: o.LocalServingPort, CertDir:
// o.LocalServingCertDir}).
func ExampleWebhookInstallOptions() {
	testEnv := &envtest.Environment{
		WebhookInstallOptions: envtest.WebhookInstallOptions{Paths: []string{"testdata/webhook"}},
	}
	cfg, err := testEnv.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer testEnv.Stop()

	o := &testEnv.WebhookInstallOptions
	files, err := os.ReadDir(o.LocalServingCertDir)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println("cert dir:", f.Name())
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	hooks := &admissionv1.MutatingWebhookConfiguration{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "mutating-webhook-configuration"}, hooks); err != nil {
		log.Fatal(err)
	}
	hostPort := net.JoinHostPort(o.LocalServingHost, strconv.Itoa(o.LocalServingPort))
	fmt.Println("url:", strings.Replace(*hooks.Webhooks[0].ClientConfig.URL, hostPort, "HOST:PORT", 1))
	fmt.Println("caBundle is LocalServingCAData:", string(hooks.Webhooks[0].ClientConfig.CABundle) == string(o.LocalServingCAData))
	// Output:
	// cert dir: tls.crt
	// cert dir: tls.key
	// url: https://HOST:PORT//mutate-toys-example-com-v1-widget
	// caBundle is LocalServingCAData: true
}
