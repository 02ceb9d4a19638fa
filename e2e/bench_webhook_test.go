package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// BenchmarkSideBySide_ConfigMapCreateWithWebhook measures, in one run on kube-apiserver
// and on apikit, a ConfigMap create in a namespace no webhook selects ("none") and in
// one a local validating webhook (allowing, over TLS on 127.0.0.1) is called for
// ("webhook"), with the same configuration stored on both servers: the difference is
// the latency a webhook adds to a create.
func BenchmarkSideBySide_ConfigMapCreateWithWebhook(b *testing.B) {
	kcp := startKubeControlPlane(b, "--disable-admission-plugins=ServiceAccount")
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		b.Fatal(err)
	}
	p := admission.Builtin()
	srv := apitest.NewServer(b, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin(),
		MutatingAdmission: p.Mutating, ValidatingAdmission: p.Validating}})
	apikitCfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	hs := newDiffHookServer(b)
	ca, _ := json.Marshal(hs.ca)
	for _, sv := range []struct {
		name string
		cfg  *rest.Config
	}{{"kube", kcp.Config}, {"apikit", apikitCfg}} {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			b.Fatal(err)
		}
		post := func(path, body string) int {
			req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(sv.cfg.Host, "/")+path, bytes.NewReader([]byte(body)))
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode
		}
		for _, ns := range []string{`{"metadata":{"name":"bench-plain"}}`, `{"metadata":{"name":"bench-hooked","labels":{"webhooks":"on"}}}`} {
			if code := post("/api/v1/namespaces", ns); code != http.StatusCreated {
				b.Fatalf("%s: namespace: %d", sv.name, code)
			}
		}
		config := fmt.Sprintf(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"bench"},"webhooks":[`+
			`{"name":"bench.example.com","clientConfig":{"url":%q,"caBundle":%s},"sideEffects":"None","admissionReviewVersions":["v1"],`+
			`"namespaceSelector":{"matchLabels":{"webhooks":"on"}},`+
			`"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}]}]}`,
			hs.URL+"/"+sv.name+"/allow", ca)
		if code := post("/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", config); code != http.StatusCreated {
			b.Fatalf("%s: configuration: %d", sv.name, code)
		}
		// kube-apiserver's informer sees the configuration after a moment.
		for i := 0; len(hs.take(sv.name)) == 0; i++ {
			if i == 300 {
				b.Fatalf("%s: the webhook is not called", sv.name)
			}
			post("/api/v1/namespaces/bench-hooked/configmaps?dryRun=All", `{"metadata":{"name":"probe"}}`)
			time.Sleep(100 * time.Millisecond)
		}
		n := 0
		for _, mode := range []struct{ name, ns string }{{"none", "bench-plain"}, {"webhook", "bench-hooked"}} {
			b.Run(sv.name+"/"+mode.name, func(b *testing.B) {
				for range b.N {
					n++
					if code := post("/api/v1/namespaces/"+mode.ns+"/configmaps", fmt.Sprintf(`{"metadata":{"name":"c%d"},"data":{"k":"v"}}`, n)); code != http.StatusCreated {
						b.Fatalf("create: %d", code)
					}
				}
				hs.take(sv.name)
			})
		}
	}
}
