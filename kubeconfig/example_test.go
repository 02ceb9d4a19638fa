package kubeconfig_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/apikit-dev/apikit/kubeconfig"
)

// A local server writes a kubeconfig that trusts its self-signed certificate; Load reads
// one back as a Client that reaches the cluster with the user's credentials.
func ExampleLoad() {
	cert, caPEM, err := kubeconfig.SelfSignedCertificate("example", time.Hour, "127.0.0.1")
	if err != nil {
		log.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.URL.Path, r.Header.Get("Authorization"))
	})}
	go srv.Serve(ln)
	defer srv.Close()

	dir, err := os.MkdirTemp("", "kubeconfig-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kubeconfig")
	server := "https://" + ln.Addr().String()
	if err := os.WriteFile(path, kubeconfig.New("local", server, "s3cr3t", caPEM), 0o600); err != nil {
		log.Fatal(err)
	}

	c, err := kubeconfig.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Server == server, c.Namespace)
	resp, err := c.HTTP.Get(c.Server + "/version")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(string(body))
	// Output:
	// true default
	// /version Bearer s3cr3t
}

// The kubeconfig itself: one cluster, user and context of the same name.
func ExampleNew() {
	fmt.Print(string(kubeconfig.New("local", "https://127.0.0.1:6443", "s3cr3t", nil)))
	// Output:
	// apiVersion: v1
	// kind: Config
	// preferences: {}
	// clusters:
	// - name: local
	//   cluster:
	//     server: "https://127.0.0.1:6443"
	// users:
	// - name: local
	//   user:
	//     token: "s3cr3t"
	// contexts:
	// - name: local
	//   context:
	//     cluster: local
	//     user: local
	//     namespace: default
	// current-context: local
}
