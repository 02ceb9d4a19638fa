package admission

import (
	"context"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/scheme"
)

// DefaultTolerationSeconds is kube-apiserver v1.37.2's DefaultTolerationSeconds
// admission plugin (plugin/pkg/admission/defaulttolerationseconds): a pod created or
// updated without a toleration of the not-ready and unreachable NoExecute taints gets
// one for 300 seconds. The Pod strategy adds them too; the plugin adds them where kube
// does, before the mutating admission webhooks, which then see them.
type DefaultTolerationSeconds struct{}

var _ registry.MutatingAdmission = DefaultTolerationSeconds{}

// Admit adds the default tolerations to a pod.
func (DefaultTolerationSeconds) Admit(_ context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.APIGroup != "" || a.Resource != "pods" || a.Subresource != "" ||
		(a.Operation != registry.OperationCreate && a.Operation != registry.OperationUpdate) {
		return nil
	}
	if pod, ok := obj.(*corev1.Pod); ok {
		strategies.AddDefaultTolerations(&pod.Spec)
	}
	return nil
}
