package apiextensions

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
	"github.com/apikit-dev/apikit/webhook"
)

// creationTimestampDescription is the description of the Age column kube-apiserver
// gives a CRD version without printer columns.
const creationTimestampDescription = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"

// InstallOptions adjust Install.
type InstallOptions struct {
	// Convert stands in for the conversion webhook of a CRD whose spec.conversion.strategy
	// is Webhook: it converts obj (a copy) in place to the version to. Without it, such
	// a CRD's webhook is called (NewWebhookConverter, with Webhook). With strategy None
	// it is not used: objects convert by rewriting apiVersion.
	Convert conversion.UnstructuredConverter
	// Webhook bounds the calls of conversion webhooks and resolves the Services they are
	// behind; without a Resolver, a webhook named by a Service is unreachable (apikit
	// reaches no cluster DNS), and reads and writes that need it fail as kube's do.
	Webhook webhook.Options
	// Rules, if set, compiles the CEL rules (x-kubernetes-validations) of each version's
	// schema at Install, so that a CRD with a rule that does not compile or costs too
	// much is refused there, as kube-apiserver refuses it at creation. Without it, the
	// rules are compiled where the resource is served (rest.Options.Rules).
	Rules structural.RuleCompiler
}

// Install validates a CRD (after SetDefaults, on a copy) and registers it in s, so that
// a rest.Handler built on s serves it like a kind defined in Go:
//
//   - each served version's kind and list kind as unstructured kinds, with the
//     version's schema (openapi.Register), which documents, kubectl explain, strategic
//     merge, server-side apply and schema enforcement use;
//   - one scheme.Resource: plural, singular, short names, categories, scope, kind and
//     list kind, the storage version, and each deprecated version's warning
//     (Resource.Deprecations, "" for kube's default text);
//   - the conversion between versions: apiVersion rewriting (strategy None) or
//     the CRD's conversion webhook or opts.Convert (strategy Webhook), through
//     conversion.RegisterUnstructured.
//
// A scheme.Resource has one set of subresources, printer columns and selectable fields,
// where a CRD has one per version: Install takes the storage version's (kube-apiserver
// serves each version's own; the versions of most CRDs agree). A version without printer
// columns gets kube's single Age column. Versions are ordered as kube orders a CRD's
// versions (GA over beta over alpha, higher first), which is the scheme's default order,
// so Install sets no version priority. The storage version must be served.
//
// An invalid CRD is refused with a *scheme.Status error carrying kube's message and one
// cause per field; a kind or resource already registered is refused before s changes.
func Install(s *scheme.Scheme, crd *CustomResourceDefinition, opts InstallOptions) error {
	crd = crd.DeepCopy()
	SetDefaults(crd)
	gk := scheme.GroupKind{Group: GroupVersion.Group, Kind: "CustomResourceDefinition"}
	if errs := Validate(crd); len(errs) > 0 {
		return fmt.Errorf("apiextensions: %w", errs.ToStatus(gk, crd.Name))
	}
	if opts.Rules != nil {
		if errs := ValidateRules(crd, opts.Rules); len(errs) > 0 {
			return fmt.Errorf("apiextensions: %w", errs.ToStatus(gk, crd.Name))
		}
	}
	spec := &crd.Spec
	convert := opts.Convert
	if spec.Conversion != nil && spec.Conversion.Strategy == WebhookConverter && convert == nil {
		var err error
		if convert, err = NewWebhookConverter(crd, opts.Webhook); err != nil {
			return err
		}
	}
	storage := storageVersionOf(crd)
	if storage == nil || !storage.Served {
		return fmt.Errorf("apiextensions: CustomResourceDefinition %q: the storage version %q is not served; apikit serves the storage version", crd.Name, crd.StorageVersion())
	}
	if err := checkFree(s, crd); err != nil {
		return err
	}

	deprecations := map[string]string{}
	for _, v := range spec.Versions {
		if !v.Served {
			continue
		}
		gv := scheme.GroupVersion{Group: spec.Group, Version: v.Name}
		s.AddUnstructuredKind(gv.WithKind(spec.Names.Kind))
		s.AddUnstructuredKind(gv.WithKind(spec.Names.ListKind))
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			openapi.Register(s, gv.WithKind(spec.Names.Kind), v.Schema.OpenAPIV3Schema)
		}
		if v.Deprecated {
			deprecations[v.Name] = ""
			if v.DeprecationWarning != nil {
				deprecations[v.Name] = *v.DeprecationWarning
			}
		}
	}
	if spec.Conversion != nil && spec.Conversion.Strategy == WebhookConverter {
		conversion.RegisterUnstructured(s, scheme.GroupKind{Group: spec.Group, Kind: spec.Names.Kind}, convert)
	}
	res := scheme.Resource{
		Group:             spec.Group,
		Kind:              spec.Names.Kind,
		ListKind:          spec.Names.ListKind,
		Plural:            spec.Names.Plural,
		Singular:          spec.Names.Singular,
		ShortNames:        spec.Names.ShortNames,
		Categories:        spec.Names.Categories,
		Namespaced:        spec.Scope == NamespaceScoped,
		Verbs:             customResourceVerbs,
		StatusSubresource: storage.Subresources != nil && storage.Subresources.Status != nil,
		PrinterColumns:    printerColumns(storage.AdditionalPrinterColumns),
		StorageVersion:    storage.Name,
	}
	if sr := storage.Subresources; sr != nil && sr.Scale != nil {
		res.Scale = &scheme.ScaleSubresource{SpecReplicasPath: sr.Scale.SpecReplicasPath, StatusReplicasPath: sr.Scale.StatusReplicasPath}
		if sr.Scale.LabelSelectorPath != nil {
			res.Scale.LabelSelectorPath = *sr.Scale.LabelSelectorPath
		}
	}
	for _, f := range storage.SelectableFields {
		res.SelectableFields = append(res.SelectableFields, strings.TrimPrefix(f.JSONPath, "."))
	}
	if len(deprecations) > 0 {
		res.Deprecations = deprecations
	}
	if err := s.AddResource(res); err != nil {
		return fmt.Errorf("apiextensions: CustomResourceDefinition %q: %w", crd.Name, err)
	}
	return nil
}

// customResourceVerbs are the verbs of a custom resource, in the order
// apiextensions-apiserver's discovery lists them (not sorted, unlike built-in resources').
var customResourceVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// InstallAll installs each CRD (from Load, for example), stopping at the first error.
func InstallAll(s *scheme.Scheme, crds []*CustomResourceDefinition, opts InstallOptions) error {
	for _, crd := range crds {
		if err := Install(s, crd, opts); err != nil {
			return err
		}
	}
	return nil
}

func storageVersionOf(crd *CustomResourceDefinition) *CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Storage {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

// checkFree refuses a CRD whose resource or kinds the scheme already has, so that a
// failed Install leaves the scheme as it was.
func checkFree(s *scheme.Scheme, crd *CustomResourceDefinition) error {
	spec := &crd.Spec
	gr := scheme.GroupResource{Group: spec.Group, Resource: spec.Names.Plural}
	if _, ok := s.Resource(gr); ok {
		return fmt.Errorf("apiextensions: CustomResourceDefinition %q: resource %s is already registered", crd.Name, gr)
	}
	var errs []error
	// A kind is one resource's in all its versions: served at another version by a new
	// resource, it would take the objects of the kind (owner references, the garbage
	// collector) from the resource that has them.
	if r, ok := s.ResourceFor(scheme.GroupKind{Group: spec.Group, Kind: spec.Names.Kind}); ok {
		errs = append(errs, fmt.Errorf("kind %s is the kind of resource %s", scheme.GroupKind{Group: spec.Group, Kind: spec.Names.Kind}, r.GroupResource()))
	}
	for _, v := range spec.Versions {
		if !v.Served {
			continue
		}
		for _, kind := range []string{spec.Names.Kind, spec.Names.ListKind} {
			if gvk := (scheme.GroupVersionKind{Group: spec.Group, Version: v.Name, Kind: kind}); s.Recognizes(gvk) {
				errs = append(errs, fmt.Errorf("kind %v is already registered", gvk))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("apiextensions: CustomResourceDefinition %q: %w", crd.Name, errors.Join(errs...))
	}
	return nil
}

func printerColumns(cols []CustomResourceColumnDefinition) []scheme.PrinterColumn {
	if len(cols) == 0 {
		return []scheme.PrinterColumn{{Name: "Age", Type: "date", Description: creationTimestampDescription, JSONPath: ".metadata.creationTimestamp"}}
	}
	out := make([]scheme.PrinterColumn, len(cols))
	for i, c := range cols {
		out[i] = scheme.PrinterColumn{Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, JSONPath: c.JSONPath, Priority: c.Priority}
	}
	return out
}

// ValidateRules compiles the CEL rules of every version's schema with rules, as
// kube-apiserver does when a CRD is created or updated, with the field paths
// Validate uses for that schema.
func ValidateRules(crd *CustomResourceDefinition, rules structural.RuleCompiler) validation.ErrorList {
	h := hoist(&crd.Spec)
	var errs validation.ErrorList
	compile := func(v *CustomResourceValidation, p *validation.Path) {
		if v == nil || v.OpenAPIV3Schema == nil {
			return
		}
		sp := p.Child("openAPIV3Schema")
		compiled, cerrs := structural.Compile(v.OpenAPIV3Schema, sp)
		if len(cerrs) > 0 {
			errs = append(errs, cerrs...)
			return
		}
		_, rerrs := rules.Compile(compiled, sp)
		errs = append(errs, rerrs...)
	}
	compile(h.schema, validation.NewPath("spec", "validation"))
	for i := range h.versions {
		compile(h.versions[i].Schema, validation.NewPath("spec", "versions").Index(i).Child("schema"))
	}
	return errs
}
