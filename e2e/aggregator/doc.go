// Package aggregator checks apikit as an aggregated API server: the example widget server
// (examples/widgets/server) runs behind the real kube-aggregator (k8s.io/kube-aggregator,
// in-process over an embedded etcd) with an APIService for toys.example.com, and delegates
// authentication and authorization to a kube-apiserver stand-in that serves TokenReview,
// SubjectAccessReview and the kube-system/extension-apiserver-authentication ConfigMap.
//
// Everything lives in the package's tests; this file exists so that the package builds
// outside of `go test`. The aggregator and etcd are a heavy build (minutes, cold): run the
// package alone, `go test -count=1 ./aggregator/` in the e2e module.
//
// Set AGGREGATOR_LOG=1 to see the logs of the aggregator (klog), etcd and the widgets
// server.
package aggregator
