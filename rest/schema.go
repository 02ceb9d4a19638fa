package rest

import (
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
)

// deprecationWarnings returns the Warning of each deprecated served version of each
// resource (scheme.Resource.Deprecations), by resource and version.
func deprecationWarnings(s *scheme.Scheme) map[scheme.GroupResource]map[string]string {
	out := map[scheme.GroupResource]map[string]string{}
	for _, res := range s.Resources() {
		for v, text := range res.Deprecations {
			if text == "" {
				text = defaultDeprecationWarning(s, res, v)
			}
			if out[res.GroupResource()] == nil {
				out[res.GroupResource()] = map[string]string{}
			}
			out[res.GroupResource()][v] = text
		}
	}
	return out
}

// defaultDeprecationWarning is kube-apiserver's text for a deprecated CRD version
// without a deprecationWarning: "example.com/v1beta1 Widget is deprecated; use
// example.com/v1 Widget", naming the highest served version that is not deprecated
// and ranks above the deprecated one, when there is one.
func defaultDeprecationWarning(s *scheme.Scheme, res *scheme.Resource, version string) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", res.Group, version, res.Kind)
	best := ""
	for _, v := range s.ServedVersions(res) {
		if _, deprecated := res.Deprecations[v]; deprecated || scheme.CompareVersions(version, v) >= 0 {
			continue
		}
		if best == "" || scheme.CompareVersions(v, best) > 0 {
			best = v
		}
	}
	if best != "" {
		msg += fmt.Sprintf("; use %s/%s %s", res.Group, best, res.Kind)
	}
	return msg
}
