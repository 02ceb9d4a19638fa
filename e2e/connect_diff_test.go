package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
)

// The side-by-side check of the connect subresources (pods/log, exec, attach,
// portforward, proxy; nodes/proxy; services/proxy) and pods/resize: the same requests
// sent to kube-apiserver (started as envtest starts it, no kubelet anywhere) and to
// apikit. Where kube answers before it would dial, code, reason and message are
// compared; where kube dials a kubelet at 127.0.0.1:10250 that is not there (dial),
// code and reason are, apikit's message naming no address.

const connectNS = "/api/v1/namespaces/connect"

// connectStep is one request; dial says kube's answer carries the error of its dial.
type connectStep struct {
	name, method, path, body string
	ctype                    string
	header                   http.Header
	dial                     bool
	keep                     []string
}

func connectSteps() []connectStep {
	pod := func(name, extra string) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q},"spec":{"schedulerName":"no-scheduler"%s}}`, name, extra)
	}
	node := func(name, status string) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Node","metadata":{"name":%q}%s}`, name, status)
	}
	one := `,"containers":[{"name":"c","image":"nginx:1.27","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m","memory":"128Mi"}}}]`
	two := `,"initContainers":[{"name":"i","image":"busybox"}],"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"nginx"}]`
	pods, nodes, svcs := connectNS+"/pods", "/api/v1/nodes", connectNS+"/services"
	spdy := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"SPDY/3.1"}, "X-Stream-Protocol-Version": {"v4.channel.k8s.io"}}
	return []connectStep{
		{name: "create node local", method: "POST", path: nodes, body: node("connect-local", `,"status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"}]}`)},
		{name: "create node bare", method: "POST", path: nodes, body: node("connect-bare", "")},
		{name: "create one", method: "POST", path: pods, body: pod("one", one)},
		{name: "create two", method: "POST", path: pods, body: pod("two", two)},
		{name: "create bound", method: "POST", path: pods, body: pod("bound", one+`,"nodeName":"connect-local"`)},
		{name: "create bare", method: "POST", path: pods, body: pod("bare", one+`,"nodeName":"connect-bare"`)},
		{name: "create ghost", method: "POST", path: pods, body: pod("ghost", one+`,"nodeName":"connect-gone"`)},
		{name: "create service", method: "POST", path: svcs, body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"ports":[{"name":"http","port":80}]}}`},

		{name: "log without a node", method: "GET", path: pods + "/one/log"},
		{name: "log of two containers", method: "GET", path: pods + "/two/log"},
		{name: "log of a named init container", method: "GET", path: pods + "/two/log?container=i"},
		{name: "log of a missing container", method: "GET", path: pods + "/one/log?container=x"},
		{name: "log of a missing pod", method: "GET", path: pods + "/missing/log"},
		{name: "log with negative tailLines", method: "GET", path: pods + "/one/log?tailLines=-1"},
		{name: "log with zero limitBytes", method: "GET", path: pods + "/one/log?limitBytes=0"},
		{name: "log with zero sinceSeconds", method: "GET", path: pods + "/one/log?sinceSeconds=0"},
		{name: "log with both since", method: "GET", path: pods + "/one/log?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z"},
		{name: "log with a stream", method: "GET", path: pods + "/one/log?stream=Stdout"},
		{name: "log with tailLines not a number", method: "GET", path: pods + "/one/log?tailLines=x"},
		{name: "log with a bad sinceTime", method: "GET", path: pods + "/one/log?sinceTime=yesterday"},
		{name: "log on a node without a kubelet", method: "GET", path: pods + "/bound/log", dial: true},
		{name: "log on a node without addresses", method: "GET", path: pods + "/bare/log"},
		{name: "log on a missing node", method: "GET", path: pods + "/ghost/log"},
		{name: "POST on log", method: "POST", path: pods + "/one/log", ctype: "application/json", body: "{}"},

		{name: "exec without a node", method: "POST", path: pods + "/one/exec?command=ls"},
		{name: "exec of two containers", method: "POST", path: pods + "/two/exec?command=ls"},
		{name: "exec of a missing container", method: "POST", path: pods + "/bound/exec?command=ls&container=x"},
		{name: "exec of a missing pod", method: "POST", path: pods + "/missing/exec?command=ls"},
		{name: "exec without an upgrade", method: "POST", path: pods + "/bound/exec?command=ls"},
		{name: "exec GET without an upgrade", method: "GET", path: pods + "/bound/exec?command=ls"},
		{name: "exec with an upgrade", method: "POST", path: pods + "/bound/exec?command=ls&stdout=1", header: spdy, dial: true},
		{name: "exec on a missing node", method: "POST", path: pods + "/ghost/exec?command=ls"},
		{name: "exec as a dry run", method: "POST", path: pods + "/bound/exec?command=ls&dryRun=All"},
		{name: "PUT on exec", method: "PUT", path: pods + "/bound/exec", ctype: "application/json", body: "{}"},
		{name: "attach without a node", method: "POST", path: pods + "/one/attach"},
		{name: "attach without an upgrade", method: "POST", path: pods + "/bound/attach?stdout=true"},
		{name: "portforward without a node", method: "POST", path: pods + "/one/portforward"},
		{name: "portforward with a port not a number", method: "POST", path: pods + "/bound/portforward?ports=x"},
		{name: "portforward without an upgrade", method: "POST", path: pods + "/bound/portforward?ports=80"},
		{name: "proxy to a pod without an IP", method: "GET", path: pods + "/one/proxy/"},
		{name: "proxy to a missing pod", method: "GET", path: pods + "/missing:80/proxy/x"},
		{name: "proxy of a bad id", method: "GET", path: pods + "/ftp:one:80/proxy"},
		{name: "node proxy to a loopback address", method: "GET", path: nodes + "/connect-local/proxy/metrics"},
		{name: "node proxy to a node without addresses", method: "GET", path: nodes + "/connect-bare/proxy"},
		{name: "node proxy to a missing node", method: "GET", path: nodes + "/connect-gone/proxy"},
		{name: "service proxy without endpoints", method: "GET", path: svcs + "/web/proxy/"},
		{name: "service proxy to a port it lacks", method: "GET", path: svcs + "/web:81/proxy"},
		{name: "service proxy to a missing service's port", method: "GET", path: svcs + "/nope:80/proxy"},
		{name: "service proxy to a missing service", method: "DELETE", path: svcs + "/nope/proxy"},

		{name: "get on resize", method: "GET", path: pods + "/one/resize", keep: []string{"kind", "spec.containers"}},
		{name: "resize cpu", method: "PATCH", path: pods + "/one/resize", ctype: "application/strategic-merge-patch+json",
			body: `{"metadata":{"labels":{"dropped":"yes"}},"spec":{"containers":[{"name":"c","image":"dropped","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}`,
			keep: []string{"spec.containers", "metadata.labels", "metadata.generation", "status.qosClass"}},
		{name: "resize to guaranteed", method: "PATCH", path: pods + "/one/resize", ctype: "application/strategic-merge-patch+json",
			body: `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"300m","memory":"128Mi"}}}]}}`},
		{name: "resize removing a limit", method: "PATCH", path: pods + "/one/resize", ctype: "application/json-patch+json",
			body: `[{"op":"remove","path":"/spec/containers/0/resources/limits/memory"}]`},
		{name: "resize another resource", method: "PATCH", path: pods + "/one/resize", ctype: "application/strategic-merge-patch+json",
			body: `{"spec":{"containers":[{"name":"c","resources":{"limits":{"ephemeral-storage":"1Gi"}}}]}}`},
		{name: "resize adding a container", method: "PATCH", path: pods + "/one/resize", ctype: "application/json-patch+json",
			body: `[{"op":"add","path":"/spec/containers/-","value":{"name":"d","image":"nginx"}}]`},
		{name: "resize a resize policy", method: "PATCH", path: pods + "/one/resize", ctype: "application/strategic-merge-patch+json",
			body: `{"spec":{"containers":[{"name":"c","resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"}]}]}}`},
		{name: "POST on resize", method: "POST", path: pods + "/one/resize", ctype: "application/json", body: pod("one", one)},
	}
}

// connectAnswer is what is compared of one answer.
type connectAnswer struct {
	Code                    int
	Reason, Message, Causes string
	Text                    string
	Kept                    map[string]any
}

func TestSideBySide_ConnectSubresourcesAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	answers := make([][]connectAnswer, len(servers))
	for i, sv := range servers {
		// HTTP/1.1, whose requests may ask for an upgrade (Go's HTTP/2 client refuses).
		cfg := rest.CopyConfig(sv.cfg)
		cfg.NextProtos = []string{"http/1.1"}
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if code, m := sv.do(t, hc, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"connect"}}`); code != 201 {
			t.Fatalf("%s: namespace: %d %v", sv.name, code, m)
		}
		for _, st := range connectSteps() {
			ctype := st.ctype
			if ctype == "" && st.body != "" {
				ctype = "application/json"
			}
			code, m, _ := sv.doWith(t, hc, st.method, st.path, ctype, st.body, st.header)
			ans := connectAnswer{Code: code}
			switch {
			case m["kind"] == "Status":
				ans.Reason, _ = m["reason"].(string)
				ans.Message, _ = m["message"].(string)
				ans.Causes = fmt.Sprint(get(m, "details", "causes"))
				if st.dial {
					t.Logf("%s: %s answers %d %q %q", st.name, sv.name, code, ans.Reason, ans.Message)
					ans.Message = ""
				}
			case len(st.keep) > 0:
				ans.Kept = map[string]any{}
				for _, k := range st.keep {
					ans.Kept[k] = getDotted(m, k)
				}
			case code < 300 && m["kind"] == nil:
				ans.Text, _ = m["text"].(string)
			}
			answers[i] = append(answers[i], ans)
		}
	}
	equal := 0
	for j, st := range connectSteps() {
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", st.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d connect and resize requests answered as kube-apiserver does", equal, len(connectSteps()))
}
