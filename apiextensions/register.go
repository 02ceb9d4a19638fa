package apiextensions

import (
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// GroupVersion is apiextensions.k8s.io/v1.
var GroupVersion = scheme.GroupVersion{Group: "apiextensions.k8s.io", Version: "v1"}

// Resource is the group and plural name the CRDs themselves are served under.
var Resource = scheme.GroupResource{Group: GroupVersion.Group, Resource: "customresourcedefinitions"}

// AddToScheme registers CustomResourceDefinition and CustomResourceDefinitionList at
// apiextensions.k8s.io/v1 and their resource as kube-apiserver serves it:
// cluster-scoped customresourcedefinitions (short names crd, crds, category api-extensions)
// with a status subresource and the default table (NAME, CREATED AT).
func AddToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(GroupVersion, &CustomResourceDefinition{}, &CustomResourceDefinitionList{})
	return s.AddResource(scheme.Resource{
		Group:             GroupVersion.Group,
		Kind:              "CustomResourceDefinition",
		ListKind:          "CustomResourceDefinitionList",
		Plural:            Resource.Resource,
		Singular:          "customresourcedefinition",
		ShortNames:        []string{"crd", "crds"},
		Categories:        []string{"api-extensions"},
		StatusSubresource: true,
	})
}

// SetDefaults applies the defaults kube-apiserver gives an apiextensions.k8s.io/v1 CRD
// when it decodes one: names.singular is lower(kind), names.listKind is kind+"List",
// conversion is {strategy: None}, a webhook service's port is 443, and
// status.storedVersions starts with the storage version. Decode and Load apply them;
// call it on CRDs built in Go before Validate.
func SetDefaults(crd *CustomResourceDefinition) {
	names := &crd.Spec.Names
	if names.Singular == "" {
		names.Singular = strings.ToLower(names.Kind)
	}
	if names.ListKind == "" && names.Kind != "" {
		names.ListKind = names.Kind + "List"
	}
	if crd.Spec.Conversion == nil {
		crd.Spec.Conversion = &CustomResourceConversion{Strategy: NoneConverter}
	}
	if wh := crd.Spec.Conversion.Webhook; wh != nil && wh.ClientConfig != nil && wh.ClientConfig.Service != nil && wh.ClientConfig.Service.Port == nil {
		port := int32(443)
		wh.ClientConfig.Service.Port = &port
	}
	if len(crd.Status.StoredVersions) == 0 {
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
				break
			}
		}
	}
}
