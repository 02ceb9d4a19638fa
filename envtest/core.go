package envtest

import (
	"fmt"

	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// coreKinds returns the scheme and strategies of Kubernetes' built-in kinds that a
// controller test needs (Namespace, ConfigMap, Secret, ServiceAccount, Event, Lease,
// SelfSubjectReview), served beside the CRDs.
func coreKinds() (*scheme.Scheme, map[scheme.GroupResource]rest.Strategy, error) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		return nil, nil, fmt.Errorf("envtest: %w", err)
	}
	return s, strategies.Builtin(), nil
}
