package builtin

import (
	"fmt"
	"strconv"
	"time"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// podResources are the core/v1 pods and podtemplates as kube-apiserver v1.37.2 serves them,
// with the columns of kube's table printers.
var podResources = []scheme.Resource{
	{Kind: "Pod", Plural: "pods", ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true, StatusSubresource: true,
		OtherSubresources: podSubresources, // pod_subresources.go
		SelectableFields: []string{
			"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
			"status.phase", "status.podIP", "status.nominatedNodeName",
		},
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic.",
				Cell: cellOf(func(p *corev1.Pod) any { return podSummaryOf(p).ready })},
			{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod.",
				Cell: cellOf(func(p *corev1.Pod) any { return podSummaryOf(p).reason })},
			{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
				Cell: cellOf(func(p *corev1.Pod) any { return podSummaryOf(p).restarts })},
			ageColumn,
			{Name: "IP", Type: "string", Priority: 1, Description: "podIP address allocated to the pod.", Cell: cellOf(func(p *corev1.Pod) any {
				if len(p.Status.PodIPs) > 0 && p.Status.PodIPs[0].IP != "" {
					return p.Status.PodIPs[0].IP
				}
				return "<none>"
			})},
			{Name: "Node", Type: "string", Priority: 1, Description: "NodeName indicates in which node this pod is scheduled.",
				Cell: cellOf(func(p *corev1.Pod) any { return orNone(p.Spec.NodeName) })},
			{Name: "Nominated Node", Type: "string", Priority: 1, Description: "nominatedNodeName is set only when this pod preempts other pods on the node.",
				Cell: cellOf(func(p *corev1.Pod) any { return orNone(p.Status.NominatedNodeName) })},
			{Name: "Readiness Gates", Type: "string", Priority: 1, Description: "If specified, all readiness gates will be evaluated for pod readiness.",
				Cell: cellOf(func(p *corev1.Pod) any { return readinessGates(p) })},
		}},
	{Kind: "PodTemplate", Plural: "podtemplates", Namespaced: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Containers", Type: "string", Description: "Names of each container in the template.", Cell: cellOf(func(t *corev1.PodTemplate) any {
				return joinContainers(t.Template.Spec.Containers, func(c *corev1.Container) string { return c.Name })
			})},
			{Name: "Images", Type: "string", Description: "Images referenced by each container in the template.", Cell: cellOf(func(t *corev1.PodTemplate) any {
				return joinContainers(t.Template.Spec.Containers, func(c *corev1.Container) string { return c.Image })
			})},
			{Name: "Pod Labels", Type: "string", Description: "The labels for the pod template.",
				Cell: cellOf(func(t *corev1.PodTemplate) any { return formatLabels(t.Template.Labels) })},
		}},
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// podSummary is what kubectl get pods shows of a pod: READY, STATUS and RESTARTS.
type podSummary struct {
	ready, reason, restarts string
}

// podSummaryOf computes the cells as kube's printPod does: the phase or reason, then the
// first unfinished init container's state, then the containers' waiting or terminated
// reasons (the last container first), Terminating once deleted; restarts count with the
// time of the last one.
func podSummaryOf(pod *corev1.Pod) podSummary {
	restarts, sidecarRestarts := 0, 0
	total, ready := len(pod.Spec.Containers), 0
	var lastRestart, lastSidecarRestart time.Time
	reason := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == "SchedulingGated" {
			reason = "SchedulingGated"
		}
	}
	sidecars := map[string]bool{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
			total++
		}
	}
	later := func(t *time.Time, s *corev1.ContainerStatus) {
		if term := s.LastTerminationState.Terminated; term != nil && t.Before(term.FinishedAt.Time) {
			*t = term.FinishedAt.Time
		}
	}
	initializing := false
	for i := range pod.Status.InitContainerStatuses {
		c := &pod.Status.InitContainerStatuses[i]
		restarts += int(c.RestartCount)
		later(&lastRestart, c)
		if sidecars[c.Name] {
			sidecarRestarts += int(c.RestartCount)
			later(&lastSidecarRestart, c)
		}
		term, wait := c.State.Terminated, c.State.Waiting
		switch {
		case term != nil && term.ExitCode == 0:
			continue
		case sidecars[c.Name] && c.Started != nil && *c.Started:
			if c.Ready {
				ready++
			}
			continue
		case term != nil:
			switch {
			case term.Reason != "":
				reason = "Init:" + term.Reason
			case term.Signal != 0:
				reason = fmt.Sprintf("Init:Signal:%d", term.Signal)
			default:
				reason = fmt.Sprintf("Init:ExitCode:%d", term.ExitCode)
			}
		case wait != nil && wait.Reason != "" && wait.Reason != "PodInitializing":
			reason = "Init:" + wait.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if !initializing || podConditionTrue(pod, corev1.PodInitialized) {
		restarts, lastRestart = sidecarRestarts, lastSidecarRestart
		hasRunning, errorReason := false, ""
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := &pod.Status.ContainerStatuses[i]
			restarts += int(c.RestartCount)
			later(&lastRestart, c)
			switch term := c.State.Terminated; {
			case c.State.Waiting != nil && c.State.Waiting.Reason != "":
				reason = c.State.Waiting.Reason
			case term != nil:
				switch {
				case term.Reason != "":
					reason = term.Reason
				case term.Signal != 0:
					reason = fmt.Sprintf("Signal:%d", term.Signal)
				default:
					reason = fmt.Sprintf("ExitCode:%d", term.ExitCode)
				}
				if term.ExitCode != 0 {
					errorReason = reason
				}
			case c.Ready && c.State.Running != nil:
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" {
			switch {
			case hasRunning && podConditionTrue(pod, corev1.PodReady):
				reason = "Running"
			case errorReason != "":
				reason = errorReason
			case hasRunning:
				reason = "NotReady"
			}
		}
	}
	if pod.DeletionTimestamp != nil {
		if pod.Status.Reason == "NodeLost" {
			reason = "Unknown"
		} else if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			reason = "Terminating"
		}
	}
	r := strconv.Itoa(restarts)
	if restarts != 0 && !lastRestart.IsZero() {
		r = fmt.Sprintf("%d (%s ago)", restarts, humanDuration(time.Since(lastRestart)))
	}
	return podSummary{ready: fmt.Sprintf("%d/%d", ready, total), reason: reason, restarts: r}
}

func podConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// readinessGates is "<none>" or how many of the pod's readiness gates are true, of how many.
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	n := 0
	for _, g := range pod.Spec.ReadinessGates {
		if podConditionTrue(pod, g.ConditionType) {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(pod.Spec.ReadinessGates))
}

// humanDuration is apimachinery's duration.HumanDuration, the age format of kubectl's
// tables ("45s", "3m20s", "5h", "2d3h", "4y").
func humanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		s := int(d/time.Second) % 60
		if s == 0 {
			return fmt.Sprintf("%dm", minutes)
		}
		return fmt.Sprintf("%dm%ds", minutes, s)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	if hours < 8 {
		m := int(d/time.Minute) % 60
		if m == 0 {
			return fmt.Sprintf("%dh", hours)
		}
		return fmt.Sprintf("%dh%dm", hours, m)
	} else if hours < 48 {
		return fmt.Sprintf("%dh", hours)
	} else if hours < 24*8 {
		h := hours % 24
		if h == 0 {
			return fmt.Sprintf("%dd", hours/24)
		}
		return fmt.Sprintf("%dd%dh", hours/24, h)
	} else if hours < 24*365*2 {
		return fmt.Sprintf("%dd", hours/24)
	} else if hours < 24*365*8 {
		dy := int(hours/24) % 365
		if dy == 0 {
			return fmt.Sprintf("%dy", hours/24/365)
		}
		return fmt.Sprintf("%dy%dd", hours/24/365, dy)
	}
	return fmt.Sprintf("%dy", int(hours/24/365))
}
