package apiextensions

import (
	"slices"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// The field names, tags and their order below are those of
// k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1, so that a CRD encodes to the
// same JSON bytes (Go's encoding/json writes struct fields in declaration order). Status
// and LastTransitionTime are structs with `omitempty`, which encoding/json ignores: they
// are always written, as kube writes them.

// KubeAPIApprovedAnnotation is the annotation a CRD of a protected group (*.k8s.io,
// *.kubernetes.io) must carry: a URL of the API review, or a reason starting with
// "unapproved".
const KubeAPIApprovedAnnotation = "api-approved.kubernetes.io"

// CustomResourceCleanupFinalizer is the finalizer kube-apiserver puts on a CRD so that
// its custom objects are deleted before it.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// CustomResourceDefinition describes a resource served from a schema instead of a Go
// type: apiextensions.k8s.io/v1 CustomResourceDefinition.
type CustomResourceDefinition struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              CustomResourceDefinitionSpec   `json:"spec"`
	Status            CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionList is a list of CustomResourceDefinitions.
type CustomResourceDefinitionList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []CustomResourceDefinition `json:"items"`
}

// CustomResourceDefinitionSpec says how a custom resource is named, scoped, versioned
// and converted.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the resource; metadata.name must be plural.group.
	Group string                        `json:"group"`
	Names CustomResourceDefinitionNames `json:"names"`
	Scope ResourceScope                 `json:"scope"`
	// Versions are the served versions; exactly one is the storage version.
	Versions   []CustomResourceDefinitionVersion `json:"versions"`
	Conversion *CustomResourceConversion         `json:"conversion,omitempty"`
	// PreserveUnknownFields must be false in apiextensions.k8s.io/v1; use
	// x-kubernetes-preserve-unknown-fields in the schema instead.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// ConversionStrategyType is how objects convert between the versions of a CRD.
type ConversionStrategyType string

const (
	// NoneConverter converts by rewriting apiVersion only.
	NoneConverter ConversionStrategyType = "None"
	// WebhookConverter calls a conversion webhook (or InstallOptions.Convert in its place).
	WebhookConverter ConversionStrategyType = "Webhook"
)

// CustomResourceConversion is spec.conversion.
type CustomResourceConversion struct {
	Strategy ConversionStrategyType `json:"strategy"`
	Webhook  *WebhookConversion     `json:"webhook,omitempty"`
}

// WebhookConversion is spec.conversion.webhook: where the webhook is and the
// ConversionReview versions it reads (NewWebhookConverter calls it; a Go function
// given to Install may stand in for it).
type WebhookConversion struct {
	ClientConfig             *WebhookClientConfig `json:"clientConfig,omitempty"`
	ConversionReviewVersions []string             `json:"conversionReviewVersions"`
}

// WebhookClientConfig says how to reach a conversion webhook: a URL or a Service.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty"`
	Service  *ServiceReference `json:"service,omitempty"`
	CABundle []byte            `json:"caBundle,omitempty"`
}

// ServiceReference names the Service of a conversion webhook.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// CustomResourceDefinitionVersion is one version of a CRD, with its own schema,
// subresources, printer columns and selectable fields.
type CustomResourceDefinitionVersion struct {
	Name    string `json:"name"`
	Served  bool   `json:"served"`
	Storage bool   `json:"storage"`
	// Deprecated makes requests at this version answer with a Warning header:
	// DeprecationWarning if set, kube's default text otherwise.
	Deprecated               bool                             `json:"deprecated,omitempty"`
	DeprecationWarning       *string                          `json:"deprecationWarning,omitempty"`
	Schema                   *CustomResourceValidation        `json:"schema,omitempty"`
	Subresources             *CustomResourceSubresources      `json:"subresources,omitempty"`
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	SelectableFields         []SelectableField                `json:"selectableFields,omitempty"`
}

// SelectableField is a field a field selector may name, as a JSON path (".spec.color").
type SelectableField struct {
	JSONPath string `json:"jsonPath"`
}

// CustomResourceColumnDefinition is one column of table output.
type CustomResourceColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// CustomResourceDefinitionNames are the names a resource is known by.
type CustomResourceDefinitionNames struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// ResourceScope says whether objects live in namespaces.
type ResourceScope string

const (
	// ClusterScoped objects have no namespace.
	ClusterScoped ResourceScope = "Cluster"
	// NamespaceScoped objects live in a namespace.
	NamespaceScoped ResourceScope = "Namespaced"
)

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The values of a condition's status.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// CustomResourceDefinitionConditionType names a condition of a CRD's status.
type CustomResourceDefinitionConditionType string

// The condition types kube-apiserver sets on a CRD.
const (
	// Established: the resource is served (kubectl wait --for condition=established).
	Established CustomResourceDefinitionConditionType = "Established"
	// NamesAccepted: the names do not conflict with another resource's.
	NamesAccepted CustomResourceDefinitionConditionType = "NamesAccepted"
	// NonStructuralSchema: a schema is not structural (only for CRDs kept from
	// apiextensions.k8s.io/v1beta1).
	NonStructuralSchema CustomResourceDefinitionConditionType = "NonStructuralSchema"
	// Terminating: the CRD is being deleted, with its objects.
	Terminating CustomResourceDefinitionConditionType = "Terminating"
	// KubernetesAPIApprovalPolicyConformant: a CRD of a protected group carries
	// KubeAPIApprovedAnnotation.
	KubernetesAPIApprovalPolicyConformant CustomResourceDefinitionConditionType = "KubernetesAPIApprovalPolicyConformant"
	// StorageMigrating: objects are being migrated to a new storage version.
	StorageMigrating CustomResourceDefinitionConditionType = "StorageMigrating"
)

// CustomResourceDefinitionCondition is one condition of a CRD's status.
type CustomResourceDefinitionCondition struct {
	Type               CustomResourceDefinitionConditionType `json:"type"`
	Status             ConditionStatus                       `json:"status"`
	LastTransitionTime scheme.Time                           `json:"lastTransitionTime,omitempty"`
	Reason             string                                `json:"reason,omitempty"`
	Message            string                                `json:"message,omitempty"`
	ObservedGeneration int64                                 `json:"observedGeneration,omitempty"`
}

// CustomResourceDefinitionStatus is what the server observed of a CRD.
type CustomResourceDefinitionStatus struct {
	Conditions []CustomResourceDefinitionCondition `json:"conditions"`
	// AcceptedNames are the names actually served; they may lag spec.names.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames"`
	// StoredVersions are every version objects were ever stored at; a version leaves it
	// only after a storage migration.
	StoredVersions     []string `json:"storedVersions"`
	ObservedGeneration int64    `json:"observedGeneration,omitempty"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	OpenAPIV3Schema *openapi.Schema `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources are a version's status and scale subresources.
type CustomResourceSubresources struct {
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	Scale  *CustomResourceSubresourceScale  `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus enables /status; it has no fields.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale enables /scale, read from and written to these paths.
type CustomResourceSubresourceScale struct {
	SpecReplicasPath   string  `json:"specReplicasPath"`
	StatusReplicasPath string  `json:"statusReplicasPath"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty"`
}

// Condition returns the condition of the given type, or nil.
func (crd *CustomResourceDefinition) Condition(t CustomResourceDefinitionConditionType) *CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// IsConditionTrue reports whether the condition of the given type is True.
func (crd *CustomResourceDefinition) IsConditionTrue(t CustomResourceDefinitionConditionType) bool {
	c := crd.Condition(t)
	return c != nil && c.Status == ConditionTrue
}

// StorageVersion returns the name of the version marked storage, or "".
func (crd *CustomResourceDefinition) StorageVersion() string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// HasRules reports whether the schema of a served version has CEL validation rules,
// which only a server with a rule compiler can serve.
func (crd *CustomResourceDefinition) HasRules() bool {
	for _, v := range crd.Spec.Versions {
		if v.Served && v.Schema != nil && v.Schema.OpenAPIV3Schema.HasRules() {
			return true
		}
	}
	return false
}

// DeepCopy returns a copy sharing no memory with crd.
func (crd *CustomResourceDefinition) DeepCopy() *CustomResourceDefinition {
	// The schemas are copied by openapi.Schema.Clone, the rest by scheme.DeepCopy,
	// whose reflective plans do not take the recursive Schema type.
	shallow := *crd
	shallow.Spec.Versions = slices.Clone(crd.Spec.Versions)
	for i := range shallow.Spec.Versions {
		shallow.Spec.Versions[i].Schema = nil
	}
	out := scheme.DeepCopy(shallow)
	for i, v := range crd.Spec.Versions {
		if v.Schema != nil {
			out.Spec.Versions[i].Schema = &CustomResourceValidation{OpenAPIV3Schema: v.Schema.OpenAPIV3Schema.Clone()}
		}
	}
	return &out
}
