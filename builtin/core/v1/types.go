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
)

// Namespace is a cluster-scoped scope for names; its lifecycle (phase Terminating,
// finalizers) is the namespace controller's business.
type Namespace struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the finalizers that must be cleared before the namespace is removed.
	Spec NamespaceSpec `json:"spec,omitempty"`
	// Status is the phase and conditions of the namespace.
	Status NamespaceStatus `json:"status,omitempty"`
}

// NamespaceSpec is the desired state of a Namespace.
type NamespaceSpec struct {
	// Finalizers must all be removed before the namespace is deleted ("kubernetes").
	Finalizers []string `json:"finalizers,omitempty"`
}

// NamespaceStatus is the observed state of a Namespace.
type NamespaceStatus struct {
	// Phase is Active or Terminating.
	Phase string `json:"phase,omitempty"`
	// Conditions are the namespace controller's observations, keyed by type.
	Conditions []NamespaceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" listType:"map" listMapKeys:"type"`
}

// NamespaceCondition is one observation of a namespace's state.
type NamespaceCondition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	LastTransitionTime scheme.Time `json:"lastTransitionTime,omitempty"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
}

// NamespaceList is a list of Namespaces.
type NamespaceList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Namespace `json:"items"`
}

// ConfigMap holds configuration as text (data) and bytes (binaryData).
type ConfigMap struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	// Immutable, once true, forbids changing data and binaryData and turning it off.
	Immutable *bool `json:"immutable,omitempty"`
	// Data are UTF-8 values by key.
	Data map[string]string `json:"data,omitempty"`
	// BinaryData are byte values by key, base64 in JSON.
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// ConfigMapList is a list of ConfigMaps.
type ConfigMapList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []ConfigMap `json:"items"`
}

// SecretTypeOpaque is the type of a Secret that sets none.
const SecretTypeOpaque = "Opaque"

// Secret holds sensitive bytes by key.
type Secret struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	// Immutable, once true, forbids changing data and turning it off.
	Immutable *bool `json:"immutable,omitempty"`
	// Data are byte values by key, base64 in JSON.
	Data map[string][]byte `json:"data,omitempty"`
	// StringData is write-only: the server merges it into data and never returns it.
	StringData map[string]string `json:"stringData,omitempty"`
	// Type says what the secret holds; it cannot change. Defaults to Opaque.
	Type string `json:"type,omitempty"`
}

// SecretList is a list of Secrets.
type SecretList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Secret `json:"items"`
}

// ServiceAccount is an identity for processes that run in pods.
type ServiceAccount struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Secrets                      []ObjectReference      `json:"secrets,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	ImagePullSecrets             []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	AutomountServiceAccountToken *bool                  `json:"automountServiceAccountToken,omitempty"`
}

// ServiceAccountList is a list of ServiceAccounts.
type ServiceAccountList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []ServiceAccount `json:"items"`
}

// ObjectReference points at any object, optionally at a field inside it.
type ObjectReference struct {
	Kind            string     `json:"kind,omitempty"`
	Namespace       string     `json:"namespace,omitempty"`
	Name            string     `json:"name,omitempty"`
	UID             scheme.UID `json:"uid,omitempty"`
	APIVersion      string     `json:"apiVersion,omitempty"`
	ResourceVersion string     `json:"resourceVersion,omitempty"`
	FieldPath       string     `json:"fieldPath,omitempty"`
}

// Event (core/v1) is a report of something that happened to an object; the form
// client-go's record.EventRecorder writes.
type Event struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata"`

	InvolvedObject     ObjectReference  `json:"involvedObject"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
	Source             EventSource      `json:"source,omitempty"`
	FirstTimestamp     scheme.Time      `json:"firstTimestamp,omitempty"`
	LastTimestamp      scheme.Time      `json:"lastTimestamp,omitempty"`
	Count              int32            `json:"count,omitempty"`
	Type               string           `json:"type,omitempty"`
	EventTime          scheme.MicroTime `json:"eventTime,omitempty"`
	Series             *EventSeries     `json:"series,omitempty"`
	Action             string           `json:"action,omitempty"`
	Related            *ObjectReference `json:"related,omitempty"`
	ReportingComponent string           `json:"reportingComponent"`
	ReportingInstance  string           `json:"reportingInstance"`
}

// EventSource is the component (and host) that reported an Event.
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// EventSeries counts the repetitions of an Event (core/v1 and events.k8s.io/v1).
type EventSeries struct {
	Count            int32            `json:"count,omitempty"`
	LastObservedTime scheme.MicroTime `json:"lastObservedTime,omitempty"`
}

// EventList is a list of core/v1 Events.
type EventList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Event `json:"items"`
}
