package authn_test

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// A server that accepts client certificates of its client CA (kube-apiserver's
// --client-ca-file) and the bearer tokens of a token file (--token-auth-file). The
// server's tls.Config would ask for client certificates with ClientAuth:
// tls.RequestClientCert; here requests are made in-process.
func Example() {
	tokens, err := authn.ParseTokenFile(strings.NewReader("31ada4fd-adec-460c-809a-9e56ceb75269,alice,1000,\"dev,ops\"\n"))
	if err != nil {
		log.Fatal(err)
	}
	clientCAs := x509.NewCertPool() // a server adds its CA file with AppendCertsFromPEM

	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		log.Fatal(err)
	}
	h, err := rest.New(rest.Options{
		Scheme: s, Storage: memory.New(memory.Options{}), Strategies: strategies.Builtin(),
		Authenticator: authn.Union(
			authn.X509{ClientCA: func() *x509.CertPool { return clientCAs }},
			tokens,
		),
		Authorizer: authz.AlwaysAllow{},
	})
	if err != nil {
		log.Fatal(err)
	}

	// kubectl auth whoami, with the good token and then a bad one.
	for _, token := range []string{"31ada4fd-adec-460c-809a-9e56ceb75269", "guessed"} {
		r := httptest.NewRequest(http.MethodPost, "https://localhost/apis/authentication.k8s.io/v1/selfsubjectreviews",
			strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusCreated {
			fmt.Println(w.Code, http.StatusText(w.Code))
			continue
		}
		var review authenticationv1.SelfSubjectReview
		if err := json.Unmarshal(w.Body.Bytes(), &review); err != nil {
			log.Fatal(err)
		}
		fmt.Println(review.Status.UserInfo.Username, review.Status.UserInfo.Groups)
	}
	// Output:
	// alice [dev ops system:authenticated]
	// 401 Unauthorized
}
