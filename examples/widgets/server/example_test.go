package server_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// The example server runs in-process; requests carry its bearer token, over TLS with the
// certificate the server made at start.
func Example() {
	srv, err := server.New(server.Config{
		Addr:    "127.0.0.1:0", // a free port
		Storage: server.StorageMemory,
		Logger:  slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	srv.Start()
	defer srv.Close()

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.CertificateAuthority())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, token := range []string{"", srv.Token()} {
		req, _ := http.NewRequest("GET", srv.TLSURL()+"/apis/toys.example.com/v1/namespaces/default/widgets", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
	}
	// Output:
	// 401 Unauthorized
	// 200 OK
}
