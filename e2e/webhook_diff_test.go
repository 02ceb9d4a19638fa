package e2e

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
)

// The side-by-side check of issue 27's admission webhooks: a TLS webhook server on
// 127.0.0.1 serves the same mutating and validating webhooks to kube-apiserver and to
// apikit (each under its own path prefix), the same configurations are registered on
// both, the same writes are sent, and the answers, the stored objects and the
// AdmissionReview requests the webhooks received are compared.

// diffHookServer is the webhook server both API servers call; paths are
// /<server>/<webhook>.
type diffHookServer struct {
	*httptest.Server
	ca   []byte
	stop chan struct{}

	mu  sync.Mutex
	got map[string][]map[string]any // server name -> the requests since the last take
}

func newDiffHookServer(t testing.TB) *diffHookServer {
	hs := &diffHookServer{got: map[string][]map[string]any{}, stop: make(chan struct{})}
	hs.Server = httptest.NewTLSServer(http.HandlerFunc(hs.serve))
	hs.ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw})
	t.Cleanup(func() { close(hs.stop); hs.Close() })
	return hs
}

// take returns and forgets the requests server's webhooks received.
func (hs *diffHookServer) take(server string) []map[string]any {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	out := hs.got[server]
	delete(hs.got, server)
	return out
}

func (hs *diffHookServer) serve(w http.ResponseWriter, r *http.Request) {
	var review struct {
		APIVersion string         `json:"apiVersion"`
		Request    map[string]any `json:"request"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	server, hook, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	req := review.Request
	hs.mu.Lock()
	hs.got[server] = append(hs.got[server], map[string]any{"webhook": hook, "request": req, "apiVersion": review.APIVersion})
	hs.mu.Unlock()
	uid, _ := req["uid"].(string)
	obj, _ := req["object"].(map[string]any)
	old, _ := req["oldObject"].(map[string]any)
	resp := map[string]any{"uid": uid, "allowed": true}
	switch hook {
	case "label":
		resp["patch"] = jsonPatchOf(`[{"op":"add","path":"/metadata/labels/mutated","value":"yes"}]`)
		resp["patchType"] = "JSONPatch"
		resp["warnings"] = []string{"labelled " + fmt.Sprint(req["name"])}
	case "size":
		resp["patch"] = jsonPatchOf(`[{"op":"add","path":"/spec/size","value":3}]`)
		resp["patchType"] = "JSONPatch"
	case "deny":
		if data, _ := obj["data"].(map[string]any); data["deny"] != nil {
			resp["allowed"] = false
			resp["status"] = map[string]any{"code": 422, "reason": "Invalid", "message": "data.deny is " + fmt.Sprint(data["deny"])}
		}
		if md, _ := old["metadata"].(map[string]any); req["operation"] == "DELETE" && md["labels"] != nil {
			if l, _ := md["labels"].(map[string]any); l["protect"] != nil {
				resp["allowed"] = false
				resp["status"] = map[string]any{"message": "protected"}
			}
		}
	case "reason":
		resp["allowed"] = false
		resp["status"] = map[string]any{"code": 200, "reason": "NoWay"}
	case "wronguid":
		resp["uid"] = "not-" + uid
	case "patching":
		resp["patch"] = jsonPatchOf(`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`)
		resp["patchType"] = "JSONPatch"
	case "rename":
		resp["patch"] = jsonPatchOf(`[{"op":"replace","path":"/metadata/name","value":"renamed"}]`)
		resp["patchType"] = "JSONPatch"
	case "unknown":
		resp["patch"] = jsonPatchOf(`[{"op":"add","path":"/unknownField","value":"x"},{"op":"add","path":"/metadata/labels/known","value":"yes"}]`)
		resp["patchType"] = "JSONPatch"
	case "late":
		if md, _ := obj["metadata"].(map[string]any); md != nil {
			if l, _ := md["labels"].(map[string]any); l["late"] == nil {
				resp["patch"] = jsonPatchOf(`[{"op":"add","path":"/metadata/labels/late","value":"yes"}]`)
				resp["patchType"] = "JSONPatch"
			}
		}
	case "breaking":
		resp["patch"] = jsonPatchOf(`[{"op":"replace","path":"/data","value":7}]`)
		resp["patchType"] = "JSONPatch"
	case "hang":
		select {
		case <-r.Context().Done():
		case <-hs.stop:
		case <-time.After(5 * time.Second):
		}
		return
	}
	version := review.APIVersion // answered in the version asked, but by the liar
	if hook == "betalie" {
		version = "admission.k8s.io/v1"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": version, "kind": "AdmissionReview", "response": resp})
}

func jsonPatchOf(s string) []byte { return []byte(s) }

// webhookDiffStep is one write and the object read back after it.
type webhookDiffStep struct {
	name, method, path, body string
	read                     string // path of the object to read back ("" for none)
	ctype                    string // "" for application/json
}

// webhookDiffAnswer is what a server did with a step.
type webhookDiffAnswer struct {
	Code            int
	Reason, Message string
	Warnings        []string
	Stored          any
	Reviews         []map[string]any
}

// serverPathPattern matches the path prefix of each server's webhooks.
var serverPathPattern = regexp.MustCompile(`/(kube|apikit)/`)

// normalizeMessage replaces uids and the server's path prefix.
func normalizeMessage(s string) string {
	return serverPathPattern.ReplaceAllString(uuidPattern.ReplaceAllString(s, "<uid>"), "/<server>/")
}

// normalizeObject drops what differs between any two servers: uids, resourceVersions,
// times, managedFields.
func normalizeObject(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
			delete(md, k)
		}
		if name, _ := md["name"].(string); generatedName.MatchString(name) {
			md["name"] = "gen-<random>"
		}
	}
	return m
}

func webhookConfigs(hs *diffHookServer, server, closedURL string) []string {
	url := func(hook string) string { return hs.URL + "/" + server + "/" + hook }
	ca, _ := json.Marshal(hs.ca)
	cm := `{"operations":["CREATE","UPDATE","DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}`
	hook := func(name, u, rules, extra string) string {
		return fmt.Sprintf(`{"name":%q,"clientConfig":{"url":%q,"caBundle":%s},"rules":[%s],"sideEffects":"None","admissionReviewVersions":["v1"]%s}`, name, u, ca, rules, extra)
	}
	cmWrites := `{"operations":["CREATE","UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}`
	hooked := `,"namespaceSelector":{"matchLabels":{"webhooks":"on"}}`
	broken := func(v string) string { return hooked + `,"objectSelector":{"matchLabels":{"broken":"` + v + `"}}` }
	mutating := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"e2e-mutating"},"webhooks":[` +
		hook("label.m.example.com", url("label"), cmWrites, hooked+`,"objectSelector":{"matchLabels":{"hook":"on"}}`) + "," +
		hook("size.m.example.com", url("size"), `{"operations":["CREATE"],"apiGroups":["hook.example.com"],"apiVersions":["*"],"resources":["widgets"]}`, "") + "," +
		hook("breaking.m.example.com", url("breaking"), cm, broken("patch")) + "," +
		hook("rename.m.example.com", url("rename"), cmWrites, broken("rename")) + "," +
		hook("unknown.m.example.com", url("unknown"), cmWrites, broken("unknown")) + "," +
		hook("early.m.example.com", url("early"), cmWrites, broken("reinvoke")+`,"reinvocationPolicy":"IfNeeded"`) + "," +
		hook("podlabel.m.example.com", url("label"), `{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}`, hooked) + "]}"
	// Configurations run in name order: this one after e2e-mutating.
	mutatingLate := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"e2e-mutating-late"},"webhooks":[` +
		hook("late.m.example.com", url("late"), cmWrites, broken("reinvoke")) + "]}"
	validating := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"e2e-validating"},"webhooks":[` +
		hook("deny.v.example.com", url("deny"), cm, hooked) + "," +
		hook("reason.v.example.com", url("reason"), cm, broken("reason")) + "," +
		hook("fail.v.example.com", closedURL, cm, broken("fail")) + "," +
		hook("ignore.v.example.com", closedURL, cm, broken("ignore")+`,"failurePolicy":"Ignore"`) + "," +
		hook("wronguid.v.example.com", url("wronguid"), cm, broken("uid")) + "," +
		hook("patching.v.example.com", url("patching"), cm, broken("vpatch")) + "," +
		hook("hang.v.example.com", url("hang"), cm, broken("hang")+`,"timeoutSeconds":1`) + "," +
		hook("widgets.v.example.com", url("deny"), `{"operations":["*"],"apiGroups":["hook.example.com"],"apiVersions":["v1"],"resources":["widgets"]}`, "") + "," +
		hook("beta.v.example.com", url("allow"), cm, broken("beta")+`,"admissionReviewVersions":["v1beta1"]`) + "," +
		hook("betalie.v.example.com", url("betalie"), cm, broken("betalie")+`,"admissionReviewVersions":["v1beta1","v1"]`) + "," +
		hook("pods.v.example.com", url("deny"), `{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}`, hooked) + "," +
		hook("ns.v.example.com", url("allow"), `{"operations":["*"],"apiGroups":[""],"apiVersions":["v1"],"resources":["namespaces"]}`,
			`,"objectSelector":{"matchLabels":{"watched":"yes"}}`) + "]}"
	return []string{mutating, mutatingLate, validating}
}

func webhookDiffSteps() []webhookDiffStep {
	cms := "/api/v1/namespaces/hooked/configmaps"
	cm := func(name, labels, data string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","labels":{` + labels + `}},"data":{` + data + `}}`
	}
	return []webhookDiffStep{
		{"a plain configmap", "POST", cms, cm("plain", "", `"k":"v"`), cms + "/plain", ""},
		{"a mutated configmap", "POST", cms, cm("mutated", `"hook":"on"`, `"k":"v"`), cms + "/mutated", ""},
		{"an update of it", "PUT", cms + "/mutated", cm("mutated", `"hook":"on","protect":"yes"`, `"k":"w"`), cms + "/mutated", ""},
		{"a refused delete", "DELETE", cms + "/mutated", "", cms + "/mutated", ""},
		{"a refused configmap", "POST", cms, cm("denied", "", `"deny":"please"`), cms + "/denied", ""},
		{"a refusal with a reason only", "POST", cms, cm("reason", `"broken":"reason"`, ""), cms + "/reason", ""},
		{"a refused connection, Fail", "POST", cms, cm("fail", `"broken":"fail"`, ""), cms + "/fail", ""},
		{"a refused connection, Ignore", "POST", cms, cm("ignore", `"broken":"ignore"`, ""), cms + "/ignore", ""},
		{"a wrong uid", "POST", cms, cm("uid", `"broken":"uid"`, ""), cms + "/uid", ""},
		{"a patch from a validating webhook", "POST", cms, cm("vpatch", `"broken":"vpatch"`, ""), cms + "/vpatch", ""},
		{"a patch breaking the object", "POST", cms, cm("patch", `"broken":"patch"`, `"k":"v"`), cms + "/patch", ""},
		{"a patch renaming on create", "POST", cms, cm("rename", `"broken":"rename"`, ""), cms + "/renamed", ""},
		{"a patch renaming on update", "PUT", cms + "/plain", cm("plain", `"broken":"rename"`, `"k":"v"`), cms + "/plain", ""},
		{"a patch adding an unknown field", "POST", cms, cm("unknown", `"broken":"unknown"`, ""), cms + "/unknown", ""},
		{"a reinvocation", "POST", cms, cm("reinvoke", `"broken":"reinvoke"`, ""), cms + "/reinvoke", ""},
		{"an admission.k8s.io/v1beta1 review", "POST", cms, cm("beta", `"broken":"beta"`, ""), cms + "/beta", ""},
		{"a v1beta1 review answered in v1", "POST", cms, cm("betalie", `"broken":"betalie"`, ""), cms + "/betalie", ""},
		{"a pod", "POST", "/api/v1/namespaces/hooked/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, "/api/v1/namespaces/hooked/pods/p", ""},
		{"a hung webhook", "POST", cms, cm("hang", `"broken":"hang"`, ""), cms + "/hang", ""},
		{"a dry-run create", "POST", cms + "?dryRun=All", cm("dry", `"hook":"on"`, ""), cms + "/dry", ""},
		{"a generated name", "POST", cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"}}`, "", ""},
		{"outside the selected namespace", "POST", "/api/v1/namespaces/default/configmaps", cm("elsewhere", `"hook":"on"`, `"deny":"x"`), "/api/v1/namespaces/default/configmaps/elsewhere", ""},
		{"a custom resource", "POST", "/apis/hook.example.com/v1/namespaces/hooked/widgets", `{"apiVersion":"hook.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red"}}`, "/apis/hook.example.com/v1/namespaces/hooked/widgets/w", ""},
		{"a merge patch", "PATCH", cms + "/plain", `{"data":{"k":"patched"}}`, cms + "/plain", "application/merge-patch+json"},
		{"a namespace create", "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"watched","labels":{"watched":"yes"}}}`, "/api/v1/namespaces/watched", ""},
		{"a namespace patch", "PATCH", "/api/v1/namespaces/watched", `{"metadata":{"labels":{"more":"x"}}}`, "/api/v1/namespaces/watched", "application/merge-patch+json"},
		{"a custom resource delete", "DELETE", "/apis/hook.example.com/v1/namespaces/hooked/widgets/w", "", "/apis/hook.example.com/v1/namespaces/hooked/widgets/w", ""},
	}
}

// TestSideBySide_AdmissionWebhooksAsKubeAPIServer registers the same webhook
// configurations on kube-apiserver and apikit and compares what the same writes answer,
// store and send to the webhooks.
func TestSideBySide_AdmissionWebhooksAsKubeAPIServer(t *testing.T) {
	// apikit's Builtin() has no ServiceAccount plugin (as envtest runs kube-apiserver).
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	hs := newDiffHookServer(t)
	closed := httptest.NewTLSServer(http.NotFoundHandler())
	closedURL := closed.URL + "/closed"
	closed.Close()
	steps := webhookDiffSteps()
	answers := map[string][]webhookDiffAnswer{}
	for _, sv := range servers {
		answers[sv.name] = webhookDiffAnswers(t, sv, hs, closedURL, steps)
	}
	equal := 0
	for i, st := range steps {
		if d := cmp.Diff(answers["kube"][i], answers["apikit"][i]); d != "" {
			t.Errorf("%s: %s %s: kube %d %q (-kube +apikit):\n%s", st.name, st.method, st.path, answers["kube"][i].Code, answers["kube"][i].Message, d)
			continue
		}
		equal++
		a := answers["kube"][i]
		t.Logf("%s: %d %s %q, %d review(s)", st.name, a.Code, a.Reason, a.Message, len(a.Reviews))
	}
	t.Logf("%d of %d webhook steps equal with kube", equal, len(steps))
}

// webhookDiffAnswers registers the CRD and the webhook configurations on sv, sends the
// steps and returns what it answered, stored and sent to the webhooks.
func webhookDiffAnswers(t *testing.T, sv *sideBySide, hs *diffHookServer, closedURL string, steps []webhookDiffStep) []webhookDiffAnswer {
	t.Helper()
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.hook.example.com"},
		"spec":{"group":"hook.example.com","scope":"Namespaced","names":{"kind":"Widget","plural":"widgets","singular":"widget"},
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
		"spec":{"type":"object","properties":{"color":{"type":"string"},"size":{"type":"integer"}}}}}}}]}}`
	var out []webhookDiffAnswer
	hc, err := rest.HTTPClientFor(sv.cfg)
	if err != nil {
		t.Fatal(err)
	}
	mustDo := func(method, path, body string, want int) {
		if code, m := sv.do(t, hc, method, path, "application/json", body); code != want {
			t.Fatalf("%s: %s %s: %d %v", sv.name, method, path, code, m)
		}
	}
	mustDo("POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"hooked","labels":{"webhooks":"on"}}}`, 201)
	mustDo("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, 201)
	waitFor(t, sv.name+": widgets served", func() bool {
		code, _ := sv.do(t, hc, "GET", "/apis/hook.example.com/v1/namespaces/hooked/widgets", "", "")
		return code == 200
	})
	for _, c := range webhookConfigs(hs, sv.name, closedURL) {
		kind := "validatingwebhookconfigurations"
		if strings.Contains(c, "MutatingWebhookConfiguration") {
			kind = "mutatingwebhookconfigurations"
		}
		mustDo("POST", "/apis/admissionregistration.k8s.io/v1/"+kind, c, 201)
	}
	// kube-apiserver's webhook informers see new configurations after a moment:
	// wait until the label webhook is called.
	waitFor(t, sv.name+": webhooks active", func() bool {
		code, _ := sv.do(t, hc, "POST", "/api/v1/namespaces/hooked/configmaps?dryRun=All", "application/json",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe","labels":{"hook":"on","broken":"reason"}}}`)
		hs.take(sv.name)
		return code == 400
	})
	for _, st := range steps {
		ctype := st.ctype
		if ctype == "" {
			ctype = "application/json"
		}
		code, m, header := sv.doWith(t, hc, st.method, st.path, ctype, st.body, nil)
		a := webhookDiffAnswer{Code: code}
		if m["kind"] == "Status" {
			a.Reason, _ = m["reason"].(string)
			msg, _ := m["message"].(string)
			a.Message = normalizeMessage(msg)
		}
		a.Warnings = header.Values("Warning")
		if st.read != "" {
			_, stored := sv.do(t, hc, "GET", st.read, "", "")
			a.Stored = normalizeObject(stored)
		}
		for _, r := range hs.take(sv.name) {
			req := r["request"].(map[string]any)
			delete(req, "uid")
			delete(req, "userInfo")
			if name, _ := req["name"].(string); generatedName.MatchString(name) {
				req["name"] = "gen-<random>"
			}
			req["object"] = normalizeObject(req["object"])
			req["oldObject"] = normalizeObject(req["oldObject"])
			a.Reviews = append(a.Reviews, r)
		}
		// Validating webhooks are called in parallel: their order is the webhook's.
		sort.SliceStable(a.Reviews, func(i, j int) bool {
			return a.Reviews[i]["webhook"].(string) < a.Reviews[j]["webhook"].(string)
		})
		out = append(out, a)
	}
	return out
}
