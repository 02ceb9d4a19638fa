package strategies

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/builtin"
	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// kube's messages that the tables below repeat.
const (
	dnsLabelMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	dnsSubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	mismatch        = "`selector` does not match template `labels`"
)

// defaulted applies the built-in scheme's defaults (kube's apps/v1 defaults) to obj.
func defaulted[T any](t *testing.T, obj T) T {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	conversion.Default(s, obj)
	return obj
}

func webTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: scheme.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, TerminationGracePeriodSeconds: ptr(int64(30)),
			Containers: []corev1.Container{{Name: "web", Image: "nginx"}},
		},
	}
}

func webSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
}

func deployment(t *testing.T, change func(d *appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: scheme.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Selector: webSelector(), Template: webTemplate()}}
	if change != nil {
		change(d)
	}
	return defaulted(t, d)
}

func intOrStr(v scheme.IntOrString) *scheme.IntOrString { return &v }

func TestValidateDeployment_KubesMessagesAndPaths(t *testing.T) {
	tests := []struct {
		name   string
		change func(d *appsv1.Deployment)
		want   []string
	}{
		{"a defaulted deployment is valid", nil, nil},
		{"the name is a DNS subdomain", func(d *appsv1.Deployment) { d.Name = "a_b" }, []string{`metadata.name: Invalid value: "a_b": ` + dnsSubdomainMsg}},
		{"replicas are not negative", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(-1)) }, []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"a missing selector is required and matches nothing", func(d *appsv1.Deployment) { d.Spec.Selector = nil }, []string{
			"spec.selector: Required value", `spec.template.metadata.labels: Invalid value: {"app":"web"}: ` + mismatch}},
		{"an empty selector is refused", func(d *appsv1.Deployment) { d.Spec.Selector = &metav1.LabelSelector{} }, []string{
			"spec.selector: Invalid value: {}: empty selector is invalid for deployment"}},
		{"the selector matches the template", func(d *appsv1.Deployment) { d.Spec.Selector.MatchLabels["app"] = "db" }, []string{
			`spec.template.metadata.labels: Invalid value: {"app":"web"}: ` + mismatch}},
		{"a selector that does not convert skips the template", func(d *appsv1.Deployment) {
			d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Foo"}}
			d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
		}, []string{
			`spec.selector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator`,
			`spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"Foo"}]}: invalid label selector`}},
		{"In needs values", func(d *appsv1.Deployment) {
			d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "In"}}
		}, []string{
			"spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			`spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"app","operator":"In"}]}: invalid label selector`}},
		{"pods always restart", func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever }, []string{
			`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"pods have no deadline", func(d *appsv1.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(10)) }, []string{
			"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"}},
		{"maxUnavailable is at most 100%", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: intOrStr(scheme.FromString("120%"))}
		}, []string{`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%`}},
		{"maxSurge may exceed 100%", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: intOrStr(scheme.FromString("120%"))}
		}, nil},
		{"maxUnavailable and maxSurge are not both 0", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: intOrStr(scheme.FromInt32(0)), MaxSurge: intOrStr(scheme.FromString("0%"))}
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"}},
		{"a surge is an integer or a percentage", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: intOrStr(scheme.FromString("abc"))}
		}, []string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "abc": ` + invalidPercentMsg}},
		{"a negative surge is refused", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: intOrStr(scheme.FromInt32(-1))}
		}, []string{"spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"}},
		{"Recreate takes no rollingUpdate", func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}
		}, []string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"an unknown strategy shows kube's internal value", func(d *appsv1.Deployment) { d.Spec.Strategy.Type = "Blue" }, []string{
			`spec.strategy: Unsupported value: {"Type":"Blue","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"`}},
		{"history and readiness are not negative", func(d *appsv1.Deployment) {
			d.Spec.RevisionHistoryLimit = ptr(int32(-1))
			d.Spec.MinReadySeconds = -1
		}, []string{
			"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
			"spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"}},
		{"the progress deadline exceeds minReadySeconds", func(d *appsv1.Deployment) {
			d.Spec.MinReadySeconds = 10
			d.Spec.ProgressDeadlineSeconds = ptr(int32(10))
		}, []string{"spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"}},
		{"a rollback revision is not negative", func(d *appsv1.Deployment) {
			d.Annotations = map[string]string{deploymentRollbackToAnnotation: "-2"}
		}, []string{"spec.rollback.version: Invalid value: -2: must be greater than or equal to 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(validateDeployment(deployment(t, tt.change)))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestDeploymentStrategy_GenerationStatusAndImmutableSelector(t *testing.T) {
	st := Apps()[appsv1.Deployments].(registry.StrategyFor[*appsv1.Deployment])
	ctx := context.Background()
	old := deployment(t, nil)
	old.Generation = 4
	old.Status = appsv1.DeploymentStatus{Replicas: 1}
	tests := []struct {
		name    string
		change  func(d *appsv1.Deployment)
		wantGen int64
	}{
		{"no change keeps the generation", func(*appsv1.Deployment) {}, 4},
		{"a label change keeps it", func(d *appsv1.Deployment) { d.Labels = map[string]string{"a": "b"} }, 4},
		{"an annotation change bumps it", func(d *appsv1.Deployment) { d.Annotations = map[string]string{"a": "b"} }, 5},
		{"a spec change bumps it", func(d *appsv1.Deployment) { d.Spec.Paused = true }, 5},
		{"a status change is dropped", func(d *appsv1.Deployment) { d.Status.Replicas = 9 }, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := scheme.DeepCopy(old)
			d.Generation = 1 // what a client sent does not count
			tt.change(d)
			st.PrepareForUpdate(ctx, d, old)
			if d.Generation != tt.wantGen || d.Status.Replicas != 1 {
				t.Errorf("generation %d, status.replicas %d; want %d and 1", d.Generation, d.Status.Replicas, tt.wantGen)
			}
		})
	}
	t.Run("create clears the status and starts at generation 1", func(t *testing.T) {
		d := deployment(t, func(d *appsv1.Deployment) { d.Status.Replicas = 3; d.Generation = 7 })
		st.PrepareForCreate(ctx, d)
		if d.Generation != 1 || d.Status.Replicas != 0 {
			t.Errorf("generation %d, status.replicas %d; want 1 and 0", d.Generation, d.Status.Replicas)
		}
	})
	t.Run("the status strategy keeps spec and labels and takes annotations", func(t *testing.T) {
		d := scheme.DeepCopy(old)
		d.Spec.Replicas = ptr(int32(9))
		d.Labels = map[string]string{"x": "y"}
		d.Annotations = map[string]string{"note": "n"}
		d.Status.ReadyReplicas = 1
		st.Status.PrepareForUpdate(ctx, d, old)
		if *d.Spec.Replicas != 1 || d.Labels != nil || d.Annotations["note"] != "n" || d.Status.ReadyReplicas != 1 {
			t.Errorf("after the status strategy: replicas %d labels %v annotations %v ready %d", *d.Spec.Replicas, d.Labels, d.Annotations, d.Status.ReadyReplicas)
		}
	})
	t.Run("the selector is immutable", func(t *testing.T) {
		d := scheme.DeepCopy(old)
		d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Exists"}}
		want := []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"app","operator":"Exists"}]}: field is immutable`}
		if d := cmp.Diff(want, causes(st.ValidateUpdate(ctx, d, old))); d != "" {
			t.Errorf("errors (-want +got):\n%s", d)
		}
	})
}

func TestValidateStatusUpdates_CountsAsKube(t *testing.T) {
	ctx := context.Background()
	apps := Apps()
	dst := apps[appsv1.Deployments].(registry.StrategyFor[*appsv1.Deployment]).Status
	rst := apps[appsv1.ReplicaSets].(registry.StrategyFor[*appsv1.ReplicaSet]).Status
	sst := apps[appsv1.StatefulSets].(registry.StrategyFor[*appsv1.StatefulSet]).Status
	dsst := apps[appsv1.DaemonSets].(registry.StrategyFor[*appsv1.DaemonSet]).Status
	tests := []struct {
		name string
		got  validation.ErrorList
		want []string
	}{
		{"deployment counts within replicas", dst.ValidateUpdate(ctx,
			&appsv1.Deployment{Status: appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 3, ReadyReplicas: 1, AvailableReplicas: 2, ObservedGeneration: -1}},
			&appsv1.Deployment{}), []string{
			"status.observedGeneration: Invalid value: -1: must be greater than or equal to 0",
			"status.updatedReplicas: Invalid value: 3: cannot be greater than status.replicas",
			"status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas"}},
		{"deployment collisionCount never decreases", dst.ValidateUpdate(ctx,
			&appsv1.Deployment{Status: appsv1.DeploymentStatus{CollisionCount: ptr(int32(1))}},
			&appsv1.Deployment{Status: appsv1.DeploymentStatus{CollisionCount: ptr(int32(2))}}), []string{
			"status.collisionCount: Invalid value: 1: cannot be decremented"}},
		{"deployment collisionCount is not dropped", dst.ValidateUpdate(ctx, &appsv1.Deployment{},
			&appsv1.Deployment{Status: appsv1.DeploymentStatus{CollisionCount: ptr(int32(2))}}), []string{
			"status.collisionCount: Invalid value: 0: cannot be decremented"}},
		{"replicaset counts", rst.ValidateUpdate(ctx,
			&appsv1.ReplicaSet{Status: appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 2, TerminatingReplicas: ptr(int32(-1))}},
			&appsv1.ReplicaSet{}), []string{
			"status.terminatingReplicas: Invalid value: -1: must be greater than or equal to 0",
			"status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas"}},
		{"statefulset counts", sst.ValidateUpdate(ctx,
			&appsv1.StatefulSet{Status: appsv1.StatefulSetStatus{Replicas: 1, CurrentReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1}},
			&appsv1.StatefulSet{}), []string{
			"status.currentReplicas: Invalid value: 2: cannot be greater than status.replicas"}},
		{"statefulset available within ready", sst.ValidateUpdate(ctx,
			&appsv1.StatefulSet{Status: appsv1.StatefulSetStatus{Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 2}},
			&appsv1.StatefulSet{}), []string{
			"status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas"}},
		{"daemonset counts are not negative", dsst.ValidateUpdate(ctx,
			&appsv1.DaemonSet{Status: appsv1.DaemonSetStatus{NumberReady: -1, NumberUnavailable: -2}},
			&appsv1.DaemonSet{}), []string{
			"status.numberReady: Invalid value: -1: must be greater than or equal to 0",
			"status.numberUnavailable: Invalid value: -2: must be greater than or equal to 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(tt.got)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func replicaSet(t *testing.T, change func(rs *appsv1.ReplicaSet)) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: scheme.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Selector: webSelector(), Template: webTemplate()}}
	if change != nil {
		change(rs)
	}
	return defaulted(t, rs)
}

func TestValidateReplicaSet_KubesMessagesAndPaths(t *testing.T) {
	tests := []struct {
		name   string
		change func(rs *appsv1.ReplicaSet)
		want   []string
	}{
		{"a defaulted replicaset is valid", nil, nil},
		{"kube calls an empty selector a deployment's", func(rs *appsv1.ReplicaSet) { rs.Spec.Selector = &metav1.LabelSelector{} }, []string{
			"spec.selector: Invalid value: {}: empty selector is invalid for deployment"}},
		{"minReadySeconds is not negative", func(rs *appsv1.ReplicaSet) { rs.Spec.MinReadySeconds = -1 }, []string{
			"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"}},
		{"the selector's expressions match the template", func(rs *appsv1.ReplicaSet) {
			rs.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Exists"}}
		}, []string{`spec.template.metadata.labels: Invalid value: {"app":"web"}: ` + mismatch}},
		{"NotIn and DoesNotExist hold for absent labels", func(rs *appsv1.ReplicaSet) {
			rs.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "NotIn", Values: []string{"a"}}, {Key: "x", Operator: "DoesNotExist"}}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(validateReplicaSet(replicaSet(t, tt.change)))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
	t.Run("the selector is immutable", func(t *testing.T) {
		old := replicaSet(t, nil)
		rs := replicaSet(t, func(rs *appsv1.ReplicaSet) { rs.Spec.Selector = nil })
		want := []string{"spec.selector: Required value", `spec.template.metadata.labels: Invalid value: {"app":"web"}: ` + mismatch, "spec.selector: Invalid value: null: field is immutable"}
		if d := cmp.Diff(want, causes(validateReplicaSetUpdate(rs, old))); d != "" {
			t.Errorf("errors (-want +got):\n%s", d)
		}
	})
}

func statefulSet(t *testing.T, change func(ss *appsv1.StatefulSet)) *appsv1.StatefulSet {
	ss := &appsv1.StatefulSet{ObjectMeta: scheme.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: appsv1.StatefulSetSpec{Selector: webSelector(), Template: webTemplate(), ServiceName: "db"}}
	if change != nil {
		change(ss)
	}
	return defaulted(t, ss)
}

func claim(name string) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{ObjectMeta: scheme.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: quantity.MustParse("1Gi")}},
	}}
}

func TestValidateStatefulSet_KubesMessagesAndPaths(t *testing.T) {
	tests := []struct {
		name   string
		change func(ss *appsv1.StatefulSet)
		want   []string
	}{
		{"a defaulted statefulset is valid", nil, nil},
		{"a statefulset with claim templates is valid", func(ss *appsv1.StatefulSet) {
			ss.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{claim("data")}
		}, nil},
		{"the name is a DNS label", func(ss *appsv1.StatefulSet) { ss.Name = "db.x" }, []string{`metadata.name: Invalid value: "db.x": must not contain dots`}},
		{"the pod management policy is known", func(ss *appsv1.StatefulSet) { ss.Spec.PodManagementPolicy = "Eager" }, []string{
			`spec.podManagementPolicy: Invalid value: "Eager": must be 'OrderedReady' or 'Parallel'`}},
		{"OnDelete takes no rollingUpdate", func(ss *appsv1.StatefulSet) {
			ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(2))}}
		}, []string{`spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":2,"MaxUnavailable":null}: only allowed for updateStrategy 'RollingUpdate'`}},
		{"Recreate is off in v1.37", func(ss *appsv1.StatefulSet) { ss.Spec.UpdateStrategy.Type = appsv1.RecreateStatefulSetStrategyType }, []string{
			`spec.updateStrategy: Invalid value: {"Type":"Recreate","RollingUpdate":null}: must be 'RollingUpdate' or 'OnDelete'`}},
		{"maxUnavailable is not 0", func(ss *appsv1.StatefulSet) {
			ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: intOrStr(scheme.FromString("0%"))}}
		}, []string{`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "0%": cannot be 0`}},
		{"the partition is not negative", func(ss *appsv1.StatefulSet) {
			ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(-1))}}
		}, []string{"spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"}},
		{"retention policies are Retain or Delete", func(ss *appsv1.StatefulSet) {
			ss.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Keep"}
		}, []string{`spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"`}},
		{"the service name is a DNS label", func(ss *appsv1.StatefulSet) { ss.Spec.ServiceName = "Db" }, []string{`spec.serviceName: Invalid value: "Db": ` + dnsLabelMsg}},
		{"ordinals start at 0 or more", func(ss *appsv1.StatefulSet) { ss.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: -1} }, []string{
			"spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"}},
		{"an empty selector is refused", func(ss *appsv1.StatefulSet) { ss.Spec.Selector = &metav1.LabelSelector{} }, []string{
			"spec.selector: Invalid value: {}: empty selector is invalid for statefulset"}},
		{"claim templates need access modes and storage", func(ss *appsv1.StatefulSet) {
			c := claim("data")
			c.Spec.AccessModes = nil
			c.Spec.Resources.Requests = nil
			ss.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{c}
		}, []string{
			"spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required",
			"spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"}},
		{"a claim's access mode is known and ReadWriteOncePod alone", func(ss *appsv1.StatefulSet) {
			c := claim("data")
			c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{"ReadWriteOncePod", "ReadWriteOnce", "Sometimes"}
			ss.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{c}
		}, []string{
			`spec.volumeClaimTemplates[0].spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
			"spec.volumeClaimTemplates[0].spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"}},
		{"pods always restart", func(ss *appsv1.StatefulSet) { ss.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure }, []string{
			`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`}},
		{"the hostname and subdomain the controller sets are not checked", func(ss *appsv1.StatefulSet) {
			ss.Spec.Template.Spec.Hostname = "Not_A_Label"
			ss.Spec.Template.Spec.Subdomain = "Not_A_Label"
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(validateStatefulSet(statefulSet(t, tt.change)))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestStatefulSetStrategy_ImmutableFieldsClaimTypesAndWarnings(t *testing.T) {
	st := Apps()[appsv1.StatefulSets].(registry.StrategyFor[*appsv1.StatefulSet])
	ctx := context.Background()
	old := statefulSet(t, func(ss *appsv1.StatefulSet) {
		ss.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{claim("data")}
	})
	st.PrepareForCreate(ctx, old)
	if c := old.Spec.VolumeClaimTemplates[0]; c.APIVersion != "v1" || c.Kind != "PersistentVolumeClaim" || c.Status.Phase != corev1.ClaimPending ||
		c.Spec.VolumeMode == nil || *c.Spec.VolumeMode != corev1.PersistentVolumeFilesystem {
		t.Errorf("stored claim template %+v, want apiVersion v1, kind PersistentVolumeClaim, phase Pending, volumeMode Filesystem", c)
	}
	tests := []struct {
		name   string
		change func(ss *appsv1.StatefulSet)
		want   []string
	}{
		{"replicas, template and strategy may change", func(ss *appsv1.StatefulSet) {
			ss.Spec.Replicas = ptr(int32(3))
			ss.Spec.Template.Spec.Containers[0].Image = "nginx:2"
			ss.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType
			ss.Spec.UpdateStrategy.RollingUpdate = nil
		}, nil},
		{"serviceName and podManagementPolicy may not", func(ss *appsv1.StatefulSet) {
			ss.Spec.ServiceName = "other"
			ss.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		}, []string{`spec.serviceName: Invalid value: "other": field is immutable`, `spec.podManagementPolicy: Invalid value: "Parallel": field is immutable`}},
		{"an invalid service name stays allowed on update", func(ss *appsv1.StatefulSet) { ss.Spec.ServiceName = "Db" }, []string{
			`spec.serviceName: Invalid value: "Db": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss := scheme.DeepCopy(old)
			ss.Spec.VolumeClaimTemplates[0].APIVersion, ss.Spec.VolumeClaimTemplates[0].Kind = "", "" // as a client may send them
			tt.change(ss)
			st.PrepareForUpdate(ctx, ss, old)
			if d := cmp.Diff(tt.want, causes(st.ValidateUpdate(ctx, ss, old))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
	t.Run("a negative revisionHistoryLimit warns", func(t *testing.T) {
		ss := statefulSet(t, func(ss *appsv1.StatefulSet) { ss.Spec.RevisionHistoryLimit = ptr(int32(-1)) })
		want := []string{"spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended"}
		if d := cmp.Diff(want, st.WarningsOnCreate(ctx, ss)); d != "" {
			t.Errorf("warnings (-want +got):\n%s", d)
		}
	})
}

func daemonSet(t *testing.T, change func(ds *appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{ObjectMeta: scheme.ObjectMeta{Name: "agent", Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{Selector: webSelector(), Template: webTemplate()}}
	if change != nil {
		change(ds)
	}
	return defaulted(t, ds)
}

func TestValidateDaemonSet_KubesMessagesAndPaths(t *testing.T) {
	tests := []struct {
		name   string
		change func(ds *appsv1.DaemonSet)
		want   []string
	}{
		{"a defaulted daemonset is valid", nil, nil},
		{"a missing selector matches nothing and is not required", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil }, []string{
			`spec.template.metadata.labels: Invalid value: {"app":"web"}: ` + mismatch}},
		{"an empty selector is refused", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = &metav1.LabelSelector{} }, []string{
			"spec.selector: Invalid value: {}: empty selector is invalid for daemonset"}},
		{"unavailable and surge are not both set", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: intOrStr(scheme.FromString("10%"))}
		}, []string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero`}},
		{"unavailable and surge are not both 0", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: intOrStr(scheme.FromInt32(0))}
		}, []string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"}},
		{"a surge is at most 100%", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: intOrStr(scheme.FromInt32(0)), MaxSurge: intOrStr(scheme.FromString("101%"))}
		}, []string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "101%": must not be greater than 100%`}},
		{"an unknown strategy shows kube's internal value", func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.Type = "Surge" }, []string{
			`spec.updateStrategy: Unsupported value: {"Type":"Surge","RollingUpdate":null}: supported values: "RollingUpdate", "OnDelete"`}},
		{"pods have no deadline", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(5)) }, []string{
			"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(validateDaemonSet(daemonSet(t, tt.change)))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestDaemonSetStrategy_TemplateGenerationAsKube(t *testing.T) {
	st := Apps()[appsv1.DaemonSets].(registry.StrategyFor[*appsv1.DaemonSet])
	ctx := context.Background()
	old := daemonSet(t, nil)
	st.PrepareForCreate(ctx, old)
	if old.Generation != 1 || old.Annotations[daemonSetTemplateGenerationAnnotation] != "1" {
		t.Fatalf("created with generation %d and annotations %v, want 1 and templateGeneration 1", old.Generation, old.Annotations)
	}
	tests := []struct {
		name           string
		change         func(ds *appsv1.DaemonSet)
		wantGen        int64
		wantTemplateGn string
	}{
		{"a template change bumps both", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:2" }, 2, "2"},
		{"another spec change bumps the generation", func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 5 }, 2, "1"},
		{"an annotation change bumps neither", func(ds *appsv1.DaemonSet) { ds.Annotations["a"] = "b" }, 1, "1"},
		{"a client's templateGeneration is ignored", func(ds *appsv1.DaemonSet) { ds.Annotations[daemonSetTemplateGenerationAnnotation] = "9" }, 1, "1"},
		{"a dropped templateGeneration is restored", func(ds *appsv1.DaemonSet) { ds.Annotations = nil }, 1, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := scheme.DeepCopy(old)
			tt.change(ds)
			st.PrepareForUpdate(ctx, ds, old)
			if ds.Generation != tt.wantGen || ds.Annotations[daemonSetTemplateGenerationAnnotation] != tt.wantTemplateGn {
				t.Errorf("generation %d templateGeneration %q, want %d and %q", ds.Generation, ds.Annotations[daemonSetTemplateGenerationAnnotation], tt.wantGen, tt.wantTemplateGn)
			}
			if errs := st.ValidateUpdate(ctx, ds, old); len(errs) > 0 {
				t.Errorf("update refused: %v", errs)
			}
		})
	}
	t.Run("the status strategy keeps spec and templateGeneration and takes labels", func(t *testing.T) {
		ds := scheme.DeepCopy(old)
		ds.Spec.MinReadySeconds = 9
		ds.Labels = map[string]string{"x": "y"}
		ds.Annotations = nil
		st.Status.PrepareForUpdate(ctx, ds, old)
		if ds.Spec.MinReadySeconds != 0 || ds.Labels["x"] != "y" || ds.Annotations[daemonSetTemplateGenerationAnnotation] != "1" {
			t.Errorf("after the status strategy: minReadySeconds %d labels %v annotations %v", ds.Spec.MinReadySeconds, ds.Labels, ds.Annotations)
		}
	})
}

func TestValidateControllerRevision_DataAndRevisionAsKube(t *testing.T) {
	rev := func(data string, n int64) *appsv1.ControllerRevision {
		cr := &appsv1.ControllerRevision{ObjectMeta: scheme.ObjectMeta{Name: "web-1", Namespace: "default"}, Revision: n}
		if data != "" {
			cr.Data.Raw = []byte(data)
		}
		return cr
	}
	tests := []struct {
		name string
		got  validation.ErrorList
		want []string
	}{
		{"an object is valid", validateControllerRevisionCreate(rev(`{"spec":{}}`, 1)), nil},
		{"data is mandatory", validateControllerRevisionCreate(rev("", 1)), []string{"data: Required value: data is mandatory"}},
		{"null data is missing", validateControllerRevisionCreate(rev("null", 1)), []string{"data: Required value: data is mandatory"}},
		{"data is an object", validateControllerRevisionCreate(rev("[1]", 1)), []string{"data: Required value: data must be a valid JSON object"}},
		{"data is JSON", validateControllerRevisionCreate(rev("{", 1)), []string{`data: Invalid value: "<value omitted>": error parsing data: unexpected end of JSON input`}},
		{"the revision is not negative", validateControllerRevisionCreate(rev(`{}`, -1)), []string{"revision: Invalid value: -1: must be greater than or equal to 0"}},
		{"data is immutable", validateControllerRevisionUpdate(rev(`{"a":2}`, 1), rev(`{"a":1}`, 1)), []string{`data: Invalid value: {"a":2}: field is immutable`}},
		{"the revision may change", validateControllerRevisionUpdate(rev(`{"a":1}`, 2), rev(`{"a":1}`, 1)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(tt.got)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestWarnings_DeploymentAndReplicaSetNamesThatAreNoDNSLabel(t *testing.T) {
	ctx := context.Background()
	d := deployment(t, func(d *appsv1.Deployment) { d.Name = "web.v2" })
	want := []string{"metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"}
	if diff := cmp.Diff(want, Apps()[appsv1.Deployments].(registry.StrategyFor[*appsv1.Deployment]).WarningsOnCreate(ctx, d)); diff != "" {
		t.Errorf("deployment warnings (-want +got):\n%s", diff)
	}
	rs := replicaSet(t, func(rs *appsv1.ReplicaSet) { rs.Name = "web" })
	if w := Apps()[appsv1.ReplicaSets].(registry.StrategyFor[*appsv1.ReplicaSet]).WarningsOnCreate(ctx, rs); w != nil {
		t.Errorf("replicaset named by a DNS label warned %v", w)
	}
}

func TestSemanticEqual_QuantitiesByAmountNilAsEmpty(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"quantities by amount", corev1.ResourceList{"cpu": quantity.MustParse("1")}, corev1.ResourceList{"cpu": quantity.MustParse("1000m")}, true},
		{"different amounts", corev1.ResourceList{"cpu": quantity.MustParse("1")}, corev1.ResourceList{"cpu": quantity.MustParse("2")}, false},
		{"nil and empty maps", map[string]string(nil), map[string]string{}, true},
		{"nil and empty slices", []string(nil), []string{}, true},
		{"a nil pointer and a zero value", (*int32)(nil), ptr(int32(0)), false},
		{"a missing map key", map[string]string{"a": ""}, map[string]string{"b": ""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := semanticEqual(tt.a, tt.b); got != tt.want {
				t.Errorf("semanticEqual = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStatefulSetUpdate_ClaimTemplatesPrintedAsKubesInternalType(t *testing.T) {
	old := statefulSet(t, func(ss *appsv1.StatefulSet) {
		c := claim("data")
		c.Spec.StorageClassName = ptr("standard")
		ss.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{c}
	})
	setClaimTemplateTypes(old)
	ss := scheme.DeepCopy(old)
	ss.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests = nil
	want := []string{`spec.volumeClaimTemplates: Invalid value: [{"name":"data","Spec":{"AccessModes":["ReadWriteOnce"],"Selector":null,"Resources":{"Limits":null,"Requests":null},"VolumeName":"","StorageClassName":"standard","VolumeMode":"Filesystem","DataSource":null,"DataSourceRef":null,"VolumeAttributesClassName":null},"Status":{"Phase":"Pending","AccessModes":null,"Capacity":null,"Conditions":null,"AllocatedResources":null,"AllocatedResourceStatuses":null,"CurrentVolumeAttributesClassName":null,"ModifyVolumeStatus":null,"HealthStatus":null}}]: field is immutable`}
	if d := cmp.Diff(want, causes(validateStatefulSetUpdate(ss, old))); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}
