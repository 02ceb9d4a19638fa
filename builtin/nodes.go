package builtin

import (
	"fmt"
	"slices"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// nodeResources is core/v1 nodes as kube-apiserver v1.37.2 serves it: cluster-scoped,
// with nodes/status, selectable by spec.unschedulable, and the columns of kube's
// printNode. nodes/proxy is not served: kube answers it by dialling the node's kubelet,
// which a server without kubelets cannot do as kube does.
var nodeResources = []scheme.Resource{
	{Kind: "Node", Plural: "nodes", ShortNames: []string{"no"}, StatusSubresource: true,
		OtherSubresources: []scheme.Subresource{proxySubresource("NodeProxyOptions")}, // pod_subresources.go
		SelectableFields:  []string{"spec.unschedulable"},
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Status", Type: "string", Description: "The status of the node", Cell: cellOf(nodeStatusCell)},
			{Name: "Roles", Type: "string", Description: "The roles of the node", Cell: cellOf(func(n *corev1.Node) any {
				if roles := nodeRoles(n); len(roles) > 0 {
					return strings.Join(roles, ",")
				}
				return "<none>"
			})},
			ageColumn,
			{Name: "Version", Type: "string", Description: "Kubelet Version reported by the node.",
				Cell: cellOf(func(n *corev1.Node) any { return n.Status.NodeInfo.KubeletVersion })},
			{Name: "Internal-IP", Type: "string", Priority: 1, Description: nodeAddressesDoc,
				Cell: cellOf(func(n *corev1.Node) any { return nodeAddress(n, corev1.NodeInternalIP) })},
			{Name: "External-IP", Type: "string", Priority: 1, Description: nodeAddressesDoc,
				Cell: cellOf(func(n *corev1.Node) any { return nodeAddress(n, corev1.NodeExternalIP) })},
			{Name: "OS-Image", Type: "string", Priority: 1, Description: "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
				Cell: cellOf(func(n *corev1.Node) any { return orUnknown(n.Status.NodeInfo.OSImage) })},
			{Name: "Kernel-Version", Type: "string", Priority: 1, Description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
				Cell: cellOf(func(n *corev1.Node) any {
					v := orUnknown(n.Status.NodeInfo.KernelVersion)
					if arch := n.Status.NodeInfo.Architecture; arch != "" {
						v += " (" + arch + ")"
					}
					return v
				})},
			{Name: "Container-Runtime", Type: "string", Priority: 1, Description: "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
				Cell: cellOf(func(n *corev1.Node) any { return orUnknown(n.Status.NodeInfo.ContainerRuntimeVersion) })},
		}},
}

const nodeAddressesDoc = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP)."

// nodeStatusCell is printNode's STATUS: Ready or NotReady from the Ready condition
// (the last one of that type wins), Unknown without one, then SchedulingDisabled for a
// cordoned node.
func nodeStatusCell(n *corev1.Node) any {
	var status []string
	var ready *corev1.NodeCondition
	for i := range n.Status.Conditions {
		if c := &n.Status.Conditions[i]; c.Type == corev1.NodeReady {
			ready = c
		}
	}
	switch {
	case ready == nil:
		status = append(status, "Unknown")
	case ready.Status == corev1.ConditionTrue:
		status = append(status, string(corev1.NodeReady))
	default:
		status = append(status, "Not"+string(corev1.NodeReady))
	}
	if n.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
	}
	return strings.Join(status, ",")
}

// nodeRoles is kube's findNodeRoles: each node-role.kubernetes.io/<role> label's role
// and a kubernetes.io/role label's value, sorted and once each.
func nodeRoles(n *corev1.Node) []string {
	var roles []string
	for k, v := range n.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if role := strings.TrimPrefix(k, "node-role.kubernetes.io/"); role != "" {
				roles = append(roles, role)
			}
		case k == "kubernetes.io/role" && v != "":
			roles = append(roles, v)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

func nodeAddress(n *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// AddNodesToScheme registers the core/v1 Node kind and its list, its resource, its
// protobuf message and its defaults. AddToScheme calls it.
func AddNodesToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.Node{}, &corev1.NodeList{})
	for _, r := range nodeResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, corev1.SchemeGroupVersion, &corev1.Node{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerNodeDefaults(s)
	return nil
}

// AddStorageAndNodesToScheme registers PersistentVolumeClaims, PersistentVolumes
// (AddVolumesToScheme) and Nodes (AddNodesToScheme).
func AddStorageAndNodesToScheme(s *scheme.Scheme) error {
	if err := AddVolumesToScheme(s); err != nil {
		return err
	}
	return AddNodesToScheme(s)
}
