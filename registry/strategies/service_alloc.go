package strategies

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"

	"github.com/apikit-dev/apikit/apierrors"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/validation"
)

// The service ranges of envtest's kube-apiserver: --service-cluster-ip-range defaults
// to 10.0.0.0/24 (single-stack IPv4), --service-node-port-range to 30000-32767.
var (
	serviceCIDR = netip.MustParsePrefix("10.0.0.0/24")
	// kubernetesServiceIP is the range's first address, which kube-apiserver gives
	// its default/kubernetes service: never handed out dynamically here either.
	kubernetesServiceIP = serviceCIDR.Addr().Next()
)

const (
	nodePortMin, nodePortMax = 30000, 32767
	nodePortRange            = "30000-32767"
	// The reservation spaces (registry.Reserve) of the cluster IPs and node ports.
	clusterIPSpace = "services.clusterips"
	nodePortSpace  = "services.nodeports"
)

// The allocators' errors, worded as kube's ipallocator and portallocator word them.
var (
	errIPAllocated   = errors.New("provided IP is already allocated")
	errPortAllocated = errors.New("provided port is already allocated")
	errRangeFull     = errors.New("range is full")
	// errMismatchedNetwork is kube's ipallocator.ErrMismatchedNetwork: the address is in
	// none of the cluster's service CIDRs.
	errMismatchedNetwork = errors.New("the provided network does not match the current range")
)

// allocateService is kube's service REST storage's allocation (BeginCreate,
// BeginUpdate: pkg/registry/core/service/storage/alloc.go) on a single-stack IPv4
// cluster: it fills ipFamilyPolicy and ipFamilies, allocates the cluster IP and node
// ports a create or a change of type needs and takes requested ones, and releases the
// ones an update drops once it is stored. Every value is reserved in the Store's own
// storage (registry.Reserve), so that concurrent creates, on one server or on several
// sharing an etcd, never share one; a write that fails releases what it reserved. A
// dry run reserves nothing but is given the values a create would take, as kube's
// dry-run allocators give them.
func allocateService(ctx context.Context, s, old *corev1.Service) error {
	if old == nil {
		// kube's beginCreate keeps clusterIP and clusterIPs in step before it allocates
		// (an update's PrepareForUpdate, which runs before, has done it).
		normalizeClusterIPs(s, nil)
	}
	if errs := initIPFamilyFields(s, old); len(errs) > 0 {
		return errs.ToStatus(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), s.Name)
	}
	a := &allocation{ctx: ctx, svc: s}
	var err error
	switch {
	case old == nil || (old.Spec.Type == corev1.ServiceTypeExternalName && s.Spec.Type != corev1.ServiceTypeExternalName):
		err = a.clusterIPs()
	case old.Spec.Type != corev1.ServiceTypeExternalName && s.Spec.Type == corev1.ServiceTypeExternalName && !isHeadless(old):
		a.releaseClusterIPs(old)
	}
	if err == nil {
		err = a.nodePorts(old)
	}
	return err
}

// allocation is one write's allocation for the service svc.
type allocation struct {
	ctx context.Context
	svc *corev1.Service
	// taken are the reserved values of a space, read once when a free one is needed.
	taken map[string]map[string]bool
}

// invalid is the 422 of one cause, as kube's allocators answer a taken or
// out-of-range value.
func (a *allocation) invalid(e *validation.Error) error {
	return validation.ErrorList{e}.ToStatus(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), a.svc.Name)
}

// reserve reserves value in space for the service; errTaken when another holds it.
func (a *allocation) reserve(space, value string, errTaken error) error {
	err := registry.Reserve(a.ctx, space, value, a.svc)
	if errors.Is(err, registry.ErrReserved) {
		return errTaken
	}
	return err
}

// next reserves a free value of space among candidates, tried in their order with
// the values already reserved skipped, and returns it; errRangeFull when none is left.
func (a *allocation) next(space string, candidates func(yield func(string) bool)) (string, error) {
	if a.taken == nil {
		a.taken = map[string]map[string]bool{}
	}
	if a.taken[space] == nil {
		taken, err := registry.Reserved(a.ctx, space)
		if err != nil {
			return "", err
		}
		a.taken[space] = taken
	}
	taken := a.taken[space]
	for v := range candidates {
		if taken[v] {
			continue
		}
		// Another write may have taken it since the read: try the next one.
		switch err := registry.Reserve(a.ctx, space, v, a.svc); {
		case err == nil:
			taken[v] = true
			return v, nil
		case errors.Is(err, registry.ErrReserved):
			taken[v] = true
		default:
			return "", err
		}
	}
	return "", errRangeFull
}

// clusterIPs allocates what ipFamilies asks of a service that has cluster IPs: the
// requested address if in range and free, else the next free one. kube's allocator
// hands out addresses above a band at the bottom of the range first (its
// rangeOffset, min(max(16, size/16), 256) addresses), from a random start.
func (a *allocation) clusterIPs() error {
	s := a.svc
	if s.Spec.Type == corev1.ServiceTypeExternalName || isHeadless(s) {
		return nil
	}
	for i := range s.Spec.IPFamilies {
		if i >= len(s.Spec.ClusterIPs) {
			s.Spec.ClusterIPs = append(s.Spec.ClusterIPs, "")
		}
		ip := s.Spec.ClusterIPs[i]
		if ip == "" {
			got, err := a.next(clusterIPSpace, dynamicClusterIPs)
			if errors.Is(err, errRangeFull) {
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP for Service %q: %w", s.Name, err))
			}
			if err != nil {
				return err
			}
			s.Spec.ClusterIPs[i] = got
		} else {
			addr, err := netip.ParseAddr(ip)
			if err != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to parse service IP %q", ip))
			}
			var refused error
			switch {
			case !serviceCIDR.Contains(addr):
				// kube's MultiCIDRServiceAllocator (GA) finds no ServiceCIDR of the address.
				refused = errMismatchedNetwork
			case !inClusterIPRange(addr):
				refused = fmt.Errorf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, serviceCIDR)
			default:
				switch err := a.reserve(clusterIPSpace, addr.String(), errIPAllocated); {
				case errors.Is(err, errIPAllocated):
					refused = err
				case err != nil:
					return err
				}
			}
			if refused != nil {
				return a.invalid(validation.Invalid(validation.NewPath("spec", "clusterIPs"), s.Spec.ClusterIPs, fmt.Sprintf("failed to allocate IP %s: %v", ip, refused)))
			}
		}
		if i == 0 {
			s.Spec.ClusterIP = s.Spec.ClusterIPs[0]
		}
	}
	return nil
}

// inClusterIPRange reports whether addr is one of the range's host addresses (neither
// its network nor its broadcast address).
func inClusterIPRange(addr netip.Addr) bool {
	if !serviceCIDR.Contains(addr) || addr == serviceCIDR.Addr() {
		return false
	}
	return addr.Next().IsValid() && serviceCIDR.Contains(addr.Next())
}

// dynamicClusterIPs yields the range's host addresses in kube's order of preference:
// the upper band from a random start, then the lower band; never the kubernetes
// service's.
func dynamicClusterIPs(yield func(string) bool) {
	size := 1<<(32-serviceCIDR.Bits()) - 2 // host addresses
	offset := min(max(16, size/16), 256)
	band := func(from, n int) bool {
		if n <= 0 {
			return true
		}
		start := rand.IntN(n)
		for k := range n {
			addr := serviceCIDR.Addr()
			for range from + (start+k)%n {
				addr = addr.Next()
			}
			if addr == kubernetesServiceIP {
				continue
			}
			if !yield(addr.String()) {
				return false
			}
		}
		return true
	}
	if band(1+offset, size-offset) {
		band(1, offset)
	}
}

// dynamicNodePorts yields the node port range in kube's order: above its offset
// (min(max(16, size/32), 128) ports) from a random start, then the ports below.
func dynamicNodePorts(yield func(string) bool) {
	size := nodePortMax - nodePortMin + 1
	offset := min(max(16, size/32), 128)
	band := func(from, n int) bool {
		start := rand.IntN(n)
		for k := range n {
			if !yield(strconv.Itoa(from + (start+k)%n)) {
				return false
			}
		}
		return true
	}
	if band(nodePortMin+offset, size-offset) {
		band(nodePortMin, offset)
	}
}

// releaseClusterIPs releases old's cluster IPs once the write is stored.
func (a *allocation) releaseClusterIPs(old *corev1.Service) {
	for _, ip := range old.Spec.ClusterIPs {
		if addr, err := netip.ParseAddr(ip); err == nil {
			_ = registry.Release(a.ctx, clusterIPSpace, addr.String(), old)
		}
	}
}

// nodePort reserves a requested node port, kube's 422 on spec.ports[i].nodePort when
// it is out of range or taken.
func (a *allocation) nodePort(port int32, path *validation.Path) error {
	var err error
	if port < nodePortMin || port > nodePortMax {
		err = fmt.Errorf("provided port is not in the valid range. The range of valid ports is %s", nodePortRange)
	} else if err = a.reserve(nodePortSpace, strconv.Itoa(int(port)), errPortAllocated); err != nil && !errors.Is(err, errPortAllocated) {
		return err
	}
	if err != nil {
		return a.invalid(validation.Invalid(path, int64(port), err.Error()))
	}
	return nil
}

// nextNodePort reserves a free node port.
func (a *allocation) nextNodePort() (int32, error) {
	v, err := a.next(nodePortSpace, dynamicNodePorts)
	if err != nil {
		return 0, err
	}
	n, _ := strconv.Atoi(v)
	return int32(n), nil
}

// nodePorts is kube's initNodePorts, updateNodePorts and the health check node port's
// allocation: on a create (old nil) every port of a NodePort service, or of a
// LoadBalancer that allocates node ports, gets one (ports of one number share it);
// requested ones are taken. An update takes the new ones, releases those it drops,
// and all of them when the type no longer needs node ports.
func (a *allocation) nodePorts(old *corev1.Service) error {
	s := a.svc
	had := map[int32]bool{}
	if old != nil {
		for _, p := range old.Spec.Ports {
			if p.NodePort != 0 {
				had[p.NodePort] = true
			}
		}
	}
	keep := map[int32]bool{}
	if needsNodePort(s) {
		allocate := s.Spec.Type == corev1.ServiceTypeNodePort || (s.Spec.AllocateLoadBalancerNodePorts != nil && *s.Spec.AllocateLoadBalancerNodePorts)
		byPort := map[int32]int32{} // service port -> node port, on a create
		taken := map[int32]bool{}
		ports := validation.NewPath("spec", "ports")
		for i := range s.Spec.Ports {
			p := &s.Spec.Ports[i]
			if p.NodePort == 0 && !allocate {
				continue
			}
			if old == nil && p.NodePort == 0 {
				if np := byPort[p.Port]; np != 0 {
					p.NodePort = np
				} else if np := requestedNodePort(p.Port, s.Spec.Ports); np != 0 {
					p.NodePort = np
				}
			}
			switch {
			case p.NodePort == 0:
				np, err := a.nextNodePort()
				if errors.Is(err, errRangeFull) {
					return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
				}
				if err != nil {
					return err
				}
				p.NodePort = np
				taken[np] = true
			case !had[p.NodePort] && !taken[p.NodePort]:
				if err := a.nodePort(p.NodePort, ports.Index(i).Child("nodePort")); err != nil {
					return err
				}
				taken[p.NodePort] = true
			}
			byPort[p.Port] = p.NodePort
			keep[p.NodePort] = true
		}
	}
	if err := a.healthCheckNodePort(old); err != nil {
		return err
	}
	if needsHealthCheckNodePort(s) {
		keep[s.Spec.HealthCheckNodePort] = true
	}
	if old != nil {
		for np := range had {
			if !keep[np] {
				_ = registry.Release(a.ctx, nodePortSpace, strconv.Itoa(int(np)), old)
			}
		}
		if needsHealthCheckNodePort(old) && old.Spec.HealthCheckNodePort != 0 && !keep[old.Spec.HealthCheckNodePort] {
			_ = registry.Release(a.ctx, nodePortSpace, strconv.Itoa(int(old.Spec.HealthCheckNodePort)), old)
		}
	}
	return nil
}

// requestedNodePort is kube's findRequestedNodePort: the node port another entry of
// the same service port asks for.
func requestedNodePort(port int32, ports []corev1.ServicePort) int32 {
	for _, p := range ports {
		if p.Port == port && p.NodePort != 0 {
			return p.NodePort
		}
	}
	return 0
}

// healthCheckNodePort is kube's allocHealthCheckNodePort and updateHealthCheckNodePort:
// a LoadBalancer with externalTrafficPolicy Local gets a health check node port (the
// requested one, or a free one) when it starts to need one; failures are kube's 500s.
func (a *allocation) healthCheckNodePort(old *corev1.Service) error {
	s := a.svc
	if !needsHealthCheckNodePort(s) || (old != nil && needsHealthCheckNodePort(old)) {
		return nil
	}
	if hc := s.Spec.HealthCheckNodePort; hc != 0 {
		var err error
		if hc < nodePortMin || hc > nodePortMax {
			err = fmt.Errorf("provided port is not in the valid range. The range of valid ports is %s", nodePortRange)
		} else {
			err = a.reserve(nodePortSpace, strconv.Itoa(int(hc)), errPortAllocated)
		}
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate requested HealthCheck NodePort %d: %v", hc, err))
		}
		return nil
	}
	hc, err := a.nextNodePort()
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a HealthCheck NodePort %d: %v", hc, err))
	}
	s.Spec.HealthCheckNodePort = hc
	return nil
}

// releaseService is kube's releaseAllocatedResources of a deleted service: its
// cluster IPs, node ports and health check node port.
func releaseService(ctx context.Context, s *corev1.Service) {
	a := &allocation{ctx: ctx, svc: s}
	if s.Spec.Type != corev1.ServiceTypeExternalName && !isHeadless(s) {
		a.releaseClusterIPs(s)
	}
	for _, p := range s.Spec.Ports {
		if p.NodePort != 0 {
			_ = registry.Release(ctx, nodePortSpace, strconv.Itoa(int(p.NodePort)), s)
		}
	}
	if needsHealthCheckNodePort(s) && s.Spec.HealthCheckNodePort != 0 {
		_ = registry.Release(ctx, nodePortSpace, strconv.Itoa(int(s.Spec.HealthCheckNodePort)), s)
	}
}
