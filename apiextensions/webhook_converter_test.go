package apiextensions_test

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/webhook"
)

// reviewSeen is what a test webhook was sent.
type reviewSeen struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    struct {
		UID               string           `json:"uid"`
		DesiredAPIVersion string           `json:"desiredAPIVersion"`
		Objects           []map[string]any `json:"objects"`
	} `json:"request"`
}

// lyingWebhook converts Robots between v1 (spec.color) and v1beta1 (spec.colour), and
// lies in the way its path asks for.
func lyingWebhook(t testing.TB, hang chan struct{}, seen func(reviewSeen)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in reviewSeen
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			t.Errorf("webhook: decoding the review: %v", err)
		}
		seen(in)
		lie := strings.TrimPrefix(r.URL.Path, "/")
		if lie == "hang" {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		var converted []any
		for _, obj := range in.Request.Objects {
			spec, _ := obj["spec"].(map[string]any)
			if c, ok := spec["color"]; ok {
				spec["colour"] = c
				delete(spec, "color")
			} else if c, ok := spec["colour"]; ok {
				spec["color"] = c
				delete(spec, "colour")
			}
			obj["apiVersion"] = in.Request.DesiredAPIVersion
			md, _ := obj["metadata"].(map[string]any)
			switch lie {
			case "name":
				md["name"] = "other"
			case "apiversion":
				obj["apiVersion"] = "fleet.example.com/v9"
			case "kind":
				obj["kind"] = "Droid"
			case "labels":
				md["labels"] = map[string]any{"converted": "yes"}
				md["generation"] = 99.0 // not kept: only labels and annotations are
			case "badlabel":
				md["labels"] = map[string]any{"bad key!": "x"}
			case "numberlabel":
				md["labels"] = map[string]any{"n": 1.0}
			case "nometadata":
				delete(obj, "metadata")
			}
			converted = append(converted, obj)
		}
		uid := in.Request.UID
		status := "Success"
		message := ""
		switch lie {
		case "uid":
			uid = "not-the-request"
		case "count":
			converted = append(converted, converted...)
		case "refuse":
			status, message = "Failure", "cannot convert robots today"
		case "refusesilently":
			status = "Failure"
		case "text":
			_, _ = w.Write([]byte("ok!"))
			return
		case "big":
			_, _ = w.Write([]byte(`{"pad":"` + strings.Repeat("x", 4096) + `"}`))
			return
		}
		kind := "ConversionReview"
		if lie == "reviewkind" {
			kind = "AdmissionReview"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"apiVersion": in.APIVersion, "kind": kind,
			"response": map[string]any{"uid": uid, "convertedObjects": converted, "result": map[string]any{"status": status, "message": message}},
		})
	})
}

// webhookRobotsCRD is robotsCRD converting through the webhook at url.
func webhookRobotsCRD(t *testing.T, url string, caBundle []byte, reviewVersions ...string) *apiextensions.CustomResourceDefinition {
	crd := robotsCRD(t)
	crd.Spec.Conversion = &apiextensions.CustomResourceConversion{
		Strategy: apiextensions.WebhookConverter,
		Webhook: &apiextensions.WebhookConversion{
			ClientConfig:             &apiextensions.WebhookClientConfig{URL: &url, CABundle: caBundle},
			ConversionReviewVersions: reviewVersions,
		},
	}
	return crd
}

func TestWebhookConverter_ConvertsThroughTheWebhookAndRefusesItsLiesWithKubesMessages(t *testing.T) {
	hang := make(chan struct{})
	var mu sync.Mutex
	var last reviewSeen
	srv := httptest.NewTLSServer(lyingWebhook(t, hang, func(r reviewSeen) { mu.Lock(); last = r; mu.Unlock() }))
	defer srv.Close()
	defer close(hang)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	closed := httptest.NewTLSServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	const from = "conversion webhook for fleet.example.com/v1, Kind=Robot "
	for _, tt := range []struct {
		name           string
		url            string
		reviewVersions []string
		want           string // the 500's message; "" when the conversion succeeds
		wantLabels     map[string]any
	}{
		{name: "a correct webhook converts", url: srv.URL + "/"},
		{name: "the first review version apikit speaks is sent", url: srv.URL + "/", reviewVersions: []string{"v2", "v1beta1", "v1"}},
		{name: "labels and annotations are the webhook's, the rest of metadata the original's", url: srv.URL + "/labels", wantLabels: map[string]any{"converted": "yes"}},
		{name: "a hung webhook times out", url: srv.URL + "/hang", want: from + `failed: Post "` + srv.URL + `/hang?timeout=200ms": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`},
		{name: "a refusing webhook", url: closedURL + "/", want: from + `failed: Post "` + closedURL + `/?timeout=200ms": dial tcp ` + strings.TrimPrefix(closedURL, "https://") + `: connect: connection refused`},
		{name: "a wrong uid", url: srv.URL + "/uid", want: from + `failed: expected response.uid="`},
		{name: "a v1beta1 answer is not held to the uid", url: srv.URL + "/uid", reviewVersions: []string{"v1beta1"}},
		{name: "another kind of review", url: srv.URL + "/reviewkind", want: from + "failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind=AdmissionReview"},
		{name: "a failed result says why", url: srv.URL + "/refuse", want: from + "failed: cannot convert robots today"},
		{name: "a failed result without a message", url: srv.URL + "/refusesilently", want: from + "failed: response.result.status was 'Failure', not 'Success'"},
		{name: "too many objects", url: srv.URL + "/count", want: from + "returned 2 objects, expected 1"},
		{name: "a changed name", url: srv.URL + "/name", want: from + "returned invalid object: must have the same name: r != other"},
		{name: "a wrong apiVersion", url: srv.URL + "/apiversion", want: from + "returned invalid object at index 0: invalid groupVersion (expected fleet.example.com/v1beta1, received fleet.example.com/v9)"},
		{name: "a wrong kind", url: srv.URL + "/kind", want: from + "returned invalid object at index 0: invalid kind (expected Robot, received Droid)"},
		{name: "an invalid label", url: srv.URL + "/badlabel", want: from + `returned invalid metadata: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters`},
		{name: "a label that is no string", url: srv.URL + "/numberlabel", want: from + "returned invalid metadata: metadata.labels[n] must be a string, but is int64 in converted object"},
		// kube compares the identity first, so no metadata is a changed name.
		{name: "no metadata", url: srv.URL + "/nometadata", want: from + "returned invalid object: must have the same name: r != "},
		{name: "a non-JSON answer", url: srv.URL + "/text", want: from + "failed: couldn't get version/kind; json parse error: invalid character 'o' looking for beginning of value"},
		{name: "an oversized answer", url: srv.URL + "/big", want: from + "failed: the webhook's response is larger than 2048 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			versions := tt.reviewVersions
			if versions == nil {
				versions = []string{"v1"}
			}
			s := scheme.New()
			opts := apiextensions.InstallOptions{Webhook: webhook.Options{Timeout: 200 * time.Millisecond, MaxResponseBytes: 2048}}
			if err := apiextensions.Install(s, webhookRobotsCRD(t, tt.url, ca, versions...), opts); err != nil {
				t.Fatal(err)
			}
			in := &scheme.Unstructured{Object: map[string]any{
				"apiVersion": "fleet.example.com/v1", "kind": "Robot",
				"metadata": map[string]any{"name": "r", "uid": "u-1", "generation": 3.0}, "spec": map[string]any{"model": "R2", "color": "red"},
			}}
			out, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "fleet.example.com", Version: "v1beta1"})
			if tt.want != "" {
				var st *scheme.Status
				if !errors.As(err, &st) || st.Code != 500 || st.Reason != "" || !strings.HasPrefix(st.Message, tt.want) {
					t.Fatalf("error %v (%#v), want a 500 without reason starting %q", err, st, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			u := out.(*scheme.Unstructured)
			colour, _ := scheme.NestedString(u.Object, "spec", "colour")
			md, _ := u.Object["metadata"].(map[string]any)
			if colour != "red" || u.GetAPIVersion() != "fleet.example.com/v1beta1" || md["generation"] != 3.0 || md["uid"] != "u-1" {
				t.Errorf("converted %v", u.Object)
			}
			if labels, _ := md["labels"].(map[string]any); tt.wantLabels != nil && (len(labels) != 1 || labels["converted"] != "yes") {
				t.Errorf("labels %v, want %v", labels, tt.wantLabels)
			}
			mu.Lock()
			defer mu.Unlock()
			wantReview := "apiextensions.k8s.io/v1"
			if tt.reviewVersions != nil {
				wantReview = "apiextensions.k8s.io/v1beta1"
			}
			if last.APIVersion != wantReview || last.Kind != "ConversionReview" || last.Request.UID == "" || last.Request.DesiredAPIVersion != "fleet.example.com/v1beta1" || len(last.Request.Objects) != 1 {
				t.Errorf("the webhook was sent %+v", last)
			}
		})
	}
}

func TestInstall_RefusesAConversionWebhookWithAnUnreadableCABundle(t *testing.T) {
	err := apiextensions.Install(scheme.New(), webhookRobotsCRD(t, "https://127.0.0.1:1/", []byte("not a PEM"), "v1"), apiextensions.InstallOptions{})
	if err == nil || !strings.Contains(err.Error(), "unable to load root certificates: unable to parse bytes as PEM block") {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkWebhookConverter_OneObject is the cost of one conversion through a local TLS
// webhook (a kept-alive connection): what a read in a non-storage version adds.
func BenchmarkWebhookConverter_OneObject(b *testing.B) {
	srv := httptest.NewTLSServer(lyingWebhook(b, nil, func(reviewSeen) {}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	data, err := os.ReadFile(testdataCRD)
	if err != nil {
		b.Fatal(err)
	}
	crds, err := apiextensions.Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	crd := crds[0]
	url := srv.URL + "/"
	crd.Spec.Conversion = &apiextensions.CustomResourceConversion{Strategy: apiextensions.WebhookConverter, Webhook: &apiextensions.WebhookConversion{
		ClientConfig: &apiextensions.WebhookClientConfig{URL: &url, CABundle: ca}, ConversionReviewVersions: []string{"v1"},
	}}
	s := scheme.New()
	if err := apiextensions.Install(s, crd, apiextensions.InstallOptions{}); err != nil {
		b.Fatal(err)
	}
	in := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "fleet.example.com/v1", "kind": "Robot",
		"metadata": map[string]any{"name": "r", "uid": "u-1"}, "spec": map[string]any{"model": "R2", "color": "red"},
	}}
	gv := scheme.GroupVersion{Group: "fleet.example.com", Version: "v1beta1"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := conversion.ToVersion(s, in, gv); err != nil {
			b.Fatal(err)
		}
	}
}
