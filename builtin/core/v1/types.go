package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the legacy core group's one version, served under /api/v1.
var SchemeGroupVersion = scheme.GroupVersion{Group: "", Version: "v1"}

// Resource names of the core/v1 kinds.
var (
	Namespaces      = scheme.GroupResource{Resource: "namespaces"}
	ConfigMaps      = scheme.GroupResource{Resource: "configmaps"}
	Secrets         = scheme.GroupResource{Resource: "secrets"}
	ServiceAccounts = scheme.GroupResource{Resource: "serviceaccounts"}
	Events          = scheme.GroupResource{Resource: "events"}
	Pods            = scheme.GroupResource{Resource: "pods"}
	PodTemplates    = scheme.GroupResource{Resource: "podtemplates"}
	Services        = scheme.GroupResource{Resource: "services"}
	// EndpointsResource and ResourceQuotasResource: Endpoints is the kind's type and
	// ResourceQuotas the quota's ResourceName for them.
	EndpointsResource      = scheme.GroupResource{Resource: "endpoints"}
	PersistentVolumeClaims = scheme.GroupResource{Resource: "persistentvolumeclaims"}
	PersistentVolumes      = scheme.GroupResource{Resource: "persistentvolumes"}
	Nodes                  = scheme.GroupResource{Resource: "nodes"}
	ReplicationControllers = scheme.GroupResource{Resource: "replicationcontrollers"}
	ResourceQuotasResource = scheme.GroupResource{Resource: "resourcequotas"}
	LimitRanges            = scheme.GroupResource{Resource: "limitranges"}
	Bindings               = scheme.GroupResource{Resource: "bindings"}
)

// Namespace is a cluster-scoped scope for names; its lifecycle (phase Terminating,
// finalizers) is the namespace controller's business.
type Namespace struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec holds the finalizers that must be cleared before the namespace is removed.
	Spec NamespaceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the phase and conditions of the namespace.
	Status NamespaceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NamespaceSpec is the desired state of a Namespace.
type NamespaceSpec struct {
	// Finalizers must all be removed before the namespace is deleted ("kubernetes").
	Finalizers []string `json:"finalizers,omitempty" protobuf:"bytes,1,rep,name=finalizers,casttype=FinalizerName"`
}

// NamespaceStatus is the observed state of a Namespace.
type NamespaceStatus struct {
	// Phase is Active or Terminating.
	Phase string `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=NamespacePhase"`
	// Conditions are the namespace controller's observations, keyed by type.
	Conditions []NamespaceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" listType:"map" listMapKeys:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// NamespaceCondition is one observation of a namespace's state.
type NamespaceCondition struct {
	Type               string      `json:"type" protobuf:"bytes,1,opt,name=type,casttype=NamespaceConditionType"`
	Status             string      `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastTransitionTime scheme.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string      `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string      `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NamespaceList is a list of Namespaces.
type NamespaceList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Namespace `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ConfigMap holds configuration as text (data) and bytes (binaryData).
type ConfigMap struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Immutable, once true, forbids changing data and binaryData and turning it off.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,4,opt,name=immutable"`
	// Data are UTF-8 values by key.
	Data map[string]string `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// BinaryData are byte values by key, base64 in JSON.
	BinaryData map[string][]byte `json:"binaryData,omitempty" protobuf:"bytes,3,rep,name=binaryData"`
}

// ConfigMapList is a list of ConfigMaps.
type ConfigMapList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ConfigMap `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// SecretTypeOpaque is the type of a Secret that sets none.
const SecretTypeOpaque = "Opaque"

// Secret holds sensitive bytes by key.
type Secret struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Immutable, once true, forbids changing data and turning it off.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,5,opt,name=immutable"`
	// Data are byte values by key, base64 in JSON.
	Data map[string][]byte `json:"data,omitempty" protobuf:"bytes,2,rep,name=data"`
	// StringData is write-only: the server merges it into data and never returns it.
	StringData map[string]string `json:"stringData,omitempty" protobuf:"bytes,4,rep,name=stringData"`
	// Type says what the secret holds; it cannot change. Defaults to Opaque.
	Type string `json:"type,omitempty" protobuf:"bytes,3,opt,name=type,casttype=SecretType"`
}

// SecretList is a list of Secrets.
type SecretList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Secret `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceAccount is an identity for processes that run in pods.
type ServiceAccount struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Secrets                      []ObjectReference      `json:"secrets,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=secrets"`
	ImagePullSecrets             []LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,3,rep,name=imagePullSecrets"`
	AutomountServiceAccountToken *bool                  `json:"automountServiceAccountToken,omitempty" protobuf:"varint,4,opt,name=automountServiceAccountToken"`
}

// ServiceAccountList is a list of ServiceAccounts.
type ServiceAccountList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ServiceAccount `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Event (core/v1) is a report of something that happened to an object; the form
// client-go's record.EventRecorder writes.
type Event struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`

	InvolvedObject     ObjectReference  `json:"involvedObject" protobuf:"bytes,2,opt,name=involvedObject"`
	Reason             string           `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	Message            string           `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	Source             EventSource      `json:"source,omitempty" protobuf:"bytes,5,opt,name=source"`
	FirstTimestamp     scheme.Time      `json:"firstTimestamp,omitempty" protobuf:"bytes,6,opt,name=firstTimestamp"`
	LastTimestamp      scheme.Time      `json:"lastTimestamp,omitempty" protobuf:"bytes,7,opt,name=lastTimestamp"`
	Count              int32            `json:"count,omitempty" protobuf:"varint,8,opt,name=count"`
	Type               string           `json:"type,omitempty" protobuf:"bytes,9,opt,name=type"`
	EventTime          scheme.MicroTime `json:"eventTime,omitempty" protobuf:"bytes,10,opt,name=eventTime"`
	Series             *EventSeries     `json:"series,omitempty" protobuf:"bytes,11,opt,name=series"`
	Action             string           `json:"action,omitempty" protobuf:"bytes,12,opt,name=action"`
	Related            *ObjectReference `json:"related,omitempty" protobuf:"bytes,13,opt,name=related"`
	ReportingComponent string           `json:"reportingComponent" protobuf:"bytes,14,opt,name=reportingComponent"`
	ReportingInstance  string           `json:"reportingInstance" protobuf:"bytes,15,opt,name=reportingInstance"`
}

// EventSource is the component (and host) that reported an Event.
type EventSource struct {
	Component string `json:"component,omitempty" protobuf:"bytes,1,opt,name=component"`
	Host      string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// EventSeries counts the repetitions of an Event (core/v1 and events.k8s.io/v1).
type EventSeries struct {
	Count            int32            `json:"count,omitempty" protobuf:"varint,1,name=count"`
	LastObservedTime scheme.MicroTime `json:"lastObservedTime,omitempty" protobuf:"bytes,2,name=lastObservedTime"`
}

// EventList is a list of core/v1 Events.
type EventList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}
