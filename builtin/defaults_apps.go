package builtin

import (
	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerAppsDefaults registers kube-apiserver v1.37.2's defaults of the apps/v1 kinds
// (k8s.io/kubernetes pkg/apis/apps/v1/defaults.go) and those of the PersistentVolumeClaims
// a StatefulSet's volumeClaimTemplates hold. The pod template's own defaults are the
// PodTemplateSpec's, which conversion.Default runs after these (outer before inner), as
// kube's generated SetObjectDefaults_* run the kind's defaulter first.
func registerAppsDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultDeployment)
	conversion.RegisterDefaults(s, defaultDaemonSet)
	conversion.RegisterDefaults(s, defaultStatefulSet)
	conversion.RegisterDefaults(s, defaultReplicaSet)
}

func int32Ptr(v int32) *int32 { return &v }

func intOrStringPtr(v scheme.IntOrString) *scheme.IntOrString { return &v }

// defaultDeployment is SetDefaults_Deployment: one replica, a RollingUpdate strategy
// with 25% unavailable and 25% surge, ten old ReplicaSets kept, and a progress deadline
// of 600 seconds.
func defaultDeployment(d *appsv1.Deployment) {
	if d.Spec.Replicas == nil {
		d.Spec.Replicas = int32Ptr(1)
	}
	st := &d.Spec.Strategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if st.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = intOrStringPtr(scheme.FromString("25%"))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = intOrStringPtr(scheme.FromString("25%"))
		}
	}
	if d.Spec.RevisionHistoryLimit == nil {
		d.Spec.RevisionHistoryLimit = int32Ptr(10)
	}
	if d.Spec.ProgressDeadlineSeconds == nil {
		d.Spec.ProgressDeadlineSeconds = int32Ptr(600)
	}
}

// defaultDaemonSet is SetDefaults_DaemonSet: a RollingUpdate strategy with one
// unavailable and no surge, and ten old revisions kept.
func defaultDaemonSet(ds *appsv1.DaemonSet) {
	st := &ds.Spec.UpdateStrategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if st.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = intOrStringPtr(scheme.FromInt32(1))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = intOrStringPtr(scheme.FromInt32(0))
		}
	}
	if ds.Spec.RevisionHistoryLimit == nil {
		ds.Spec.RevisionHistoryLimit = int32Ptr(10)
	}
	// kube's internal DaemonSet holds spec.templateGeneration, which its v1 form always
	// carries as this annotation ("0" until the strategy sets it): the field manager sees
	// it on every write, so the writer owns it in managedFields.
	if _, ok := ds.Annotations[daemonSetTemplateGeneration]; !ok {
		if ds.Annotations == nil {
			ds.Annotations = map[string]string{}
		}
		ds.Annotations[daemonSetTemplateGeneration] = "0"
	}
}

// daemonSetTemplateGeneration is the annotation of a DaemonSet's templateGeneration.
const daemonSetTemplateGeneration = "deprecated.daemonset.template.generation"

// defaultStatefulSet is SetDefaults_StatefulSet with v1.37's feature gates:
// MaxUnavailableStatefulSet is on by default there, so a RollingUpdate strategy's
// maxUnavailable defaults to 1 beside partition 0. A rollingUpdate is added only when
// the strategy type was empty, as kube adds it.
func defaultStatefulSet(ss *appsv1.StatefulSet) {
	if ss.Spec.PodManagementPolicy == "" {
		ss.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	st := &ss.Spec.UpdateStrategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if st.Type == appsv1.RollingUpdateStatefulSetStrategyType && st.RollingUpdate != nil {
		if st.RollingUpdate.Partition == nil {
			st.RollingUpdate.Partition = int32Ptr(0)
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = intOrStringPtr(scheme.FromInt32(1))
		}
	}
	if ss.Spec.PersistentVolumeClaimRetentionPolicy == nil {
		ss.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if p := ss.Spec.PersistentVolumeClaimRetentionPolicy; p.WhenDeleted == "" {
		p.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if p := ss.Spec.PersistentVolumeClaimRetentionPolicy; p.WhenScaled == "" {
		p.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if ss.Spec.Replicas == nil {
		ss.Spec.Replicas = int32Ptr(1)
	}
	if ss.Spec.RevisionHistoryLimit == nil {
		ss.Spec.RevisionHistoryLimit = int32Ptr(10)
	}
}

// defaultReplicaSet is SetDefaults_ReplicaSet: one replica.
func defaultReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = int32Ptr(1)
	}
}
