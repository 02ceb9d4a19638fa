package serving_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/apikit-dev/apikit/kubeconfig"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/serving"
	"github.com/apikit-dev/apikit/storage/memory"
)

// A server configured by kube-apiserver's flags: a static token file authenticates, the
// token of a system:masters user is allowed everything, another user nothing (a real
// server adds RBAC as Host.Authorizer, or -authorization-kubeconfig), and health checks
// need no credentials.
func Example() {
	dir, err := os.MkdirTemp("", "serving-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("admin-token,admin,1,system:masters\nviewer-token,viewer,2\n"), 0o600); err != nil {
		log.Fatal(err)
	}

	opts := serving.NewOptions()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	opts.AddFlags(fs)
	if err := fs.Parse([]string{"-token-auth-file", tokens}); err != nil {
		log.Fatal(err)
	}
	// Without -tls-cert-file, a certificate made at start.
	cert, caPEM, err := kubeconfig.SelfSignedCertificate("example", time.Hour, "127.0.0.1")
	if err != nil {
		log.Fatal(err)
	}
	opts.DefaultCertificate = &cert

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sec, err := opts.Build(ctx, serving.Host{})
	if err != nil {
		log.Fatal(err)
	}
	sch := scheme.New()
	disc, err := discovery.New(sch, discovery.Options{})
	if err != nil {
		log.Fatal(err)
	}
	store := memory.New(memory.Options{})
	defer store.Close()
	h, err := rest.New(sec.ApplyTo(rest.Options{Scheme: sch, Storage: store, Discovery: disc}))
	if err != nil {
		log.Fatal(err)
	}
	srv := sec.HTTPServer(h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go srv.ServeTLS(ln, "", "") // the certificate comes from sec.TLS
	defer srv.Close()

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	for _, try := range []struct{ path, token string }{
		{"/readyz", ""},
		{"/apis", ""},
		{"/apis", "viewer-token"},
		{"/apis", "admin-token"},
	} {
		req, _ := http.NewRequest("GET", "https://"+ln.Addr().String()+try.path, nil)
		if try.token != "" {
			req.Header.Set("Authorization", "Bearer "+try.token)
		}
		resp, err := client.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(try.path, try.token, resp.Status)
	}
	// Output:
	// /readyz  200 OK
	// /apis  401 Unauthorized
	// /apis viewer-token 403 Forbidden
	// /apis admin-token 200 OK
}
