package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the group of Leases.
var SchemeGroupVersion = scheme.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}

// Leases is the resource of Leases.
var Leases = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "leases"}

// Lease is a lock with a holder and an expiry, the object of leader election.
type Lease struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Spec LeaseSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// LeaseSpec is who holds a Lease and until when.
type LeaseSpec struct {
	HolderIdentity       *string           `json:"holderIdentity,omitempty" protobuf:"bytes,1,opt,name=holderIdentity"`
	LeaseDurationSeconds *int32            `json:"leaseDurationSeconds,omitempty" protobuf:"varint,2,opt,name=leaseDurationSeconds"`
	AcquireTime          *scheme.MicroTime `json:"acquireTime,omitempty" protobuf:"bytes,3,opt,name=acquireTime"`
	RenewTime            *scheme.MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`
	LeaseTransitions     *int32            `json:"leaseTransitions,omitempty" protobuf:"varint,5,opt,name=leaseTransitions"`
	Strategy             *string           `json:"strategy,omitempty" protobuf:"bytes,6,opt,name=strategy"`
	PreferredHolder      *string           `json:"preferredHolder,omitempty" protobuf:"bytes,7,opt,name=preferredHolder"`
}

// LeaseList is a list of Leases.
type LeaseList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Lease `json:"items" protobuf:"bytes,2,rep,name=items"`
}
