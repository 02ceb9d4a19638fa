package aggregator

import (
	"context"
	"crypto/tls"
	"net/http"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// clientTimeout bounds every client-go request of the tests.
const clientTimeout = 30 * time.Second

// aggregatorConfigFor is a client-go configuration that reaches only the aggregator, as
// the named test user (or with token as it is, when the user is unknown).
func aggregatorConfigFor(userName string) *rest.Config {
	token, ok := env.tokens[userName]
	if !ok {
		token = userName
	}
	return &rest.Config{
		Host:            env.aggregator.URL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: env.aggregator.CAPEM},
		QPS:             -1,
		Timeout:         clientTimeout,
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestProxy_BackendSeesFrontProxyCertificateAndCallerIdentity(t *testing.T) {
	echoes := schema.GroupVersionResource{Group: echoGroup, Version: echoVersion, Resource: echoResource}
	tests := []struct {
		user       string
		wantGroups []string
	}{
		{user: adminUser, wantGroups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}},
		{user: bobUser, wantGroups: []string{widgetViewersGroup, user.AllAuthenticated}},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			client, err := dynamic.NewForConfig(aggregatorConfigFor(tt.user))
			if err != nil {
				t.Fatal(err)
			}
			got, err := client.Resource(echoes).Get(testContext(t), echoWhoAmI, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("GET echoes/whoami through the aggregator: %v", err)
			}
			if proxy := got.Object["proxy"]; proxy != frontProxyClientName {
				t.Errorf("the backend's client certificate is %q, want the aggregator's %q", proxy, frontProxyClientName)
			}
			if u := got.Object["user"]; u != tt.user {
				t.Errorf("X-Remote-User = %q, want %q", u, tt.user)
			}
			var groups []string
			for _, g := range got.Object["groups"].([]any) {
				groups = append(groups, g.(string))
			}
			if !slices.Equal(groups, tt.wantGroups) {
				t.Errorf("X-Remote-Group = %q, want %q", groups, tt.wantGroups)
			}
		})
	}
}

func TestProxy_DiscoveryListsTheAggregatedResource(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(aggregatorConfigFor(adminUser))
	if err != nil {
		t.Fatal(err)
	}
	list, err := dc.ServerResourcesForGroupVersion(echoGroup + "/" + echoVersion)
	if err != nil {
		t.Fatalf("discovery of %s/%s through the aggregator: %v", echoGroup, echoVersion, err)
	}
	if len(list.APIResources) != 1 || list.APIResources[0].Name != echoResource {
		t.Errorf("resources = %+v, want only %s", list.APIResources, echoResource)
	}
}

func TestProxy_UnknownTokenIs401AtTheAggregator(t *testing.T) {
	client, err := dynamic.NewForConfig(aggregatorConfigFor("not-a-known-token"))
	if err != nil {
		t.Fatal(err)
	}
	echoes := schema.GroupVersionResource{Group: echoGroup, Version: echoVersion, Resource: echoResource}
	_, err = client.Resource(echoes).Get(testContext(t), echoWhoAmI, metav1.GetOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("GET with an unknown token: err = %v, want 401 Unauthorized", err)
	}
}

func TestEchoBackend_RefusesClientsWithoutTheFrontProxyCertificate(t *testing.T) {
	tests := []struct {
		name  string
		certs []tls.Certificate
	}{
		{name: "no client certificate"},
		{name: "client certificate of the cluster CA", certs: []tls.Certificate{mustClientCert(t, env.clusterCA, frontProxyClientName)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
				RootCAs: env.echo.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs, Certificates: tt.certs,
			}}}
			req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, env.echo.URL+"/apis/"+echoGroup+"/"+echoVersion, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Remote-User", adminUser)
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("a request without the front-proxy certificate got %s, want a failed TLS handshake", resp.Status)
			}
		})
	}
}

func mustClientCert(t *testing.T, ca *certificateAuthority, commonName string, groups ...string) tls.Certificate {
	t.Helper()
	c, err := ca.ClientCert(commonName, groups...)
	if err != nil {
		t.Fatal(err)
	}
	return c.TLS
}
