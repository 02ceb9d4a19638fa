package envtest

import (
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/rest/resttest"
	"github.com/apikit-dev/apikit/scheme"
)

// coreKinds returns the scheme and strategies of Kubernetes' built-in kinds that a
// controller test needs (Namespace, ConfigMap, Secret, ServiceAccount, Event, Lease,
// SelfSubjectReview), served beside the CRDs.
//
// TODO(issue 13): package github.com/apikit-dev/apikit/builtin is being written in
// parallel and is not on this branch yet. Once it is merged, this becomes:
//
//	s := scheme.New()
//	if err := builtin.AddToScheme(s); err != nil {
//		return nil, nil, fmt.Errorf("envtest: %w", err)
//	}
//	return s, builtin.Strategies(), nil
//
// Until then the server serves the CRDs alone, with namespaces implicit.
func coreKinds() (*scheme.Scheme, map[scheme.GroupResource]rest.Strategy, error) {
	return scheme.New(), nil, nil
}

// startControllers starts what kube-controller-manager would run beside the server
// (namespace lifecycle, garbage collection) and returns the function that stops them,
// which Stop calls before closing the server.
//
// TODO(issue 13): package github.com/apikit-dev/apikit/controllers is being written in
// parallel and is not on this branch yet. Once it is merged, this starts its namespace
// lifecycle and garbage collector on srv.Storage and returns their stop.
func startControllers(srv *resttest.Server) (stop func() error, err error) {
	_ = srv
	return func() error { return nil }, nil
}
