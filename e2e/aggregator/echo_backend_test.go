package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The echo backend's API: one cluster-scoped resource whose only object, "whoami",
// reports the identity the aggregator's proxy presented.
const (
	echoGroup    = "echo.example.com"
	echoVersion  = "v1"
	echoResource = "echoes"
	echoWhoAmI   = "whoami"
)

// startEchoBackend starts a TLS server that, like an aggregated API server configured
// with kube's requestheader options, serves only clients whose certificate the
// front-proxy CA signed; it answers discovery of echo.example.com/v1 and GET of
// echoes/whoami with the proxy's certificate name and the X-Remote-* headers it sent.
func startEchoBackend(frontProxyCA *x509.CertPool) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /apis/"+echoGroup+"/"+echoVersion, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, &metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{APIVersion: "v1", Kind: "APIResourceList"},
			GroupVersion: echoGroup + "/" + echoVersion,
			APIResources: []metav1.APIResource{{Name: echoResource, SingularName: "echo", Kind: "Echo", Verbs: []string{"get"}}},
		})
	})
	mux.HandleFunc("GET /apis/"+echoGroup+"/"+echoVersion+"/"+echoResource+"/"+echoWhoAmI, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"apiVersion": echoGroup + "/" + echoVersion,
			"kind":       "Echo",
			"metadata":   map[string]any{"name": echoWhoAmI},
			"proxy":      r.TLS.PeerCertificates[0].Subject.CommonName,
			"user":       r.Header.Get("X-Remote-User"),
			"groups":     r.Header.Values("X-Remote-Group"),
		})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no "+strings.TrimPrefix(r.URL.Path, "/")+" here")
	})
	srv := httptest.NewUnstartedServer(mux)
	// The refused handshakes of TestEchoBackend_RefusesClientsWithoutTheFrontProxyCertificate
	// are expected, not worth a log line.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: frontProxyCA}
	srv.StartTLS()
	return srv
}
