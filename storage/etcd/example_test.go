package etcd_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"log"
	"os"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/etcd"
)

// A replica connects to the cluster with a client certificate, stores objects under
// kube's default prefix and runs a compactor that coordinates with the other replicas.
// (It needs a running etcd, so it has no Output.)
func Example() {
	s := scheme.New() // register the served kinds here
	cert, err := tls.LoadX509KeyPair("etcd-client.crt", "etcd-client.key")
	if err != nil {
		log.Fatal(err)
	}
	ca, err := os.ReadFile("etcd-ca.crt")
	if err != nil {
		log.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	store, err := etcd.New(context.Background(), etcd.Options{
		Endpoints:          []string{"https://10.0.0.1:2379", "https://10.0.0.2:2379", "https://10.0.0.3:2379"},
		TLS:                &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: roots, MinVersion: tls.VersionTLS12},
		Codec:              etcd.NewCodec(s),
		CompactionInterval: etcd.DefaultCompactionInterval,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := store.Check(ctx); err != nil { // what /readyz/etcd reports
		log.Print(err)
	}
}
