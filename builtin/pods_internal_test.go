package builtin

import (
	"testing"
	"time"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// TestPodSummary_AsKubePrintPod holds the READY, STATUS and RESTARTS cells of kubectl get
// pods for the states kube's printPod distinguishes.
func TestPodSummary_AsKubePrintPod(t *testing.T) {
	yes := true
	always := corev1.ContainerRestartPolicyAlways
	ago := scheme.Time{Time: time.Now().Add(-5 * time.Minute)}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	two := corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}
	for _, tt := range []struct {
		name string
		pod  corev1.Pod
		want podSummary
	}{
		{"pending", corev1.Pod{Spec: two, Status: corev1.PodStatus{Phase: corev1.PodPending}}, podSummary{"0/2", "Pending", "0"}},
		{"running, one ready", corev1.Pod{Spec: two, Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "a", Ready: true, State: running}, {Name: "b", State: running},
		}}}, podSummary{"1/2", "Running", "0"}},
		{"crash loop with restarts", corev1.Pod{Spec: two, Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "a", Ready: true, State: running},
			{Name: "b", RestartCount: 3, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: ago}}},
		}}}, podSummary{"1/2", "CrashLoopBackOff", "3 (5m ago)"}},
		{"waiting for an init container", corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "i"}}, Containers: []corev1.Container{{Name: "a"}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{Name: "i", State: running}}}},
			podSummary{"0/1", "Init:0/1", "0"}},
		{"a started sidecar counts", corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "s", RestartPolicy: &always}}, Containers: []corev1.Container{{Name: "a"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, InitContainerStatuses: []corev1.ContainerStatus{{Name: "s", Started: &yes, Ready: true, State: running}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "a", Ready: true, State: running}}}},
			podSummary{"2/2", "Running", "0"}},
		{"completed", corev1.Pod{Spec: two, Status: corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "a", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}},
			{Name: "b", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}},
		}}}, podSummary{"0/2", "Completed", "0"}},
		{"terminating", corev1.Pod{ObjectMeta: scheme.ObjectMeta{DeletionTimestamp: &ago}, Spec: two, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
			podSummary{"0/2", "Terminating", "0"}},
	} {
		if got := podSummaryOf(&tt.pod); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestHumanDuration_AsApimachinery holds the age format of kube's tables.
func TestHumanDuration_AsApimachinery(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-3 * time.Second: "<invalid>", 0: "0s", 119 * time.Second: "119s", 200 * time.Second: "3m20s",
		10 * time.Minute: "10m", 3*time.Hour + 5*time.Minute: "3h5m", 9 * time.Hour: "9h",
		50 * time.Hour: "2d2h", 10 * 24 * time.Hour: "10d", 3 * 365 * 24 * time.Hour: "3y", 9 * 365 * 24 * time.Hour: "9y",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
