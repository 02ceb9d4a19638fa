package builtin

import (
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	discoveryv1 "github.com/apikit-dev/apikit/builtin/discovery/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerDiscoveryDefaults registers kube-apiserver v1.37.2's defaults of
// discovery.k8s.io/v1 (pkg/apis/discovery/v1/defaults.go): each port of an
// EndpointSlice is named "" and speaks TCP unless it says otherwise.
func registerDiscoveryDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, func(p *discoveryv1.EndpointPort) {
		if p.Name == nil {
			name := ""
			p.Name = &name
		}
		if p.Protocol == nil {
			tcp := corev1.ProtocolTCP
			p.Protocol = &tcp
		}
	})
}
