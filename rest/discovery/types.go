package discovery

// The wire types below are meta/v1 and apidiscovery.k8s.io/v2 JSON shapes, field for
// field, so that client-go decodes them unchanged.

// APIVersions is what /api answers: the versions of the core (legacy) group.
type APIVersions struct {
	Kind       string   `json:"kind"`
	APIVersion string   `json:"apiVersion,omitempty"`
	Versions   []string `json:"versions"`
	// ServerAddressByClientCIDRs tells clients how to reach the server; kube-apiserver
	// always sends it (never omitted) with its advertised address for 0.0.0.0/0.
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

// ServerAddressByClientCIDR is the address clients in a CIDR should use.
type ServerAddressByClientCIDR struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

// APIGroupList is what /apis answers: every named group.
type APIGroupList struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Groups     []APIGroup `json:"groups"`
}

// APIGroup is what /apis/GROUP answers: a group's versions and the preferred one.
type APIGroup struct {
	Kind             string                     `json:"kind,omitempty"`
	APIVersion       string                     `json:"apiVersion,omitempty"`
	Name             string                     `json:"name"`
	Versions         []GroupVersionForDiscovery `json:"versions"`
	PreferredVersion GroupVersionForDiscovery   `json:"preferredVersion"`
}

// GroupVersionForDiscovery names one version of a group: "toys.example.com/v1" and "v1".
type GroupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

// APIResourceList is what /apis/GROUP/VERSION (and /api/v1) answers: the resources and
// subresources served at that group version.
type APIResourceList struct {
	Kind         string        `json:"kind"`
	APIVersion   string        `json:"apiVersion"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []APIResource `json:"resources"`
}

// APIResource describes one resource ("widgets") or subresource ("widgets/status").
// Group and Version are set only when the kind lives elsewhere (autoscaling/v1 Scale).
type APIResource struct {
	Name               string   `json:"name"`
	SingularName       string   `json:"singularName"`
	Namespaced         bool     `json:"namespaced"`
	Group              string   `json:"group,omitempty"`
	Version            string   `json:"version,omitempty"`
	Kind               string   `json:"kind"`
	Verbs              []string `json:"verbs"`
	ShortNames         []string `json:"shortNames,omitempty"`
	Categories         []string `json:"categories,omitempty"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty"`
}

// APIGroupDiscoveryList is aggregated discovery (apidiscovery.k8s.io/v2, or v2beta1 of
// the same shape): every group, version and resource in one document.
type APIGroupDiscoveryList struct {
	Kind       string              `json:"kind"`
	APIVersion string              `json:"apiVersion"`
	Metadata   struct{}            `json:"metadata"`
	Items      []APIGroupDiscovery `json:"items"`
}

// APIGroupDiscovery is one group of aggregated discovery; versions are most preferred first.
type APIGroupDiscovery struct {
	Metadata GroupMetadata         `json:"metadata"`
	Versions []APIVersionDiscovery `json:"versions,omitempty"`
}

// GroupMetadata carries the group's name ("" for the core group) as metadata.name.
type GroupMetadata struct {
	Name string `json:"name,omitempty"`
}

// APIVersionDiscovery is one version of a group in aggregated discovery.
type APIVersionDiscovery struct {
	Version   string                 `json:"version"`
	Resources []APIResourceDiscovery `json:"resources,omitempty"`
	// Freshness is always "Current": apikit serves its own resources only.
	Freshness string `json:"freshness,omitempty"`
}

// APIResourceDiscovery is one resource of aggregated discovery with its subresources.
type APIResourceDiscovery struct {
	Resource         string                    `json:"resource"`
	ResponseKind     *GroupVersionKind         `json:"responseKind,omitempty"`
	Scope            string                    `json:"scope"`
	SingularResource string                    `json:"singularResource"`
	Verbs            []string                  `json:"verbs"`
	ShortNames       []string                  `json:"shortNames,omitempty"`
	Categories       []string                  `json:"categories,omitempty"`
	Subresources     []APISubresourceDiscovery `json:"subresources,omitempty"`
}

// APISubresourceDiscovery is one subresource ("status", "scale") in aggregated discovery.
type APISubresourceDiscovery struct {
	Subresource  string            `json:"subresource"`
	ResponseKind *GroupVersionKind `json:"responseKind,omitempty"`
	Verbs        []string          `json:"verbs"`
}

// GroupVersionKind is meta/v1 GroupVersionKind with its lower-case JSON names.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// Scopes of APIResourceDiscovery.Scope.
const (
	ScopeNamespaced = "Namespaced"
	ScopeCluster    = "Cluster"
)

// VersionInfo is what /version answers, k8s.io/apimachinery/pkg/version.Info's shape.
type VersionInfo struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}
