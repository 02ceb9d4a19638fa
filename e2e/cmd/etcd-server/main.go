// Command etcd-server runs a one-member etcd (go.etcd.io/etcd/server/v3's embed
// package, the version the e2e tests use) for the side-by-side benchmarks of
// bench/http.sh, where apikit's example server (-storage etcd) and the real
// apiextensions-apiserver (-etcd-endpoints) run over the same etcd. It prints
// "ready URL" once it serves and stops on SIGTERM or SIGINT.
//
//	go build -C e2e -o /tmp/etcd-server ./cmd/etcd-server
//	/tmp/etcd-server -data-dir /tmp/etcd -listen-client 127.0.0.1:2379 -listen-peer 127.0.0.1:2380
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	dir := flag.String("data-dir", "", "`directory` of the member's data (required)")
	client := flag.String("listen-client", "127.0.0.1:2379", "`host:port` of the client URL (plain http)")
	peer := flag.String("listen-peer", "127.0.0.1:2380", "`host:port` of the peer URL (plain http)")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*dir, *client, *peer); err != nil {
		fmt.Fprintln(os.Stderr, "etcd-server:", err)
		os.Exit(1)
	}
}

func run(dir, client, peer string) error {
	cfg := embed.NewConfig()
	cfg.Name = "bench"
	cfg.Dir = dir
	cfg.LogLevel = "error"
	cu := url.URL{Scheme: "http", Host: client}
	pu := url.URL{Scheme: "http", Host: peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	// kube-apiserver's object size limit (1.5 MiB) fits in one request.
	cfg.MaxRequestBytes = 3 << 19
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-e.Server.ReadyNotify():
		fmt.Println("ready", cu.String())
	case err := <-e.Err():
		return err
	case <-stop:
		return nil
	}
	select {
	case err := <-e.Err():
		return err
	case <-stop:
		return nil
	}
}
