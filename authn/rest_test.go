package authn_test

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// TestRESTHandler_UnionOfCertificatesAndTokensDecidesWhoAsks wires a union of
// client certificates and a token file into rest.New over TLS, anonymous access on, and
// asks the server who the caller is with a SelfSubjectReview (kubectl auth whoami).
func TestRESTHandler_UnionOfCertificatesAndTokensDecidesWhoAsks(t *testing.T) {
	ca := newCA(t, "client-ca")
	tokens, err := authn.ParseTokenFile(strings.NewReader("secret1,tina,uid-t,\"dev,ops\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	h, err := rest.New(rest.Options{
		Scheme: s, Storage: memory.New(memory.Options{}), Strategies: strategies.Builtin(),
		Authenticator:  authn.Union(authn.X509{ClientCA: ca.pool()}, tokens),
		AllowAnonymous: true, Authorizer: authz.AlwaysAllow{},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := newTLSServer(t, h)
	tests := []struct {
		name       string
		cert       *tls.Certificate
		token      string
		wantCode   int
		wantUser   string
		wantGroups []string
	}{
		{name: "a client certificate", cert: ca.issue(t, leaf{cn: "carl", orgs: []string{"admins"}}),
			wantCode: http.StatusCreated, wantUser: "carl", wantGroups: []string{"admins", "system:authenticated"}},
		{name: "a token of the file", token: "secret1",
			wantCode: http.StatusCreated, wantUser: "tina", wantGroups: []string{"dev", "ops", "system:authenticated"}},
		{name: "no credentials are anonymous", wantCode: http.StatusCreated,
			wantUser: "system:anonymous", wantGroups: []string{"system:unauthenticated"}},
		{name: "a bad token is 401 even with anonymous access", token: "wrong", wantCode: http.StatusUnauthorized},
		{name: "an expired certificate is 401", cert: ca.issue(t, leaf{cn: "carl", expired: true}), wantCode: http.StatusUnauthorized},
		{name: "a certificate of another CA is 401", cert: newCA(t, "rogue").issue(t, leaf{cn: "carl"}), wantCode: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := clientWith(srv, tt.cert)
			defer client.CloseIdleConnections()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/apis/authentication.k8s.io/v1/selfsubjectreviews",
				strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
			req.Header.Set("Content-Type", "application/json")
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantCode, body)
			}
			if tt.wantCode == http.StatusUnauthorized {
				var status struct {
					Kind   string `json:"kind"`
					Code   int    `json:"code"`
					Reason string `json:"reason"`
				}
				if err := json.Unmarshal(body, &status); err != nil || status.Kind != "Status" || status.Code != 401 || status.Reason != "Unauthorized" {
					t.Errorf("body %s (%v), want a 401 Unauthorized Status", body, err)
				}
				return
			}
			var review authenticationv1.SelfSubjectReview
			if err := json.Unmarshal(body, &review); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			if got := review.Status.UserInfo; got.Username != tt.wantUser || !slices.Equal(got.Groups, tt.wantGroups) {
				t.Errorf("user %q groups %q, want %q %q", got.Username, got.Groups, tt.wantUser, tt.wantGroups)
			}
		})
	}
}
