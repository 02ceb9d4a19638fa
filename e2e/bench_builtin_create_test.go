package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

// BenchmarkBuiltinCreateHTTP creates Deployments and Pods over HTTPS with JSON bodies,
// against the real kube-apiserver v1.37.2 (started as envtest starts it, over its etcd;
// skipped without KUBE_CONTROL_PLANE_BIN) and against apikit's test server (in memory),
// side by side in one run, with 1 and 16 clients (b.SetParallelism). Each op is one create
// of a new object with kube's defaults and validation applied; ops/s is reported.
//
//	KUBE_CONTROL_PLANE_BIN=/tmp/apikit-kcp-bin go test -run '^$' -bench BuiltinCreateHTTP -benchtime 2000x ./e2e/
func BenchmarkBuiltinCreateHTTP(b *testing.B) {
	servers := map[string]*rest.Config{}
	if os.Getenv("KUBE_CONTROL_PLANE_BIN") != "" {
		servers["kube-apiserver"] = startKubeControlPlane(b, "--disable-admission-plugins=ServiceAccount").Config
	}
	srv := newBuiltinServer(b)
	servers["apikit"] = &rest.Config{Host: srv.URL, BearerToken: srv.Token(), TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}}
	for _, kind := range []struct{ name, collection, body string }{
		{"deployment", "/apis/apps/v1/namespaces/default/deployments", benchDeployment},
		{"pod", "/api/v1/namespaces/default/pods", benchPod},
	} {
		for _, server := range []string{"kube-apiserver", "apikit"} {
			cfg := servers[server]
			if cfg == nil {
				continue
			}
			hc, err := rest.HTTPClientFor(cfg)
			if err != nil {
				b.Fatal(err)
			}
			for _, clients := range []int{1, 16} {
				b.Run(fmt.Sprintf("%s/%s/c=%d", kind.name, server, clients), func(b *testing.B) {
					var n atomic.Int64
					prefix := fmt.Sprintf("b%d-%d-", clients, b.N)
					url := strings.TrimSuffix(cfg.Host, "/") + kind.collection
					b.SetParallelism(max(1, clients/2)) // GOMAXPROCS is 2 on these machines
					b.ResetTimer()
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							name := prefix + fmt.Sprint(n.Add(1))
							body := strings.Replace(kind.body, "NAME", name, 1)
							resp, err := hc.Post(url, "application/json", bytes.NewReader([]byte(body)))
							if err != nil {
								b.Error(err)
								return
							}
							_, _ = io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							if resp.StatusCode != http.StatusCreated {
								b.Errorf("%s create %s: %d", server, name, resp.StatusCode)
								return
							}
						}
					})
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
				})
			}
		}
	}
}

const benchDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME","labels":{"app":"web"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
"spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"name":"http","containerPort":8080}],
"resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"100m","memory":"64Mi"}},
"readinessProbe":{"httpGet":{"path":"/healthz","port":"http"}},"env":[{"name":"MODE","value":"prod"}]},
{"name":"log","image":"busybox","command":["sh","-c","tail -f /dev/null"]}]}}}}`

const benchPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME","labels":{"app":"web"}},
"spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"name":"http","containerPort":8080}],
"resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"100m","memory":"64Mi"}},
"readinessProbe":{"httpGet":{"path":"/healthz","port":"http"}},"env":[{"name":"MODE","value":"prod"}]},
{"name":"log","image":"busybox","command":["sh","-c","tail -f /dev/null"]}]}}`
