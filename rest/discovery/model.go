package discovery

import (
	"crypto/sha256"
	"encoding/base64"
	"slices"

	"github.com/apikit-dev/apikit/scheme"
)

// StorageVersionHash is kube-apiserver's storageVersionHash of a kind's storage version:
// the standard base64 of the first 8 bytes of the SHA-256 of "group/version/kind" (the
// core group is empty: "/v1/Pod"). Clients compare it to notice storage migrations.
func StorageVersionHash(group, version, kind string) string {
	if kind == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// model is what every discovery document is rendered from: the served groups in order,
// each with its served versions (most preferred first) and their resources.
type model struct {
	groups []groupModel
}

type groupModel struct {
	name     string
	versions []versionModel
}

type versionModel struct {
	version   string
	resources []resourceModel // sorted by plural name
}

type resourceModel struct {
	r           *scheme.Resource
	storageHash string
	// strategic is set for kinds with a Go type, which take strategic merge patches
	// (kinds served as unstructured objects do not, like custom resources).
	strategic bool
}

// buildModel collects the resources of s by group and version. Groups without a served
// resource (a group that only holds helper kinds) are left out, as are versions in which
// no resource's kind is registered.
func buildModel(s *scheme.Scheme) model {
	var m model
	for _, group := range s.Groups() {
		g := groupModel{name: group}
		for _, v := range s.Versions(group) {
			vm := versionModel{version: v}
			for _, r := range s.Resources() {
				if r.Group != group || !slices.Contains(s.ServedVersions(r), v) {
					continue
				}
				rm := resourceModel{r: r, strategic: !s.IsUnstructured(scheme.GroupVersionKind{Group: group, Version: v, Kind: r.Kind})}
				// As kube-apiserver: the hash of where the objects are stored (the core
				// Event for events.k8s.io's events), none for a resource that stores
				// nothing (a review, which serves only create).
				if stored := s.StorageResource(r); stored.Serves("get") || stored.Serves("list") {
					if sv := s.StorageVersion(stored); sv != "" {
						rm.storageHash = StorageVersionHash(stored.Group, sv, stored.Kind)
					}
				}
				vm.resources = append(vm.resources, rm)
			}
			if len(vm.resources) > 0 {
				g.versions = append(g.versions, vm)
			}
		}
		if len(g.versions) > 0 {
			m.groups = append(m.groups, g)
		}
	}
	return m
}

// scaleKind is the kind every scale subresource reads and writes.
var scaleKind = scheme.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// subresourceKind is the kind a subresource of r answers with at version v.
func subresourceKind(r *scheme.Resource, v, sub string) scheme.GroupVersionKind {
	if sub == "scale" {
		return scaleKind
	}
	if o := r.Subresource(sub); o != nil && o.Kind.Kind != "" {
		return o.Kind
	}
	return scheme.GroupVersionKind{Group: r.Group, Version: v, Kind: r.Kind}
}

// subresourceVerbs are the verbs discovery lists for a subresource: its own for one of
// OtherSubresources, else those of status and scale.
func subresourceVerbs(r *scheme.Resource, sub string) []string {
	if o := r.Subresource(sub); o != nil {
		return o.Verbs
	}
	return SubresourceVerbs
}

func groupVersionString(group, version string) string {
	return scheme.GroupVersion{Group: group, Version: version}.String()
}
