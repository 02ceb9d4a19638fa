package strategies

import (
	"context"
	"reflect"
	"slices"

	"github.com/apikit-dev/apikit/builtin"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Services returns kube-apiserver v1.37.2's write rules of core/v1 services and
// endpoints (pkg/registry/core/service, pkg/registry/core/endpoint): a Service's
// status is the status subresource's alone, its cluster IPs and node ports are
// allocated from the Store's own storage (service_alloc.go), it is validated with
// kube's messages, and its deprecated or ignored fields warn; an Endpoints is validated
// and every write of one warns that the kind is deprecated.
func Services() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		corev1.Services:          withoutGeneration(withConnector(serviceStrategy(), "proxy", serviceProxy)), // connect.go
		corev1.EndpointsResource: withoutGeneration(endpointsStrategy()),
	}
}

func serviceStrategy() registry.StrategyFor[*corev1.Service] {
	return registry.StrategyFor[*corev1.Service]{
		PrepareForCreate: func(_ context.Context, s *corev1.Service) {
			s.Status = corev1.ServiceStatus{}
			normalizeClusterIPs(s, nil)
		},
		PrepareForUpdate: func(_ context.Context, s, old *corev1.Service) {
			s.Status = old.Status
			patchAllocatedValues(s, old)
			normalizeClusterIPs(s, old)
			dropTypeDependentFields(s, old)
		},
		// kube's service storage allocates in its BeginCreate and BeginUpdate, after
		// mutating admission and before validation, with a Status of its own on
		// failure (a 422 for a taken or out-of-range value, a 500 for a full range):
		// exactly where and how these hooks run.
		AuthorizeCreate: func(ctx context.Context, s *corev1.Service) error { return allocateService(ctx, s, nil) },
		AuthorizeUpdate: func(ctx context.Context, s, old *corev1.Service) error { return allocateService(ctx, s, old) },
		Validate: func(_ context.Context, s *corev1.Service) validation.ErrorList {
			return dropExternalNameTrafficPolicy(s, validateService(s, nil))
		},
		ValidateUpdate: func(_ context.Context, s, old *corev1.Service) validation.ErrorList {
			return dropExternalNameTrafficPolicy(s, validateServiceUpdate(s, old))
		},
		WarningsOnCreate: func(_ context.Context, s *corev1.Service) []string { return serviceWarnings(s, nil) },
		WarningsOnUpdate: func(_ context.Context, s, old *corev1.Service) []string { return serviceWarnings(s, old) },
		AfterDelete:      func(ctx context.Context, s *corev1.Service) { releaseService(ctx, s) },
		Status: &registry.StrategyFor[*corev1.Service]{
			// kube's serviceStatusStrategy keeps the stored spec and takes the rest.
			PrepareForUpdate: func(_ context.Context, s, old *corev1.Service) { s.Spec = old.Spec },
			ValidateUpdate: func(_ context.Context, s, old *corev1.Service) validation.ErrorList {
				return validateLoadBalancerStatus(&s.Status.LoadBalancer, &old.Status.LoadBalancer, &s.Spec)
			},
			WarningsOnUpdate: func(_ context.Context, s, _ *corev1.Service) []string {
				var out []string
				for i, ing := range s.Status.LoadBalancer.Ingress {
					if ing.IP != "" {
						out = append(out, svcIPWarnings(validation.NewPath("status", "loadBalancer", "ingress").Index(i), ing.IP)...)
					}
				}
				return out
			},
		},
	}
}

// dropExternalNameTrafficPolicy gives a valid ExternalName service what kube's
// service storage shows of it on every read (defaultOnReadInternalTrafficPolicy): no
// internalTrafficPolicy, which an update from another type carries over. It is
// dropped once validated, as kube validates the field before it hides it. errs are
// the validation's errors, returned as they are.
func dropExternalNameTrafficPolicy(s *corev1.Service, errs validation.ErrorList) validation.ErrorList {
	if len(errs) == 0 && s.Spec.Type == corev1.ServiceTypeExternalName {
		s.Spec.InternalTrafficPolicy = nil
	}
	return errs
}

// normalizeClusterIPs is kube's: clusterIP and clusterIPs kept in step for a client
// that sets only the singular field, or clears it, or keeps it on an update. (Its
// "same cluster IPs" compares clusterIPs alone, as kube's service storage's does.)
func normalizeClusterIPs(s, old *corev1.Service) {
	if old == nil {
		if s.Spec.ClusterIP != "" && len(s.Spec.ClusterIPs) == 0 {
			s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
		}
		return
	}
	if len(old.Spec.ClusterIPs) > 0 && len(s.Spec.ClusterIPs) == 0 && old.Spec.ClusterIP == s.Spec.ClusterIP {
		s.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if old.Spec.ClusterIP != s.Spec.ClusterIP {
		if old.Spec.ClusterIP != "" && s.Spec.ClusterIP == "" {
			if slices.Equal(old.Spec.ClusterIPs, s.Spec.ClusterIPs) {
				s.Spec.ClusterIPs = nil
			}
		} else if slices.Equal(old.Spec.ClusterIPs, s.Spec.ClusterIPs) {
			s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
		}
	}
}

// patchAllocatedValues is kube's: an update that leaves out the allocated cluster IPs,
// node ports (matched by port name) or health check node port keeps the stored ones,
// so that a PUT of a manifest is idempotent.
func patchAllocatedValues(s, old *corev1.Service) {
	if needsClusterIP(old) && needsClusterIP(s) {
		if s.Spec.ClusterIP == "" {
			s.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(s.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			s.Spec.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	if needsNodePort(old) && needsNodePort(s) {
		used := map[int32]bool{}
		inNew := map[int32]bool{}
		for _, p := range s.Spec.Ports {
			inNew[p.NodePort] = true
		}
		for _, p := range old.Spec.Ports {
			if p.NodePort != 0 && inNew[p.NodePort] {
				used[p.NodePort] = true
			}
		}
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range s.Spec.Ports {
			if p := &s.Spec.Ports[i]; p.NodePort == 0 && !used[byName[p.Name]] {
				p.NodePort = byName[p.Name]
			}
		}
	}
	if needsHealthCheckNodePort(old) && needsHealthCheckNodePort(s) && s.Spec.HealthCheckNodePort == 0 {
		s.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// dropTypeDependentFields is kube's: an update that changes the type clears what the
// old type needed and the new one does not, when the client left it as it was.
func dropTypeDependentFields(s, old *corev1.Service) {
	if needsClusterIP(old) && !needsClusterIP(s) {
		if sameClusterIPs(old, s) {
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "", nil
		}
		if reflect.DeepEqual(old.Spec.IPFamilies, s.Spec.IPFamilies) {
			s.Spec.IPFamilies = nil
		}
		if policyOf(old) == policyOf(s) {
			s.Spec.IPFamilyPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(s) && nodePortsSubset(s, old) {
		for i := range s.Spec.Ports {
			s.Spec.Ports[i].NodePort = 0
		}
	}
	if needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(s) && old.Spec.HealthCheckNodePort == s.Spec.HealthCheckNodePort {
		s.Spec.HealthCheckNodePort = 0
	}
	if old.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.Type != corev1.ServiceTypeLoadBalancer {
		if a, b := s.Spec.AllocateLoadBalancerNodePorts, old.Spec.AllocateLoadBalancerNodePorts; a != nil && b != nil && *a == *b {
			s.Spec.AllocateLoadBalancerNodePorts = nil
		}
		if reflect.DeepEqual(s.Spec.LoadBalancerClass, old.Spec.LoadBalancerClass) {
			s.Spec.LoadBalancerClass = nil
		}
	}
	if builtin.ServiceExternallyAccessible(old) && !builtin.ServiceExternallyAccessible(s) && old.Spec.ExternalTrafficPolicy == s.Spec.ExternalTrafficPolicy {
		s.Spec.ExternalTrafficPolicy = ""
	}
	if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
		s.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
}

func sameClusterIPs(a, b *corev1.Service) bool {
	return a.Spec.ClusterIP == b.Spec.ClusterIP && slices.Equal(a.Spec.ClusterIPs, b.Spec.ClusterIPs)
}

// nodePortsSubset reports whether every node port of s is one of old's.
func nodePortsSubset(s, old *corev1.Service) bool {
	had := map[int32]bool{}
	for _, p := range old.Spec.Ports {
		had[p.NodePort] = true
	}
	for _, p := range s.Spec.Ports {
		if p.NodePort != 0 && !had[p.NodePort] {
			return false
		}
	}
	return true
}

func policyOf(s *corev1.Service) corev1.IPFamilyPolicy {
	if s.Spec.IPFamilyPolicy == nil {
		return ""
	}
	return *s.Spec.IPFamilyPolicy
}

func needsClusterIP(s *corev1.Service) bool { return s.Spec.Type != corev1.ServiceTypeExternalName }

func needsNodePort(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// needsHealthCheckNodePort is kube's NeedsHealthCheck: a LoadBalancer with
// externalTrafficPolicy Local.
func needsHealthCheckNodePort(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// clusterIPNone is the clusterIP of a headless service.
const clusterIPNone = "None"

func isHeadless(s *corev1.Service) bool {
	return len(s.Spec.ClusterIPs) == 1 && s.Spec.ClusterIPs[0] == clusterIPNone
}
