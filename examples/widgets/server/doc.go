// Package server assembles the example widget API server: the toys.example.com scheme of
// package api, strategies that validate Widgets and Warehouses, a storage backend (the
// durable storage/bolt by default, storage/memory, or storage/etcd, over which several
// servers are replicas of one API, with /readyz/etcd reporting the cluster's health),
// authentication and authorization
// from kube-apiserver's flags (package serving: the server's bearer token, client
// certificates, the front proxy, a token file, delegation to a kube-apiserver; RBAC over
// the rbac.authorization.k8s.io/v1 objects it serves and stores) and the handler of
// package apiextensions/server: the rest handler with discovery for the Go kinds, the
// customresourcedefinitions resource, and the resources of the CRDs in storage
// (Config.CRDs are applied at start; CEL rules need Config.Rules, which the command sets
// to cel.New() of github.com/apikit-dev/apikit/cel). One port answers HTTPS and plain HTTP (chosen per
// connection by its first byte): bearer tokens and client certificates count only over
// TLS, so the kubeconfig New writes points at TLSURL and embeds the certificate made at
// start, while plain HTTP serves health checks and anonymous probes.
//
// Health: /readyz, /livez and /healthz answer as kube-apiserver's do. With bolt storage
// both /readyz and /livez run the check "bolt" (bolt.Store.Check): once a write to disk
// or its fsync has failed, for example on a full disk, the store takes no more writes
// until the process restarts, even after space is freed (storage/bolt says why), and
// answers them with 503 ServiceUnavailable; meanwhile reads are served, /readyz fails
// with "[-]bolt failed: reason withheld" so that a load balancer sends requests
// elsewhere, and /livez fails alike so that the supervisor (a kubelet's liveness probe,
// or whatever probes the process) restarts the server, which then has every
// acknowledged write. With etcd, /readyz/etcd fails while the cluster cannot be reached and /livez
// stays ok: a restart would not bring etcd back, and the server serves again without one.
//
// The command in the parent directory (go run ./examples/widgets) is a thin wrapper
// around New; tests and the e2e module start the same server in-process:
//
//	srv, err := server.New(server.Config{Addr: "127.0.0.1:0", Storage: server.StorageMemory})
//	if err != nil { ... }
//	srv.Start()
//	defer srv.Close()
//	// srv.URL(), srv.TLSURL(), srv.Token(), srv.Kubeconfig()
package server
