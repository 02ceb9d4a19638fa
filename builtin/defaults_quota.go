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

// registerQuotaDefaults registers kube's defaults of a v1 LimitRange
// (SetDefaults_LimitRangeItem); the quantities of both kinds are rounded up to milli
// units by the ResourceList default that every kind shares.
func registerQuotaDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultLimitRangeItem)
}

// defaultLimitRangeItem is SetDefaults_LimitRangeItem: a Container item's default limit
// is its max where unset, its default request the default limit, else the min.
func defaultLimitRangeItem(item *corev1.LimitRangeItem) {
	if item.Type != corev1.LimitTypeContainer {
		return
	}
	if item.Default == nil {
		item.Default = corev1.ResourceList{}
	}
	if item.DefaultRequest == nil {
		item.DefaultRequest = corev1.ResourceList{}
	}
	for k, v := range item.Max {
		if _, ok := item.Default[k]; !ok {
			item.Default[k] = v
		}
	}
	for k, v := range item.Default {
		if _, ok := item.DefaultRequest[k]; !ok {
			item.DefaultRequest[k] = v
		}
	}
	for k, v := range item.Min {
		if _, ok := item.DefaultRequest[k]; !ok {
			item.DefaultRequest[k] = v
		}
	}
}
