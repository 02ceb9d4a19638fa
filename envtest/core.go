package envtest

import (
	"fmt"

	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/cel/policy"

	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/scheme"
)

// coreKinds returns the scheme, strategies and admission plugins of Kubernetes'
// built-in kinds (package builtin's), served beside the CRDs: kube-apiserver's default
// plugins, with CEL for the webhooks' matchConditions and ValidatingAdmissionPolicy.
func coreKinds() (*scheme.Scheme, map[scheme.GroupResource]registry.Strategy, admission.Plugins, error) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		return nil, nil, admission.Plugins{}, fmt.Errorf("envtest: %w", err)
	}
	plugins := admission.BuiltinWith(admission.Options{
		Webhooks:         admission.WebhookOptions{Conditions: cel.NewConditionCompiler()},
		ValidatingPolicy: policy.NewValidating(),
	})
	return s, strategies.Builtin(), plugins, nil
}
