package strategies

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	discoveryv1 "github.com/apikit-dev/apikit/builtin/discovery/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// The connect subresources of kube-apiserver v1.37.2 (pods/exec, attach, portforward,
// proxy and log, nodes/proxy, services/proxy) reach a kubelet, a pod or a service's
// endpoint. apikit runs none and dials no address taken from an object (an object's
// address is its writer's to choose, so dialing it would let any writer make the
// server connect where it likes), so each Connector here answers what kube-apiserver
// answers up to where its proxy would dial, and then kube's answer for a backend it
// cannot reach (its code and reason; a message that names no address):
//
//   - pods/exec, attach: the pod (404), its container (400 with kube's text), its node
//     (400 `pod p does not have a host assigned`), the node and its address
//     (GetConnectionInfo); then kube's 400 `Upgrade request required` to a request
//     that asks for no upgrade, and to one that does the 500 kube's proxy answers
//     when its dial to the kubelet fails;
//   - pods/portforward: the same without the container;
//   - pods/log (a get): PodLogOptions parsed and validated (400 and 422 as kube), the
//     pod and its container, an empty text/plain 200 for a pod without a node as kube
//     answers it, then the 500 of kube's failed request to the kubelet;
//   - pods/proxy, nodes/proxy, services/proxy: kube's checks of the address (400
//     `address not allowed`, services' 503 `no endpoints available for service`),
//     then the 503 ServiceUnavailable kube's proxy transport answers for a backend
//     it cannot reach.

// unreachable is the detail of every answer past the point where kube would dial.
const unreachable = "this server does not connect to kubelets, pods or services"

// podConnectors are the Connectors of pods' connect subresources.
func podConnectors() map[string]registry.Connector {
	return map[string]registry.Connector{
		"log":         podLog,
		"exec":        refusingDryRun(podStream),
		"attach":      refusingDryRun(podStream),
		"portforward": refusingDryRun(podPortForward),
		"proxy":       refusingDryRun(podProxy),
	}
}

// withConnector returns s with the Connector c of its subresource sub, refusing a dry
// run as every connection of kube does.
func withConnector[T scheme.Object](s registry.StrategyFor[T], sub string, c registry.Connector) registry.StrategyFor[T] {
	s.Connectors = map[string]registry.Connector{sub: refusingDryRun(c)}
	return s
}

// refusingDryRun is kube's ConnectResource's first check: a connection cannot be a
// dry run (400).
func refusingDryRun(c registry.Connector) registry.Connector {
	return func(ctx context.Context, s *registry.Store, rq registry.Request, name string, cr registry.ConnectRequest) (*registry.ConnectAnswer, error) {
		if _, ok := cr.Query["dryRun"]; ok && len(cr.Query["dryRun"]) > 0 {
			return nil, apierrors.NewBadRequest("dryRun is not supported")
		}
		return c(ctx, s, rq, name, cr)
	}
}

// getTyped reads the object name of resource gr in namespace at v1 as T: kube's
// getPod, and its node and service getters (404 NotFound for a missing one).
func getTyped[T scheme.Object](ctx context.Context, s *registry.Store, gr scheme.GroupResource, namespace, name string) (T, error) {
	var zero T
	res, ok := s.Resource(gr)
	if !ok {
		return zero, apierrors.NewNotFound(gr, name)
	}
	obj, err := s.Get(ctx, registry.Request{Resource: res, Namespace: namespace, Version: "v1"}, name, storage.GetOptions{})
	if err != nil {
		return zero, err
	}
	t, ok := obj.(T)
	if !ok {
		return zero, apierrors.NewInternalError(fmt.Errorf("unexpected object type %T", obj))
	}
	return t, nil
}

// podStream answers pods/exec and pods/attach as kube's streamLocation and its
// upgrade-aware proxy do (their boolean options read as kube reads them cannot fail).
func podStream(ctx context.Context, s *registry.Store, rq registry.Request, name string, cr registry.ConnectRequest) (*registry.ConnectAnswer, error) {
	pod, err := getTyped[*corev1.Pod](ctx, s, corev1.Pods, rq.Namespace, name)
	if err != nil {
		return nil, err
	}
	if _, err := validateContainer(cr.Query.Get("container"), pod); err != nil {
		return nil, err
	}
	return kubeletStream(ctx, s, pod, name, cr)
}

// podPortForward answers pods/portforward as kube's PortForwardLocation and its
// upgrade-aware proxy do: ports must parse as kube's query conversion parses them
// (16-bit unsigned, comma-separated).
func podPortForward(ctx context.Context, s *registry.Store, rq registry.Request, name string, cr registry.ConnectRequest) (*registry.ConnectAnswer, error) {
	for _, v := range cr.Query["ports"] {
		for _, p := range strings.Split(v, ",") {
			if _, err := strconv.ParseUint(p, 10, 16); err != nil {
				return nil, apierrors.NewBadRequest("cannot convert to []int32: " + err.Error())
			}
		}
	}
	pod, err := getTyped[*corev1.Pod](ctx, s, corev1.Pods, rq.Namespace, name)
	if err != nil {
		return nil, err
	}
	return kubeletStream(ctx, s, pod, name, cr)
}

// kubeletStream is what kube answers for a stream to the pod's kubelet: 400 for a pod
// without a node, the node's lookup (404, or 500 without an address), then 400 for a
// request without an upgrade, else the 500 of a failed dial.
func kubeletStream(ctx context.Context, s *registry.Store, pod *corev1.Pod, name string, cr registry.ConnectRequest) (*registry.ConnectAnswer, error) {
	if pod.Spec.NodeName == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	if _, err := kubeletAddress(ctx, s, pod.Spec.NodeName, corev1.Pods); err != nil {
		return nil, err
	}
	if !cr.Upgrade {
		return nil, apierrors.NewBadRequest("Upgrade request required")
	}
	return nil, unknownFailure("error dialing backend: " + unreachable)
}

// unknownFailure is the 500 kube-apiserver serves for an error that is not a Status
// (its reason empty), as its proxies' dial errors are.
func unknownFailure(msg string) error {
	return apierrors.New(http.StatusInternalServerError, scheme.StatusReasonUnknown, msg, nil)
}

// unreachableBackend is the 503 kube's proxy transport answers for a backend it cannot
// reach (`error trying to reach service: ` and the dial's error).
func unreachableBackend() error {
	return apierrors.NewServiceUnavailable("error trying to reach service: " + unreachable)
}

// preferredAddressTypes is kube-apiserver's default --kubelet-preferred-address-types.
var preferredAddressTypes = []corev1.NodeAddressType{corev1.NodeHostName, "InternalDNS", corev1.NodeInternalIP, "ExternalDNS", "ExternalIP"}

// kubeletAddress is kube's NodeConnectionInfoGetter.GetConnectionInfo as far as the
// address: the node (404 of notFoundAs, as kube words it), and its first address of the preferred types
// (GetPreferredNodeAddress: a Hostname address, else the node's hostname label), the
// 500 `no preferred addresses found` without one.
func kubeletAddress(ctx context.Context, s *registry.Store, nodeName string, notFoundAs scheme.GroupResource) (string, error) {
	node, err := getTyped[*corev1.Node](ctx, s, corev1.Nodes, "", nodeName)
	if st, ok := err.(*scheme.Status); ok && st.Reason == scheme.StatusReasonNotFound {
		// Measured on kube-apiserver v1.37.2: for the pod subresources its 404 names the
		// node as a pod (`pods "<node>" not found`), for nodes/proxy as a node.
		return "", apierrors.NewNotFound(notFoundAs, nodeName)
	}
	if err != nil {
		return "", err
	}
	for _, t := range preferredAddressTypes {
		for _, a := range node.Status.Addresses {
			if a.Type == t {
				return a.Address, nil
			}
		}
		if t == corev1.NodeHostName {
			if h, ok := node.Labels["kubernetes.io/hostname"]; ok {
				return h, nil
			}
		}
	}
	known := make([]string, len(node.Status.Addresses))
	for i, a := range node.Status.Addresses {
		known[i] = fmt.Sprintf("{%s %s}", a.Type, a.Address)
	}
	return "", unknownFailure(fmt.Sprintf("no preferred addresses found; known addresses: [%s]", strings.Join(known, " ")))
}

// validateContainer is kube's validateContainer: without a name, the pod's only
// container, else kube's 400 naming every container (init, regular, ephemeral); a
// named container must be one of them.
func validateContainer(container string, pod *corev1.Pod) (string, error) {
	if container != "" {
		for _, n := range podContainerNames(pod) {
			if n == container {
				return container, nil
			}
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod.Name))
	}
	switch len(pod.Spec.Containers) {
	case 1:
		return pod.Spec.Containers[0].Name, nil
	case 0:
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]",
		pod.Name, strings.Join(podContainerNames(pod), " ")))
}

// podContainerNames are the names of the pod's containers in the order kube's
// VisitContainers visits them: init, regular, ephemeral.
func podContainerNames(pod *corev1.Pod) []string {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	return names
}

// splitSchemeNamePort is apimachinery's SplitSchemeNamePort: "name", "name:port" or
// "scheme:name:port", the scheme "", "http" or "https", the name not empty.
func splitSchemeNamePort(id string) (scheme, name, port string, valid bool) {
	parts := strings.Split(id, ":")
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		name, port = parts[0], parts[1]
	case 3:
		scheme, name, port = parts[0], parts[1], parts[2]
	default:
		return "", "", "", false
	}
	if name == "" || scheme != "" && scheme != "http" && scheme != "https" {
		return "", "", "", false
	}
	return scheme, name, port, true
}

// podProxy answers pods/proxy as kube's ResourceLocation and its proxy do: the id
// (400), the pod (404), its first pod IP, which must be a global unicast address
// (400 `address not allowed`), then the 503 of an unreachable backend.
func podProxy(ctx context.Context, s *registry.Store, rq registry.Request, id string, _ registry.ConnectRequest) (*registry.ConnectAnswer, error) {
	_, name, _, valid := splitSchemeNamePort(id)
	if !valid {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid pod request %q", id))
	}
	pod, err := getTyped[*corev1.Pod](ctx, s, corev1.Pods, rq.Namespace, name)
	if err != nil {
		return nil, err
	}
	ip := ""
	if len(pod.Status.PodIPs) > 0 {
		ip = pod.Status.PodIPs[0].IP
	}
	if !isGlobalUnicast(ip) {
		return nil, apierrors.NewBadRequest("address not allowed")
	}
	return nil, unreachableBackend()
}

// isGlobalUnicast says s is an IP address (as kube's sloppy parse reads it) that is
// global unicast: not loopback, link-local, multicast or unspecified.
func isGlobalUnicast(s string) bool {
	ip := net.ParseIP(s)
	return ip != nil && ip.IsGlobalUnicast()
}

// nodeProxy answers nodes/proxy as kube's node ResourceLocation and its proxy do: the
// id (400), the node and its address (GetConnectionInfo), an IP address that must be
// global unicast (400 `address not allowed`), then the 503 of an unreachable backend.
// kube resolves a host name through DNS first; apikit looks nothing up and answers
// the 503 for it.
func nodeProxy(ctx context.Context, s *registry.Store, _ registry.Request, id string, _ registry.ConnectRequest) (*registry.ConnectAnswer, error) {
	_, name, _, valid := splitSchemeNamePort(id)
	if !valid {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid node request %q", id))
	}
	host, err := kubeletAddress(ctx, s, name, corev1.Nodes)
	if err != nil {
		return nil, err
	}
	if net.ParseIP(host) != nil && !isGlobalUnicast(host) {
		return nil, apierrors.NewBadRequest("address not allowed")
	}
	return nil, unreachableBackend()
}

// serviceProxy answers services/proxy as kube's service ResourceLocation and its proxy
// do: the id (400); a numeric port must be one of the service's (404 for a missing
// service, 503 `no service port N found`) and stands for its name; the service's
// EndpointSlices must hold a ready endpoint of that port whose pod has its address
// (503 `no endpoints available for service`); then the 503 of an unreachable backend.
func serviceProxy(ctx context.Context, s *registry.Store, rq registry.Request, id string, _ registry.ConnectRequest) (*registry.ConnectAnswer, error) {
	_, name, port, valid := splitSchemeNamePort(id)
	if !valid {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid service request %q", id))
	}
	if num, err := strconv.ParseInt(port, 10, 64); err == nil {
		svc, err := getTyped[*corev1.Service](ctx, s, corev1.Services, rq.Namespace, name)
		if err != nil {
			return nil, err
		}
		found := false
		for _, p := range svc.Spec.Ports {
			if int64(p.Port) == num {
				port, found = p.Name, true
				break
			}
		}
		if !found {
			return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", num, name))
		}
	}
	ok, err := hasProxyableEndpoint(ctx, s, rq.Namespace, name, port)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
	}
	return nil, unreachableBackend()
}

// hasProxyableEndpoint is kube's RandomEndpoint over the service's EndpointSlices (by
// their kubernetes.io/service-name label) with its isValidAddress: a slice port named
// port with a number, and an endpoint not marked unready whose target is a pod of the
// namespace with the endpoint's first address among its pod IPs.
func hasProxyableEndpoint(ctx context.Context, s *registry.Store, namespace, service, port string) (bool, error) {
	res, ok := s.Resource(discoveryv1.EndpointSlices)
	if !ok {
		return false, nil
	}
	sel := storage.LabelSelectorFromSet(map[string]string{"kubernetes.io/service-name": service})
	lr, err := s.List(ctx, registry.Request{Resource: res, Namespace: namespace, Version: "v1"}, storage.ListOptions{Predicate: storage.Predicate{Label: sel}})
	if err != nil {
		return false, err
	}
	for _, item := range lr.Items {
		slice, ok := item.(*discoveryv1.EndpointSlice)
		if !ok {
			continue
		}
		for _, p := range slice.Ports {
			if p.Name == nil || *p.Name != port || p.Port == nil {
				continue
			}
			for i := range slice.Endpoints {
				ep := &slice.Endpoints[i]
				if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
					continue
				}
				if endpointPodHasAddress(ctx, s, namespace, ep) {
					return true, nil
				}
			}
		}
	}
	return false, nil
}

// endpointPodHasAddress is kube's isValidAddress.
func endpointPodHasAddress(ctx context.Context, s *registry.Store, namespace string, ep *discoveryv1.Endpoint) bool {
	if ep.TargetRef == nil || ep.TargetRef.Namespace != namespace || len(ep.Addresses) == 0 {
		return false
	}
	pod, err := getTyped[*corev1.Pod](ctx, s, corev1.Pods, namespace, ep.TargetRef.Name)
	if err != nil {
		return false
	}
	for _, ip := range pod.Status.PodIPs {
		if ip.IP == ep.Addresses[0] {
			return true
		}
	}
	return false
}
