package aggregator

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The paths an aggregated API server built on k8s.io/apiserver's delegating options calls
// on kube-apiserver, and that the stand-in serves.
const (
	authenticationConfigMapPath = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"
	tokenReviewPath             = "/apis/authentication.k8s.io/v1/tokenreviews"
	subjectAccessReviewPath     = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
)

// kubeAPIServerStandIn plays the part of kube-apiserver for an aggregated API server: it
// publishes the extension-apiserver-authentication ConfigMap (which CA signs the front
// proxy, which names it may have, which headers carry the user), answers TokenReviews
// from the cluster's token table and SubjectAccessReviews with a small RBAC-like policy.
// It serves only clients with its own bearer token, as kube-apiserver serves only the
// aggregated server's service account.
type kubeAPIServerStandIn struct {
	srv *httptest.Server
	// clientToken is what the aggregated server's kubeconfig carries.
	clientToken string
	configMap   *corev1.ConfigMap
	users       map[string]authenticationv1.UserInfo

	mu       sync.Mutex
	calls    map[string]int
	accesses []authorizationv1.SubjectAccessReviewSpec
}

// authenticationConfig is what kube-apiserver writes into the ConfigMap.
type authenticationConfig struct {
	ClientCAPEM, RequestHeaderCAPEM []byte
	AllowedNames                    []string
}

func startKubeAPIServerStandIn(authn authenticationConfig, users map[string]authenticationv1.UserInfo) *kubeAPIServerStandIn {
	jsonList := func(values ...string) string {
		b, _ := json.Marshal(values)
		return string(b)
	}
	k := &kubeAPIServerStandIn{
		clientToken: rand.Text(),
		users:       users,
		calls:       map[string]int{},
		configMap: &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "extension-apiserver-authentication"},
			// Lists are JSON arrays, as kube-apiserver's cluster authentication trust
			// controller writes them.
			Data: map[string]string{
				"client-ca-file":                     string(authn.ClientCAPEM),
				"requestheader-client-ca-file":       string(authn.RequestHeaderCAPEM),
				"requestheader-allowed-names":        jsonList(authn.AllowedNames...),
				"requestheader-username-headers":     jsonList("X-Remote-User"),
				"requestheader-uid-headers":          jsonList("X-Remote-Uid"),
				"requestheader-group-headers":        jsonList("X-Remote-Group"),
				"requestheader-extra-headers-prefix": jsonList("X-Remote-Extra-"),
			},
		},
	}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(k.serveHTTP))
	return k
}

// Close stops the server.
func (k *kubeAPIServerStandIn) Close() { k.srv.Close() }

// Calls returns how often path was served to an authorized client.
func (k *kubeAPIServerStandIn) Calls(path string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.calls[path]
}

// AccessReviewsOf returns the SubjectAccessReviews asked about user, in order.
func (k *kubeAPIServerStandIn) AccessReviewsOf(user string) []authorizationv1.SubjectAccessReviewSpec {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []authorizationv1.SubjectAccessReviewSpec
	for _, spec := range k.accesses {
		if spec.User == user {
			out = append(out, spec)
		}
	}
	return out
}

// WriteKubeconfig writes the kubeconfig an aggregated server is given as
// -authentication-kubeconfig and -authorization-kubeconfig: the stand-in's URL, its CA
// and the client token.
func (k *kubeAPIServerStandIn) WriteKubeconfig(path string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kube-apiserver"] = &clientcmdapi.Cluster{
		Server:                   k.srv.URL,
		CertificateAuthorityData: encodePEM("CERTIFICATE", k.srv.Certificate().Raw),
	}
	cfg.AuthInfos["widgets-apiserver"] = &clientcmdapi.AuthInfo{Token: k.clientToken}
	cfg.Contexts["default"] = &clientcmdapi.Context{Cluster: "kube-apiserver", AuthInfo: "widgets-apiserver"}
	cfg.CurrentContext = "default"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}

func (k *kubeAPIServerStandIn) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+k.clientToken {
		writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized")
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == authenticationConfigMapPath:
		k.count(r.URL.Path)
		writeJSON(w, http.StatusOK, k.configMap)
	case r.Method == http.MethodPost && r.URL.Path == tokenReviewPath:
		var review authenticationv1.TokenReview
		if !decodeReview(w, r, &review) {
			return
		}
		k.count(r.URL.Path)
		if u, ok := k.users[review.Spec.Token]; ok {
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: u, Audiences: review.Spec.Audiences}
		}
		writeJSON(w, http.StatusCreated, &review)
	case r.Method == http.MethodPost && r.URL.Path == subjectAccessReviewPath:
		var review authorizationv1.SubjectAccessReview
		if !decodeReview(w, r, &review) {
			return
		}
		k.count(r.URL.Path)
		k.mu.Lock()
		k.accesses = append(k.accesses, review.Spec)
		k.mu.Unlock()
		review.Status = clusterPolicy(review.Spec)
		writeJSON(w, http.StatusCreated, &review)
	default:
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
	}
}

func (k *kubeAPIServerStandIn) count(path string) {
	k.mu.Lock()
	k.calls[path]++
	k.mu.Unlock()
}

// clusterPolicy decides a SubjectAccessReview as the cluster's RBAC would for the test
// users: system:masters may do everything; every authenticated user may GET non-resource
// paths (kube's system:discovery and system:public-info-viewer); members of
// widgetViewersGroup may read; nothing else is allowed. A denial carries no reason, as
// RBAC's "no rule matched" carries none.
func clusterPolicy(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
	readVerbs := []string{"get", "list", "watch"}
	switch {
	case slices.Contains(spec.Groups, "system:masters"):
		return authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "member of system:masters"}
	case spec.NonResourceAttributes != nil && spec.NonResourceAttributes.Verb == "get":
		return authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "discovery"}
	case spec.ResourceAttributes != nil && slices.Contains(spec.Groups, widgetViewersGroup) &&
		slices.Contains(readVerbs, spec.ResourceAttributes.Verb):
		return authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "widget viewer"}
	}
	return authorizationv1.SubjectAccessReviewStatus{}
}

func decodeReview(w http.ResponseWriter, r *http.Request, into any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(into); err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf("decoding the review: %v", err))
		return false
	}
	return true
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	writeJSON(w, code, &metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Reason: reason, Message: message, Code: int32(code),
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
