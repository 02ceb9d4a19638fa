package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the group of Leases.
var SchemeGroupVersion = scheme.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}

// Leases is the resource of Leases.
var Leases = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "leases"}

// Lease is a lock with a holder and an expiry, the object of leader election.
type Lease struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec LeaseSpec `json:"spec,omitempty"`
}

// LeaseSpec is who holds a Lease and until when.
type LeaseSpec struct {
	HolderIdentity       *string           `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32            `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *scheme.MicroTime `json:"acquireTime,omitempty"`
	RenewTime            *scheme.MicroTime `json:"renewTime,omitempty"`
	LeaseTransitions     *int32            `json:"leaseTransitions,omitempty"`
	Strategy             *string           `json:"strategy,omitempty"`
	PreferredHolder      *string           `json:"preferredHolder,omitempty"`
}

// LeaseList is a list of Leases.
type LeaseList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Lease `json:"items"`
}
