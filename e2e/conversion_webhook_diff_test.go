package e2e

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
)

// The side-by-side check of issue 27's CRD conversion webhooks: one conversion webhook
// (a TLS server on loopback) serves a two-version CRD on kube-apiserver and on apikit;
// the same reads and writes in both versions, and the same webhook failures, are
// answered alike. apikit sends a list's objects in one ConversionReview, as kube does
// when it converts a list. kube-apiserver keeps a watch cache per served version of a
// CRD and converts objects into it when they are written, so it serves a list from
// that cache without calling the webhook (and converts in the background for readers
// nobody asked for): the lists the failing webhook would fail are known differences,
// and the number of reviews is not compared.

// convWebhook converts conv.example.com Conv objects between v1 (spec.size) and v2
// (spec.replicas), or fails as its mode says; it counts the reviews it receives.
type convWebhook struct {
	mu      sync.Mutex
	mode    string
	reviews []int // the number of objects of each review received since reset
}

func (w *convWebhook) set(mode string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.mode, w.reviews = mode, nil
}

func (w *convWebhook) received() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int(nil), w.reviews...)
}

func (w *convWebhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	var review struct {
		Request struct {
			UID               string           `json:"uid"`
			DesiredAPIVersion string           `json:"desiredAPIVersion"`
			Objects           []map[string]any `json:"objects"`
		} `json:"request"`
	}
	if err := json.Unmarshal(body, &review); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	mode := w.mode
	w.reviews = append(w.reviews, len(review.Request.Objects))
	w.mu.Unlock()
	if mode == "http-500" {
		http.Error(rw, "the converter is broken", http.StatusInternalServerError)
		return
	}
	desired := review.Request.DesiredAPIVersion
	var converted []map[string]any
	for _, obj := range review.Request.Objects {
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			obj["spec"] = spec
		}
		switch desired {
		case "conv.example.com/v2":
			if v, ok := spec["size"]; ok {
				spec["replicas"] = v
				delete(spec, "size")
			}
		case "conv.example.com/v1":
			if v, ok := spec["replicas"]; ok {
				spec["size"] = v
				delete(spec, "replicas")
			}
		}
		obj["apiVersion"] = desired
		md, _ := obj["metadata"].(map[string]any)
		switch mode {
		case "rename":
			md["name"] = "renamed"
		case "relabel":
			labels, _ := md["labels"].(map[string]any)
			if labels == nil {
				labels = map[string]any{}
				md["labels"] = labels
			}
			labels["converted"] = "yes"
		case "bad-label":
			md["labels"] = map[string]any{"not a label": "x"}
		case "wrong-version":
			obj["apiVersion"] = "conv.example.com/v3"
		case "wrong-kind":
			obj["kind"] = "Other"
		}
		converted = append(converted, obj)
	}
	uid := review.Request.UID
	switch mode {
	case "wrong-uid":
		uid = "not-the-request"
	case "drop-one":
		if len(converted) > 0 {
			converted = converted[1:]
		}
	}
	result := map[string]any{"status": "Success"}
	if mode == "refuse" {
		result = map[string]any{"status": "Failure", "message": "v1 and v2 do not mix today"}
		converted = nil
	}
	answer := map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
		"response": map[string]any{"uid": uid, "convertedObjects": converted, "result": result}}
	if mode == "wrong-review-kind" {
		answer["kind"] = "AdmissionReview"
	}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(answer)
}

func convCRD(url string, caBundle []byte) string {
	schema := func(field string) string {
		return fmt.Sprintf(`{"type":"object","properties":{"spec":{"type":"object","properties":{%q:{"type":"integer"}}}}}`, field)
	}
	return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"convs.conv.example.com"},
"spec":{"group":"conv.example.com","scope":"Namespaced",
 "names":{"plural":"convs","singular":"conv","kind":"Conv","listKind":"ConvList"},
 "versions":[
  {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":%s}},
  {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":%s}}],
 "conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],
  "clientConfig":{"url":%q,"caBundle":%q}}}}}`, schema("size"), schema("replicas"), url, base64.StdEncoding.EncodeToString(caBundle))
}

// convDiffAnswer is a server's answer to one request of the test.
type convDiffAnswer struct {
	Code    int
	Reason  string
	Message string
	Body    any
}

// convMessage normalizes what differs by server in a conversion failure's message:
// the request uid, and the storage key, resourceVersion and revision kube's storage
// error names (apikit's names no storage key).
func convMessage(msg string) string {
	msg = regexp.MustCompile(`response\.uid="[^"]*"`).ReplaceAllString(msg, `response.uid="<uid>"`)
	msg = regexp.MustCompile(`Key: [^,]*, ResourceVersion: [0-9]+, `).ReplaceAllString(msg, "")
	return regexp.MustCompile(` revision=[0-9]+:`).ReplaceAllString(msg, ":")
}

func TestSideBySide_ConversionWebhookAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t)
	wh := &convWebhook{}
	ws := httptest.NewTLSServer(wh)
	t.Cleanup(ws.Close)
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ws.Certificate().Raw})
	crd := convCRD(ws.URL+"/convert", caBundle)

	const (
		v1 = "/apis/conv.example.com/v1/namespaces/default/convs"
		v2 = "/apis/conv.example.com/v2/namespaces/default/convs"
	)
	obj := func(version, name, field string, n int) string {
		return fmt.Sprintf(`{"apiVersion":"conv.example.com/%s","kind":"Conv","metadata":{"name":%q,"labels":{"app":"x"}},"spec":{%q:%d}}`, version, name, field, n)
	}
	// known, when set, says why kube's answer differs: the difference is logged.
	type step struct{ name, mode, method, path, body, known string }
	const fromCache = "kube-apiserver serves the list from its watch cache of v2, converted when the objects were written, without calling the webhook; apikit converts a list when it is read, in one review"
	steps := []step{
		{"create a in v1", "", "POST", v1, obj("v1", "a", "size", 1), ""},
		{"create b in v1", "", "POST", v1, obj("v1", "b", "size", 2), ""},
		{"create c in v2", "", "POST", v2, obj("v2", "c", "replicas", 3), ""},
		{"get a in v1", "", "GET", v1 + "/a", "", ""},
		{"get a in v2", "", "GET", v2 + "/a", "", ""},
		{"get c in v1", "", "GET", v1 + "/c", "", ""},
		{"list in v2", "", "GET", v2, "", ""},
		{"list in v1", "", "GET", v1, "", ""},
		{"merge patch b in v2", "", "PATCH", v2 + "/b", `{"spec":{"replicas":5}}`, ""},
		{"get b in v1 after the patch", "", "GET", v1 + "/b", "", ""},
		{"webhook changes labels: get in v2", "relabel", "GET", v2 + "/a", "", ""},
		{"webhook answers 500: get in v2", "http-500", "GET", v2 + "/a", "", ""},
		{"webhook answers 500: list in v2", "http-500", "GET", v2, "", fromCache},
		{"webhook answers 500: create in v2", "http-500", "POST", v2, obj("v2", "d", "replicas", 4), ""},
		{"webhook refuses: get in v2", "refuse", "GET", v2 + "/a", "", ""},
		{"webhook refuses: list in v2", "refuse", "GET", v2, "", fromCache},
		{"webhook answers another uid", "wrong-uid", "GET", v2 + "/a", "", ""},
		{"webhook answers another kind of review", "wrong-review-kind", "GET", v2 + "/a", "",
			"kube's client decodes the answer into its scheme first: an unregistered kind is `no kind \"AdmissionReview\" is registered for version \"apiextensions.k8s.io/v1\" in scheme \"pkg/runtime/scheme.go:111\"`; apikit answers as kube does for a registered kind, naming no source file"},
		{"webhook drops an object of a list", "drop-one", "GET", v2, "", fromCache},
		{"webhook drops the object of a get", "drop-one", "GET", v2 + "/a", "", ""},
		{"webhook renames: get in v2", "rename", "GET", v2 + "/a", "", ""},
		{"webhook renames: list in v2", "rename", "GET", v2, "", fromCache},
		{"webhook sets an invalid label: get", "bad-label", "GET", v2 + "/a", "", ""},
		{"webhook sets an invalid label: list", "bad-label", "GET", v2, "", fromCache},
		{"webhook answers another version: get", "wrong-version", "GET", v2 + "/a", "", ""},
		{"webhook answers another version: list", "wrong-version", "GET", v2, "", fromCache},
		{"webhook answers another kind: list", "wrong-kind", "GET", v2, "", fromCache},
		{"nothing was stored by the failures", "", "GET", v1, "", ""},
	}

	answers := make([][]convDiffAnswer, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		wh.set("")
		if code, m := sv.do(t, hc, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", crd); code != http.StatusCreated {
			t.Fatalf("%s: creating the CRD: %d %v", sv.name, code, m)
		}
		awaitServed(t, sv, hc, v2)
		for _, s := range steps {
			wh.set(s.mode)
			ctype := "application/json"
			if s.method == "PATCH" {
				ctype = "application/merge-patch+json"
			}
			code, m := sv.do(t, hc, s.method, s.path, ctype, s.body)
			ans := convDiffAnswer{Code: code}
			if reviews := wh.received(); sv.name == "apikit" && s.method == "GET" && !strings.Contains(s.path, "/convs/") && s.path != v1 && len(reviews) != 1 {
				t.Errorf("%s: apikit sent the webhook %v objects, want one review for the list", s.name, reviews)
			}
			if m["kind"] == "Status" {
				ans.Reason, _ = m["reason"].(string)
				msg, _ := m["message"].(string)
				ans.Message = convMessage(msg)
			} else {
				ans.Body = normalizeConv(m)
			}
			answers[i] = append(answers[i], ans)
		}
		wh.set("")
	}
	equal, known := 0, 0
	for j, s := range steps {
		d := cmp.Diff(answers[0][j], answers[1][j])
		switch {
		case d == "":
			equal++
		case s.known != "":
			known++
			t.Logf("%s: known difference: %s (kube %d, apikit %d %s)", s.name, s.known, answers[0][j].Code, answers[1][j].Code, answers[1][j].Message)
		default:
			t.Errorf("%s (-kube +apikit):\n%s", s.name, d)
		}
	}
	t.Logf("%d of %d conversion webhook reads, writes and failures answered as kube-apiserver does; %d known differences", equal, len(steps), known)
}

// awaitServed waits, bounded, until path (a collection of a new CRD) lists.
func awaitServed(t *testing.T, sv *sideBySide, hc *http.Client, path string) {
	t.Helper()
	for range 100 {
		if code, _ := sv.do(t, hc, "GET", path, "", ""); code == http.StatusOK {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %s is not served after 10 s", sv.name, path)
}

// normalizeConv keeps what the servers agree on of an object or list: no uid,
// resourceVersion, timestamps or managedFields (whose times and order are the
// server's), and a list's items sorted as stored, by name.
func normalizeConv(m map[string]any) any {
	if items, ok := m["items"].([]any); ok {
		out := make([]any, 0, len(items))
		for _, it := range items {
			if im, ok := it.(map[string]any); ok {
				out = append(out, normalizeConv(im))
			}
		}
		return map[string]any{"apiVersion": m["apiVersion"], "kind": m["kind"], "items": out}
	}
	md, _ := m["metadata"].(map[string]any)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
		delete(md, f)
	}
	return m
}
