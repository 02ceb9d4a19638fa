package aggregator

import (
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The stand-in is checked with client-go's typed clients, which kube's own delegating
// authenticator and authorizer (the TokenReview and SubjectAccessReview webhooks of
// k8s.io/apiserver) are built on: what they accept, an aggregated server built on
// k8s.io/apiserver would accept.
func standInClient(t *testing.T, withCredentials bool) kubernetes.Interface {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := env.kube.WriteKubeconfig(path); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	// kube's webhooks send their reviews as JSON (k8s.io/apiserver/pkg/util/webhook), and
	// the stand-in reads only JSON.
	cfg.ContentType = "application/json"
	if !withCredentials {
		cfg.BearerToken = ""
	}
	return kubernetes.NewForConfigOrDie(cfg)
}

func TestKubeAPIServerStandIn_PublishesTheFrontProxyConfiguration(t *testing.T) {
	cm, err := standInClient(t, true).CoreV1().ConfigMaps("kube-system").Get(testContext(t), "extension-apiserver-authentication", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"client-ca-file":                 string(env.clusterCA.PEM),
		"requestheader-client-ca-file":   string(env.frontProxyCA.PEM),
		"requestheader-allowed-names":    `["front-proxy-client"]`,
		"requestheader-username-headers": `["X-Remote-User"]`,
		"requestheader-group-headers":    `["X-Remote-Group"]`,
	}
	for key, value := range want {
		if cm.Data[key] != value {
			t.Errorf("data[%s] = %q, want %q", key, cm.Data[key], value)
		}
	}
}

func TestKubeAPIServerStandIn_ReviewsTokens(t *testing.T) {
	tests := []struct {
		name      string
		token     string
		wantUser  string
		wantAuthn bool
	}{
		{name: "bob's token", token: env.tokens[bobUser], wantUser: bobUser, wantAuthn: true},
		{name: "unknown token", token: "not-a-known-token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			review, err := standInClient(t, true).AuthenticationV1().TokenReviews().Create(testContext(t),
				&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: tt.token}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if review.Status.Authenticated != tt.wantAuthn || review.Status.User.Username != tt.wantUser {
				t.Errorf("status = %+v, want authenticated=%v user %q", review.Status, tt.wantAuthn, tt.wantUser)
			}
		})
	}
}

func TestKubeAPIServerStandIn_ReviewsAccessWithTheClusterPolicy(t *testing.T) {
	widgets := func(verb string) *authorizationv1.ResourceAttributes {
		return &authorizationv1.ResourceAttributes{Namespace: "default", Verb: verb, Group: "toys.example.com", Version: "v1", Resource: "widgets"}
	}
	tests := []struct {
		name        string
		spec        authorizationv1.SubjectAccessReviewSpec
		wantAllowed bool
	}{
		{name: "a viewer lists", spec: authorizationv1.SubjectAccessReviewSpec{User: bobUser, Groups: []string{widgetViewersGroup}, ResourceAttributes: widgets("list")}, wantAllowed: true},
		{name: "a viewer creates", spec: authorizationv1.SubjectAccessReviewSpec{User: bobUser, Groups: []string{widgetViewersGroup}, ResourceAttributes: widgets("create")}},
		{name: "system:masters deletes", spec: authorizationv1.SubjectAccessReviewSpec{User: adminUser, Groups: []string{"system:masters"}, ResourceAttributes: widgets("delete")}, wantAllowed: true},
		{name: "anyone reads discovery", spec: authorizationv1.SubjectAccessReviewSpec{User: "carol", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/apis", Verb: "get"}}, wantAllowed: true},
		{name: "a stranger lists", spec: authorizationv1.SubjectAccessReviewSpec{User: "carol", ResourceAttributes: widgets("list")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			review, err := standInClient(t, true).AuthorizationV1().SubjectAccessReviews().Create(testContext(t),
				&authorizationv1.SubjectAccessReview{Spec: tt.spec}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if review.Status.Allowed != tt.wantAllowed {
				t.Errorf("allowed = %v, want %v (status %+v)", review.Status.Allowed, tt.wantAllowed, review.Status)
			}
		})
	}
}

func TestKubeAPIServerStandIn_RefusesClientsWithoutItsToken(t *testing.T) {
	_, err := standInClient(t, false).CoreV1().ConfigMaps("kube-system").Get(testContext(t), "extension-apiserver-authentication", metav1.GetOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("err = %v, want 401 Unauthorized", err)
	}
}
