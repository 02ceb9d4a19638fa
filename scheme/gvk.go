package scheme

import (
	"fmt"
	"strings"
)

// InternalVersion is the version name of a group's internal hub: the in-memory
// representation every served version converts to and from. It never appears on the wire.
const InternalVersion = "__internal"

// GroupVersion names one version of an API group. The core group is the empty string.
type GroupVersion struct {
	Group   string
	Version string
}

// String renders the apiVersion form: "v1" for the core group, "group/version" otherwise.
func (gv GroupVersion) String() string {
	if gv.Group == "" {
		return gv.Version
	}
	return gv.Group + "/" + gv.Version
}

// Empty reports whether both group and version are unset.
func (gv GroupVersion) Empty() bool { return gv.Group == "" && gv.Version == "" }

// WithKind returns the kind in this group version.
func (gv GroupVersion) WithKind(kind string) GroupVersionKind {
	return GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
}

// WithResource returns the resource in this group version.
func (gv GroupVersion) WithResource(resource string) GroupVersionResource {
	return GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: resource}
}

// Internal returns the internal hub version of the same group.
func (gv GroupVersion) Internal() GroupVersion {
	return GroupVersion{Group: gv.Group, Version: InternalVersion}
}

// ParseGroupVersion parses an apiVersion string: "v1", "group/version", or "" (empty).
func ParseGroupVersion(apiVersion string) (GroupVersion, error) {
	if apiVersion == "" || apiVersion == "/" {
		return GroupVersion{}, nil
	}
	group, version, found := strings.Cut(apiVersion, "/")
	if !found {
		return GroupVersion{Version: apiVersion}, nil
	}
	if strings.Contains(version, "/") || version == "" {
		return GroupVersion{}, fmt.Errorf("unexpected GroupVersion string: %q", apiVersion)
	}
	return GroupVersion{Group: group, Version: version}, nil
}

// GroupKind names a kind independent of version.
type GroupKind struct {
	Group string
	Kind  string
}

// String renders "Kind.group", or "Kind" for the core group.
func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// WithVersion returns the kind at the given version.
func (gk GroupKind) WithVersion(version string) GroupVersionKind {
	return GroupVersionKind{Group: gk.Group, Version: version, Kind: gk.Kind}
}

// GroupResource names a resource independent of version.
type GroupResource struct {
	Group    string
	Resource string
}

// String renders "resource.group", or "resource" for the core group.
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// WithVersion returns the resource at the given version.
func (gr GroupResource) WithVersion(version string) GroupVersionResource {
	return GroupVersionResource{Group: gr.Group, Version: version, Resource: gr.Resource}
}

// GroupVersionKind identifies a kind at one version: what apiVersion and kind say on the wire.
type GroupVersionKind struct {
	Group   string
	Version string
	Kind    string
}

// Empty reports whether all three parts are unset.
func (gvk GroupVersionKind) Empty() bool { return gvk == GroupVersionKind{} }

// GroupVersion drops the kind.
func (gvk GroupVersionKind) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvk.Group, Version: gvk.Version}
}

// GroupKind drops the version.
func (gvk GroupVersionKind) GroupKind() GroupKind { return GroupKind{Group: gvk.Group, Kind: gvk.Kind} }

// ToAPIVersionAndKind returns the two wire fields.
func (gvk GroupVersionKind) ToAPIVersionAndKind() (apiVersion, kind string) {
	return gvk.GroupVersion().String(), gvk.Kind
}

// String renders "group/version, Kind=Kind" like apimachinery, for messages.
func (gvk GroupVersionKind) String() string {
	return gvk.Group + "/" + gvk.Version + ", Kind=" + gvk.Kind
}

// FromAPIVersionAndKind builds a GroupVersionKind from the two wire fields. An unparsable
// apiVersion yields an empty group and version, so that lookups fail with "no kind".
func FromAPIVersionAndKind(apiVersion, kind string) GroupVersionKind {
	gv, err := ParseGroupVersion(apiVersion)
	if err != nil {
		return GroupVersionKind{Kind: kind}
	}
	return gv.WithKind(kind)
}

// GroupVersionResource identifies a resource at one version: what a URL path names.
type GroupVersionResource struct {
	Group    string
	Version  string
	Resource string
}

// GroupVersion drops the resource.
func (gvr GroupVersionResource) GroupVersion() GroupVersion {
	return GroupVersion{Group: gvr.Group, Version: gvr.Version}
}

// GroupResource drops the version.
func (gvr GroupVersionResource) GroupResource() GroupResource {
	return GroupResource{Group: gvr.Group, Resource: gvr.Resource}
}

// String renders "group/version, Resource=resource".
func (gvr GroupVersionResource) String() string {
	return gvr.Group + "/" + gvr.Version + ", Resource=" + gvr.Resource
}
