package strategies_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// connectServer is podServer with the objects the connect subresources are tried on:
// pods without a node (one, with one container; two, with an init container and two),
// a pod bound to a node at 127.0.0.1 with a pod IP (bound), one bound to a missing node
// (ghost); nodes at a global address (remote) and without addresses (bare); a service
// web with port 80 named http and no endpoints.
func connectServer(t *testing.T) *apitest.Server {
	t.Helper()
	srv := podServer(t)
	ctr := func(names ...string) []any {
		var out []any
		for _, n := range names {
			out = append(out, map[string]any{"name": n, "image": "nginx"})
		}
		return out
	}
	for _, n := range []struct {
		name string
		ip   string
	}{{"local", "127.0.0.1"}, {"remote", "10.1.2.3"}, {"bare", ""}} {
		node := map[string]any{"metadata": map[string]any{"name": n.name}}
		if n.ip != "" {
			node["status"] = map[string]any{"addresses": []any{map[string]any{"type": "InternalIP", "address": n.ip}}}
		}
		call(t, srv, http.MethodPost, "/api/v1/nodes", node, http.StatusCreated)
	}
	call(t, srv, http.MethodPost, podsPath, map[string]any{"metadata": map[string]any{"name": "one"},
		"spec": map[string]any{"containers": ctr("c")}}, http.StatusCreated)
	call(t, srv, http.MethodPost, podsPath, map[string]any{"metadata": map[string]any{"name": "two"},
		"spec": map[string]any{"initContainers": ctr("i"), "containers": ctr("a", "b")}}, http.StatusCreated)
	for _, p := range []struct{ name, node string }{{"bound", "local"}, {"ghost", "gone"}} {
		call(t, srv, http.MethodPost, podsPath, map[string]any{"metadata": map[string]any{"name": p.name},
			"spec": map[string]any{"containers": ctr("c"), "nodeName": p.node}}, http.StatusCreated)
	}
	bound := call(t, srv, http.MethodGet, podsPath+"/bound", nil, http.StatusOK)
	bound["status"] = map[string]any{"podIPs": []any{map[string]any{"ip": "10.0.0.5"}}, "podIP": "10.0.0.5"}
	call(t, srv, http.MethodPut, podsPath+"/bound/status", bound, http.StatusOK)
	call(t, srv, http.MethodPost, "/api/v1/namespaces/default/services", map[string]any{"metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"ports": []any{map[string]any{"name": "http", "port": 80}}}}, http.StatusCreated)
	return srv
}

// TestConnect_AnswersAsKubeAPIServerWithoutAKubelet holds kube-apiserver v1.37.2's
// answers on the connect subresources up to where it would dial a kubelet, a pod or
// an endpoint, and kube's code and reason for one it cannot reach past that (with a
// message that names no address).
func TestConnect_AnswersAsKubeAPIServerWithoutAKubelet(t *testing.T) {
	srv := connectServer(t)
	upgrade := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"SPDY/3.1"}}
	const nodes, services = "/api/v1/nodes", "/api/v1/namespaces/default/services"
	tests := []struct {
		name, method, path string
		header             http.Header
		wantCode           int
		wantReason         string
		wantMessage        string
	}{
		{"log of a pod without a node is kube's 204", "GET", podsPath + "/one/log", nil, 204, "", ""},
		{"log of a multi-container pod names its containers", "GET", podsPath + "/two/log", nil, 400, "BadRequest",
			"a container name must be specified for pod two, choose one of: [i a b]"},
		{"log of a container not in the pod", "GET", podsPath + "/one/log?container=x", nil, 400, "BadRequest", "container x is not valid for pod one"},
		{"log of a named container", "GET", podsPath + "/two/log?container=i", nil, 204, "", ""},
		{"log of a missing pod", "GET", podsPath + "/missing/log", nil, 404, "NotFound", `pods "missing" not found`},
		{"log with negative tailLines", "GET", podsPath + "/one/log?tailLines=-1", nil, 422, "Invalid",
			`PodLogOptions "one" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`},
		{"log with zero limitBytes", "GET", podsPath + "/one/log?limitBytes=0", nil, 422, "Invalid",
			`PodLogOptions "one" is invalid: limitBytes: Invalid value: 0: must be greater than 0`},
		{"log with sinceSeconds and sinceTime", "GET", podsPath + "/one/log?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z", nil, 422, "Invalid",
			"PodLogOptions \"one\" is invalid: []: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"},
		{"log with a stream", "GET", podsPath + "/one/log?stream=Stdout", nil, 422, "Invalid",
			`PodLogOptions "one" is invalid: stream: Forbidden: may not be specified`},
		{"log with tailLines not a number", "GET", podsPath + "/one/log?tailLines=x", nil, 400, "BadRequest", `strconv.ParseInt: parsing "x": invalid syntax`},
		{"log of a pod on a node without a kubelet", "GET", podsPath + "/bound/log", nil, 500, "", "error reading the logs from the kubelet: "},
		{"log of a pod on a missing node", "GET", podsPath + "/ghost/log", nil, 404, "NotFound", `pods "gone" not found`},
		{"log is not written", "POST", podsPath + "/one/log", nil, 405, "MethodNotAllowed", "the server does not allow this method on the requested resource"},
		{"exec of a pod without a node", "POST", podsPath + "/one/exec?command=ls", nil, 400, "BadRequest", "pod one does not have a host assigned"},
		{"exec of a multi-container pod", "POST", podsPath + "/two/exec?command=ls", nil, 400, "BadRequest",
			"a container name must be specified for pod two, choose one of: [i a b]"},
		{"exec without an upgrade", "POST", podsPath + "/bound/exec?command=ls", nil, 400, "BadRequest", "Upgrade request required"},
		{"exec with an upgrade", "POST", podsPath + "/bound/exec?command=ls", upgrade, 500, "", "error dialing backend: "},
		{"exec as a websocket GET", "GET", podsPath + "/bound/exec?command=ls", upgrade, 500, "", "error dialing backend: "},
		{"exec on a missing node", "POST", podsPath + "/ghost/exec?command=ls", nil, 404, "NotFound", `pods "gone" not found`},
		{"exec as a dry run", "POST", podsPath + "/bound/exec?command=ls&dryRun=All", nil, 400, "BadRequest", "dryRun is not supported"},
		{"exec is not deleted", "DELETE", podsPath + "/bound/exec", nil, 405, "MethodNotAllowed", "the server does not allow this method on the requested resource"},
		{"attach without an upgrade", "POST", podsPath + "/bound/attach", nil, 400, "BadRequest", "Upgrade request required"},
		{"attach of a missing pod", "POST", podsPath + "/missing/attach", nil, 404, "NotFound", `pods "missing" not found`},
		{"portforward of a pod without a node", "POST", podsPath + "/two/portforward", nil, 400, "BadRequest", "pod two does not have a host assigned"},
		{"portforward with a port not a number", "POST", podsPath + "/bound/portforward?ports=x", nil, 400, "BadRequest", `cannot convert to []int32: strconv.ParseUint: parsing "x": invalid syntax`},
		{"portforward without an upgrade", "POST", podsPath + "/bound/portforward?ports=80", nil, 400, "BadRequest", "Upgrade request required"},
		{"proxy to a pod without an IP", "GET", podsPath + "/one/proxy", nil, 400, "BadRequest", "address not allowed"},
		{"proxy to a pod with an IP", "GET", podsPath + "/bound:8080/proxy/metrics", nil, 503, "ServiceUnavailable", "error trying to reach service: "},
		{"proxy of a bad id", "GET", podsPath + "/ftp:bound:80/proxy", nil, 400, "BadRequest", `invalid pod request "ftp:bound:80"`},
		{"proxy as a dry run", "PUT", podsPath + "/bound/proxy?dryRun=All", nil, 400, "BadRequest", "dryRun is not supported"},
		{"node proxy to a loopback address", "GET", nodes + "/local/proxy/metrics", nil, 400, "BadRequest", "address not allowed"},
		{"node proxy to a global address", "GET", nodes + "/remote/proxy/metrics", nil, 503, "ServiceUnavailable", "error trying to reach service: "},
		{"node proxy to a node without addresses", "GET", nodes + "/bare/proxy", nil, 500, "", "no preferred addresses found; known addresses: []"},
		{"node proxy to a missing node", "GET", nodes + "/gone/proxy", nil, 404, "NotFound", `nodes "gone" not found`},
		{"service proxy without endpoints", "GET", services + "/web/proxy/", nil, 503, "ServiceUnavailable", `no endpoints available for service "web"`},
		{"service proxy as OPTIONS", "OPTIONS", services + "/web/proxy", nil, 503, "ServiceUnavailable", `no endpoints available for service "web"`},
		{"service proxy as HEAD has no body", "HEAD", services + "/web/proxy", nil, 503, "", ""},
		{"service proxy to a port it lacks", "GET", services + "/web:81/proxy", nil, 503, "ServiceUnavailable", `no service port 81 found for service "web"`},
		{"service proxy to a missing service's port", "GET", services + "/nope:80/proxy", nil, 404, "NotFound", `services "nope" not found`},
		{"service proxy to a missing service", "GET", services + "/nope/proxy", nil, 503, "ServiceUnavailable", `no endpoints available for service "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := rawCall(t, srv, tt.method, tt.path, tt.header)
			if code != tt.wantCode {
				t.Fatalf("%s %s: %d %s, want %d", tt.method, tt.path, code, body, tt.wantCode)
			}
			if tt.method == http.MethodHead {
				return
			}
			if code == http.StatusNoContent {
				if body != "" {
					t.Errorf("%s %s: %q, want no body", tt.method, tt.path, body)
				}
				return
			}
			var st struct{ Kind, Reason, Message string }
			if err := json.Unmarshal([]byte(body), &st); err != nil {
				t.Fatalf("%s %s: %v: %s", tt.method, tt.path, err, body)
			}
			if st.Kind != "Status" || st.Reason != tt.wantReason || !strings.HasPrefix(st.Message, tt.wantMessage) {
				t.Errorf("%s %s: %s %q %q, want Status %q %q", tt.method, tt.path, st.Kind, st.Reason, st.Message, tt.wantReason, tt.wantMessage)
			}
			for _, leak := range []string{"127.0.0.1", "10.0.0.5", "10.1.2.3", "10250", "8080"} {
				if strings.Contains(st.Message, leak) {
					t.Errorf("%s %s: message %q names the address %s", tt.method, tt.path, st.Message, leak)
				}
			}
		})
	}
}

// rawCall sends a request without a body and returns its code, content type and body.
func rawCall(t *testing.T, srv *apitest.Server, method, path string, header http.Header) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// noExecCreate allows every request but a create on pods/exec.
type noExecCreate struct{}

func (noExecCreate) Authorize(_ context.Context, a authz.Attributes) (bool, string, error) {
	if a.Resource == "pods" && a.Subresource == "exec" && a.Verb == "create" {
		return false, "no create on exec", nil
	}
	return true, "", nil
}

// TestConnect_ExecNeedsCreateEvenAsAGet holds kube's
// AuthorizePodWebsocketUpgradeCreatePermission (on in v1.37): a websocket GET on
// pods/exec is authorized for create too, refused with kube's 403 on pods (not
// pods/exec) when only get is allowed; a POST is refused by the filter as any create.
func TestConnect_ExecNeedsCreateEvenAsAGet(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(), Authorizer: noExecCreate{}}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	call(t, srv, http.MethodPost, podsPath, map[string]any{"metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}, http.StatusCreated)
	upgrade := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}
	for _, c := range []struct {
		method, want string
	}{
		{"GET", `pods "p" is forbidden: no create on exec`},
		{"POST", `pods "p" is forbidden: User "system:anonymous" cannot create resource "pods/exec" in API group "" in the namespace "default": no create on exec`},
	} {
		code, _, body := rawCall(t, srv, c.method, podsPath+"/p/exec?command=ls", upgrade)
		var st struct{ Reason, Message string }
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("%s: %v: %s", c.method, err, body)
		}
		if code != http.StatusForbidden || st.Reason != "Forbidden" || st.Message != c.want {
			t.Errorf("%s exec: %d %s %q, want 403 Forbidden %q", c.method, code, st.Reason, st.Message, c.want)
		}
	}
}
