package builtin

import (
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerReplicationControllerDefaults registers kube-apiserver v1.37.2's defaults of a
// v1 ReplicationController (pkg/apis/core/v1 SetDefaults_ReplicationController and the
// declarative replicas default); the template's own defaults are the PodTemplateSpec's,
// which conversion.Default runs after these.
func registerReplicationControllerDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultReplicationController)
}

// defaultReplicationController is SetDefaults_ReplicationController: a template with
// labels gives an empty selector and empty object labels its labels; one replica.
func defaultReplicationController(rc *corev1.ReplicationController) {
	if rc.Spec.Template != nil && rc.Spec.Template.Labels != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = rc.Spec.Template.Labels
		}
		if len(rc.Labels) == 0 {
			rc.Labels = rc.Spec.Template.Labels
		}
	}
	if rc.Spec.Replicas == nil {
		rc.Spec.Replicas = int32Ptr(1)
	}
}
