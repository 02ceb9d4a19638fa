package aggregator

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

var widgetsResource = schema.GroupVersionResource{Group: toysGroup, Version: toysVersion, Resource: "widgets"}

func newWidget(namespace, name, color string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": toysGroup + "/" + toysVersion,
		"kind":       "Widget",
		"metadata":   map[string]any{"namespace": namespace, "name": name},
		"spec":       map[string]any{"color": color},
	}}
}

func widgetsClientFor(t *testing.T, userName string) dynamic.NamespaceableResourceInterface {
	t.Helper()
	client, err := dynamic.NewForConfig(aggregatorConfigFor(userName))
	if err != nil {
		t.Fatal(err)
	}
	return client.Resource(widgetsResource)
}

func TestWidgets_ClientGoCRUDAndWatchThroughTheAggregator(t *testing.T) {
	const ns = "clientgo-crud"
	ctx := testContext(t)
	widgets := widgetsClientFor(t, adminUser).Namespace(ns)
	w, err := widgets.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch through the aggregator: %v", err)
	}
	defer w.Stop()

	created, err := widgets.Create(ctx, newWidget(ns, "w1", "red"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	got, err := widgets.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if color, _, _ := unstructured.NestedString(got.Object, "spec", "color"); color != "red" || got.GetUID() != created.GetUID() {
		t.Errorf("get = color %q uid %s, want red and the created uid %s", color, got.GetUID(), created.GetUID())
	}
	if replicas, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); replicas != 1 {
		t.Errorf("spec.replicas = %d, want the server's default 1", replicas)
	}
	list, err := widgets.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].GetName() != "w1" {
		t.Errorf("list has %d items, want only w1", len(list.Items))
	}
	if _, err := widgets.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch: %v", err)
	}
	if err := widgets.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := widgets.Get(ctx, "w1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: err = %v, want NotFound", err)
	}

	want := []string{"ADDED w1 red", "MODIFIED w1 blue", "DELETED w1 blue"}
	var events []string
	for len(events) < len(want) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended after %q, want %q", events, want)
			}
			if ev.Type == watch.Error {
				t.Fatalf("watch error event: %v", apierrors.FromObject(ev.Object))
			}
			obj := ev.Object.(*unstructured.Unstructured)
			color, _, _ := unstructured.NestedString(obj.Object, "spec", "color")
			events = append(events, fmt.Sprintf("%s %s %s", ev.Type, obj.GetName(), color))
		case <-ctx.Done():
			t.Fatalf("watch events %q, want %q: %v", events, want, ctx.Err())
		}
	}
	if !slices.Equal(events, want) {
		t.Errorf("watch events = %q, want %q", events, want)
	}
}

// TestWidgets_SubjectAccessReviewDenialIsKubes403ThroughTheAggregator: the aggregator
// lets bob through to the widgets server, whose authorization asks the kube-apiserver
// stand-in; the policy lets bob read, not write, and the denial reaches the client as
// kube-apiserver words it (k8s.io/apiserver's responsewriters.Forbidden: no reason
// appended, since RBAC's "no rule matched" has none).
func TestWidgets_SubjectAccessReviewDenialIsKubes403ThroughTheAggregator(t *testing.T) {
	const ns = "sar-denial"
	ctx := testContext(t)
	bobWidgets := widgetsClientFor(t, bobUser).Namespace(ns)

	_, err := bobWidgets.Create(ctx, newWidget(ns, "nope", "red"), metav1.CreateOptions{})
	var status apierrors.APIStatus
	if !apierrors.IsForbidden(err) || !errors.As(err, &status) {
		t.Fatalf("bob's create: err = %v, want 403 Forbidden", err)
	}
	want := metav1.Status{
		Status:  metav1.StatusFailure,
		Reason:  metav1.StatusReasonForbidden,
		Code:    http.StatusForbidden,
		Message: `widgets.toys.example.com is forbidden: User "bob" cannot create resource "widgets" in API group "toys.example.com" in the namespace "sar-denial"`,
		Details: &metav1.StatusDetails{Group: toysGroup, Kind: "widgets"},
	}
	got := status.Status()
	got.TypeMeta, got.ListMeta = metav1.TypeMeta{}, metav1.ListMeta{}
	if got.Message != want.Message || got.Reason != want.Reason || got.Code != want.Code || got.Details == nil ||
		got.Details.Group != want.Details.Group || got.Details.Kind != want.Details.Kind || got.Details.Name != "" {
		t.Errorf("Status = %+v (details %+v)\nwant %+v (details %+v)", got, got.Details, want, want.Details)
	}
	if _, err := bobWidgets.List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("bob's list (allowed by the stand-in's policy): %v", err)
	}

	// The stand-in decided both, asked with kube's attributes.
	var asked []string
	for _, spec := range env.kube.AccessReviewsOf(bobUser) {
		if ra := spec.ResourceAttributes; ra != nil && ra.Namespace == ns {
			asked = append(asked, accessString(ra))
		}
	}
	for _, wantAsked := range []string{"create toys.example.com/v1 widgets in sar-denial", "list toys.example.com/v1 widgets in sar-denial"} {
		if !slices.Contains(asked, wantAsked) {
			t.Errorf("SubjectAccessReviews about bob in %s = %q, want one for %q", ns, asked, wantAsked)
		}
	}
}

func accessString(ra *authorizationv1.ResourceAttributes) string {
	return fmt.Sprintf("%s %s/%s %s in %s", ra.Verb, ra.Group, ra.Version, ra.Resource, ra.Namespace)
}

// TestWidgets_DirectRequestsAuthenticateOnlyAsKubeDoes sends requests to the widgets
// server itself, not through the aggregator: X-Remote-User is believed only from the
// aggregator's proxy certificate; a client certificate of the cluster CA (from the
// stand-in's ConfigMap) is its own user, headers or not; a bearer token is what the
// stand-in's TokenReview says; and what the user may do is what its SubjectAccessReview
// says.
func TestWidgets_DirectRequestsAuthenticateOnlyAsKubeDoes(t *testing.T) {
	const ns = "direct"
	carol := mustClientCert(t, env.clusterCA, "carol", widgetViewersGroup)
	notAllowedProxy := mustClientCert(t, env.frontProxyCA, "not-the-front-proxy")
	tests := []struct {
		name       string
		cert       *tls.Certificate
		token      string
		forgedUser string
		create     bool
		wantCode   int
		wantUser   string // in the 403 message
	}{
		{name: "forged X-Remote-User without a client certificate", forgedUser: adminUser, create: true, wantCode: http.StatusUnauthorized},
		{name: "forged X-Remote-User from a front-proxy certificate whose name is not allowed", cert: &notAllowedProxy, forgedUser: adminUser, create: true, wantCode: http.StatusUnauthorized},
		{name: "forged X-Remote-User from a cluster client certificate is the certificate's user", cert: &carol, forgedUser: adminUser, create: true, wantCode: http.StatusForbidden, wantUser: "carol"},
		{name: "cluster client certificate (client CA from the ConfigMap) reads", cert: &carol, wantCode: http.StatusOK},
		{name: "bob's token, reviewed by TokenReview, reads", token: env.tokens[bobUser], wantCode: http.StatusOK},
		{name: "bob's token, reviewed by TokenReview, may not create", token: env.tokens[bobUser], create: true, wantCode: http.StatusForbidden, wantUser: bobUser},
		{name: "a token the stand-in does not know", token: "not-a-known-token", wantCode: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tlsConfig := &tls.Config{RootCAs: env.servingCA.Pool()}
			if tt.cert != nil {
				tlsConfig.Certificates = []tls.Certificate{*tt.cert}
			}
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
			defer client.CloseIdleConnections()
			method, body := http.MethodGet, []byte(nil)
			if tt.create {
				method = http.MethodPost
				if body, _ = json.Marshal(newWidget(ns, "direct", "red").Object); body == nil {
					t.Fatal("encoding the widget")
				}
			}
			req, err := http.NewRequestWithContext(testContext(t), method, env.widgets.TLSURL()+"/apis/toys.example.com/v1/namespaces/"+ns+"/widgets", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tt.forgedUser != "" {
				req.Header.Set("X-Remote-User", tt.forgedUser)
				req.Header.Set("X-Remote-Group", "system:masters")
			}
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			respBody, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("%s: %d %s, want %d", method, resp.StatusCode, respBody, tt.wantCode)
			}
			if tt.wantUser != "" && !strings.Contains(string(respBody), fmt.Sprintf(`User \"%s\" cannot create resource`, tt.wantUser)) {
				t.Errorf("403 body %s does not name user %q", respBody, tt.wantUser)
			}
		})
	}
	if env.kube.Calls(tokenReviewPath) == 0 {
		t.Error("the stand-in answered no TokenReview")
	}
	if env.kube.Calls(authenticationConfigMapPath) == 0 {
		t.Error("the widgets server never read the extension-apiserver-authentication ConfigMap")
	}
}
