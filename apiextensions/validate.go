package apiextensions

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// The facts below (rules, messages, field paths) are those of
// k8s.io/apiextensions-apiserver v0.37's ValidateCustomResourceDefinition.
//
// kube-apiserver validates its internal version of a CRD, into which
// apiextensions.k8s.io/v1 converts by moving a per-version schema, subresources,
// printer columns or selectable fields that are identical in every version up to the
// spec (spec.validation, spec.subresources, spec.additionalPrinterColumns,
// spec.selectableFields), and spec.conversion.webhook.clientConfig to
// spec.conversion.webhookClientConfig. Its error paths name those internal fields
// ("spec.validation.openAPIV3Schema.properties[spec].type" for a one-version CRD), and
// so do Validate's: a user sees exactly what kubectl apply would show.

var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
	// acceptedConversionReviewVersions are the ConversionReview versions kube-apiserver
	// speaks; a webhook must accept one of them.
	acceptedConversionReviewVersions = []string{"v1", "v1beta1"}
	// allowedAtRootWithStatus are the schema fields kube allows at the root of a schema
	// when the status subresource is on (so that properties[status] says everything
	// about status), as kube names them in its message.
	allowedAtRootWithStatus = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}
)

// MaxSelectableFields is how many selectable fields a version may have.
const MaxSelectableFields = 8

// Validate checks a CRD as kube-apiserver checks a create of apiextensions.k8s.io/v1
// CustomResourceDefinition, with its messages and field paths: metadata.name is
// plural.group, the group is a DNS subdomain with a dot, names are DNS labels, the
// scope is Namespaced or Cluster, exactly one version is the storage version, version
// names are unique DNS-1035 labels, every version has a schema and each schema is
// structural (structural.Compile), subresource paths, printer columns, selectable
// fields, the conversion strategy and webhook, status.storedVersions, the API approval
// annotation of protected groups, and preserveUnknownFields false. Validate does not
// apply defaults: Decode and Load have (SetDefaults); a CRD built in Go needs
// SetDefaults first. CEL rules are not compiled here (see InstallOptions.Rules).
func Validate(crd *CustomResourceDefinition) validation.ErrorList {
	nameFn := func(name string, prefix bool) []string {
		msgs := validation.NameIsDNSSubdomain(name, prefix)
		if name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			msgs = append(msgs, `must be spec.names.plural+"."+spec.group`)
		}
		return msgs
	}
	errs := validation.ValidateObjectMeta(&crd.ObjectMeta, false, nameFn, validation.NewPath("metadata"))
	errs = append(errs, validateSpec(&crd.Spec, specOptions{requireSchema: true, requireRecognizedReviewVersion: true}, validation.NewPath("spec"))...)
	return append(errs, validateStatusAndMore(crd, nil)...)
}

// ValidateUpdate checks an update of old to crd as kube-apiserver does: everything
// Validate checks (relaxed where old already broke a rule that was tightened later, so
// that stored CRDs stay updatable), the metadata update rules, and that spec.group and
// spec.names.plural never change, and spec.scope and spec.names.kind not once old is
// Established.
func ValidateUpdate(crd, old *CustomResourceDefinition) validation.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, validation.NewPath("metadata"))
	opts := specOptions{
		requireSchema:                  allVersionsHaveSchema(&old.Spec),
		requireRecognizedReviewVersion: old.Spec.Conversion == nil || old.Spec.Conversion.Webhook == nil || hasRecognizedOrNoReviewVersion(old.Spec.Conversion.Webhook.ConversionReviewVersions),
	}
	p := validation.NewPath("spec")
	errs = append(errs, validateSpec(&crd.Spec, opts, p)...)
	if old.IsConditionTrue(Established) {
		if crd.Spec.Scope != old.Spec.Scope {
			errs = append(errs, validation.Immutable(p.Child("scope"), crd.Spec.Scope))
		}
		if crd.Spec.Names.Kind != old.Spec.Names.Kind {
			errs = append(errs, validation.Immutable(p.Child("names", "kind"), crd.Spec.Names.Kind))
		}
	}
	if crd.Spec.Group != old.Spec.Group {
		errs = append(errs, validation.Immutable(p.Child("group"), crd.Spec.Group))
	}
	if crd.Spec.Names.Plural != old.Spec.Names.Plural {
		errs = append(errs, validation.Immutable(p.Child("names", "plural"), crd.Spec.Names.Plural))
	}
	return append(errs, validateStatusAndMore(crd, old)...)
}

// validateStatusAndMore runs the checks that follow the spec's: status names, stored
// versions, API approval and preserveUnknownFields.
func validateStatusAndMore(crd, old *CustomResourceDefinition) validation.ErrorList {
	status := validation.NewPath("status")
	errs := validateNames(&crd.Status.AcceptedNames, status.Child("acceptedNames"))
	errs = append(errs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, status.Child("storedVersions"))...)
	errs = append(errs, validateAPIApproval(crd, old)...)
	if crd.Spec.PreserveUnknownFields && (old == nil || !old.Spec.PreserveUnknownFields) {
		errs = append(errs, validation.Invalid(validation.NewPath("spec", "preserveUnknownFields"), true,
			"cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	return errs
}

type specOptions struct {
	// requireSchema: every version needs a schema (false only on updates of CRDs
	// stored before that rule).
	requireSchema bool
	// requireRecognizedReviewVersion: a webhook must accept a ConversionReview version
	// kube speaks.
	requireRecognizedReviewVersion bool
}

// hoisted is the internal view of a v1 spec: the per-version fields that are identical
// in every version, moved up to the spec, and what stays per version.
type hoisted struct {
	schema           *CustomResourceValidation
	subresources     *CustomResourceSubresources
	columns          []CustomResourceColumnDefinition
	selectableFields []SelectableField
	versions         []CustomResourceDefinitionVersion
}

func hoist(spec *CustomResourceDefinitionSpec) hoisted {
	h := hoisted{versions: slices.Clone(spec.Versions)}
	if len(h.versions) == 0 {
		return h
	}
	first := h.versions[0]
	same := [4]bool{true, true, true, true}
	for _, v := range h.versions {
		same[0] = same[0] && equalValidation(v.Schema, first.Schema)
		same[1] = same[1] && semanticEqual(v.Subresources, first.Subresources)
		same[2] = same[2] && semanticEqual(v.AdditionalPrinterColumns, first.AdditionalPrinterColumns)
		same[3] = same[3] && semanticEqual(v.SelectableFields, first.SelectableFields)
	}
	if same[0] {
		h.schema = first.Schema
	}
	if same[1] {
		h.subresources = first.Subresources
	}
	if same[2] {
		h.columns = first.AdditionalPrinterColumns
	}
	if same[3] {
		h.selectableFields = first.SelectableFields
	}
	for i := range h.versions {
		v := &h.versions[i]
		if same[0] {
			v.Schema = nil
		}
		if same[1] {
			v.Subresources = nil
		}
		if same[2] {
			v.AdditionalPrinterColumns = nil
		}
		if same[3] {
			v.SelectableFields = nil
		}
	}
	return h
}

// semanticEqual is apimachinery's semantic equality for these plain values: empty and
// nil slices are equal.
func semanticEqual[T any](a, b T) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Kind() == reflect.Slice && va.Len() == 0 && vb.Len() == 0
}

// equalValidation compares two schemas by their JSON, which is canonical (sorted keys).
func equalValidation(a, b *CustomResourceValidation) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.OpenAPIV3Schema == nil || b.OpenAPIV3Schema == nil {
		return a.OpenAPIV3Schema == b.OpenAPIV3Schema
	}
	ja, errA := json.Marshal(a.OpenAPIV3Schema)
	jb, errB := json.Marshal(b.OpenAPIV3Schema)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

func validateSpec(spec *CustomResourceDefinitionSpec, opts specOptions, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	switch {
	case spec.Group == "":
		errs = append(errs, validation.Required(p.Child("group"), ""))
	case len(validation.IsDNS1123Subdomain(spec.Group)) > 0:
		errs = append(errs, validation.Invalid(p.Child("group"), spec.Group, strings.Join(validation.IsDNS1123Subdomain(spec.Group), ",")))
	case !strings.Contains(spec.Group, "."):
		errs = append(errs, validation.Invalid(p.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}
	errs = append(errs, validateEnum(p.Child("scope"), string(spec.Scope), []string{string(ClusterScoped), string(NamespaceScoped)})...)

	h := hoist(spec)
	versionsPath := p.Child("versions")
	if h.schema == nil || h.schema.OpenAPIV3Schema == nil {
		for i, v := range h.versions {
			if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				continue
			}
			schemaPath := versionsPath.Index(i).Child("schema").Child("openAPIV3Schema")
			switch {
			case opts.requireSchema:
				errs = append(errs, validation.Required(schemaPath, ""))
			case !spec.PreserveUnknownFields && v.Served:
				errs = append(errs, validation.Required(schemaPath, "because otherwise all fields are pruned"))
			}
		}
	}
	if spec.PreserveUnknownFields && specHasDefaults(spec) {
		errs = append(errs, validation.Invalid(p.Child("preserveUnknownFields"), true, "must be false in order to use defaults in the schema"))
	}

	storageVersions := 0
	seen := map[string]bool{}
	unique := true
	for i, v := range h.versions {
		vp := versionsPath.Index(i)
		if v.Storage {
			storageVersions++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		if msgs := validation.IsDNS1035Label(v.Name); len(msgs) > 0 {
			errs = append(errs, validation.Invalid(vp.Child("name"), v.Name, strings.Join(msgs, ",")))
		}
		subresources := h.subresources
		if h.subresources == nil && hasPerVersionSubresources(h.versions) {
			subresources = v.Subresources
		}
		errs = append(errs, validateVersion(&v, vp, subresources != nil && subresources.Status != nil)...)
	}
	if !unique {
		errs = append(errs, validation.Invalid(versionsPath, spec.Versions, "must contain unique version names"))
	}
	if storageVersions != 1 {
		errs = append(errs, validation.Invalid(versionsPath, spec.Versions, "must have exactly one version marked as storage version"))
	}
	// The internal version repeats the first version's name as spec.version, and
	// checks it again there.
	if len(h.versions) > 0 && h.versions[0].Name != "" {
		if msgs := validation.IsDNS1035Label(h.versions[0].Name); len(msgs) > 0 {
			errs = append(errs, validation.Invalid(p.Child("version"), h.versions[0].Name, strings.Join(msgs, ",")))
		}
	}

	names := p.Child("names")
	for _, req := range []struct{ field, value string }{
		{"plural", spec.Names.Plural}, {"singular", spec.Names.Singular},
		{"kind", spec.Names.Kind}, {"listKind", spec.Names.ListKind},
	} {
		if req.value == "" {
			errs = append(errs, validation.Required(names.Child(req.field), ""))
		}
	}
	errs = append(errs, validateNames(&spec.Names, names)...)

	anyStatus := h.subresources != nil && h.subresources.Status != nil
	for _, v := range h.versions {
		anyStatus = anyStatus || (v.Subresources != nil && v.Subresources.Status != nil)
	}
	errs = append(errs, validateSchema(h.schema, anyStatus, p.Child("validation"))...)
	errs = append(errs, validateSubresources(h.subresources, p.Child("subresources"))...)
	for i := range h.columns {
		errs = append(errs, validateColumn(&h.columns[i], p.Child("additionalPrinterColumns").Index(i))...)
	}
	if len(h.selectableFields) > 0 {
		if h.schema == nil {
			errs = append(errs, validation.Invalid(p.Child("selectableFields"), "", "may only be set when validations.schema is included"))
		} else {
			errs = append(errs, validateSelectableFields(h.selectableFields, h.schema.OpenAPIV3Schema, p.Child("selectableFields"))...)
		}
	}

	if spec.Conversion != nil && spec.Conversion.Strategy != NoneConverter && spec.PreserveUnknownFields {
		errs = append(errs, validation.Invalid(p.Child("conversion").Child("strategy"), spec.Conversion.Strategy, "must be None if spec.preserveUnknownFields is true"))
	}
	return append(errs, validateConversion(spec.Conversion, opts.requireRecognizedReviewVersion, p.Child("conversion"))...)
}

func hasPerVersionSubresources(versions []CustomResourceDefinitionVersion) bool {
	for _, v := range versions {
		if v.Subresources != nil {
			return true
		}
	}
	return false
}

func validateEnum(p *validation.Path, value string, accepted []string) validation.ErrorList {
	if value == "" {
		return validation.ErrorList{validation.Required(p, "")}
	}
	if !slices.Contains(accepted, value) {
		return validation.ErrorList{validation.NotSupported(p, value, accepted)}
	}
	return nil
}

func validateVersion(v *CustomResourceDefinitionVersion, p *validation.Path, statusEnabled bool) validation.ErrorList {
	var errs validation.ErrorList
	for _, msg := range deprecationWarningErrors(v.Deprecated, v.DeprecationWarning) {
		errs = append(errs, validation.Invalid(p.Child("deprecationWarning"), v.DeprecationWarning, msg))
	}
	errs = append(errs, validateSchema(v.Schema, statusEnabled, p.Child("schema"))...)
	errs = append(errs, validateSubresources(v.Subresources, p.Child("subresources"))...)
	for i := range v.AdditionalPrinterColumns {
		errs = append(errs, validateColumn(&v.AdditionalPrinterColumns[i], p.Child("additionalPrinterColumns").Index(i))...)
	}
	if len(v.SelectableFields) > 0 {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, validation.Invalid(p.Child("selectableFields"), "", "may only be set when `version.schema.openAPIV3Schema` is not included"))
		} else {
			errs = append(errs, validateSelectableFields(v.SelectableFields, v.Schema.OpenAPIV3Schema, p.Child("selectableFields"))...)
		}
	}
	return errs
}

func deprecationWarningErrors(deprecated bool, warning *string) []string {
	if !deprecated && warning != nil {
		return []string{"can only be set for deprecated versions"}
	}
	if warning == nil {
		return nil
	}
	var msgs []string
	if len(*warning) > 256 {
		msgs = append(msgs, "must be <= 256 characters long")
	}
	if len(*warning) == 0 {
		msgs = append(msgs, "must not be an empty string")
	}
	for i, r := range *warning {
		if !unicode.IsPrint(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
		if unicode.IsControl(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; control character found at index %d", i))
			break
		}
	}
	if !utf8.ValidString(*warning) {
		msgs = append(msgs, "must only contain printable UTF-8 characters")
	}
	return msgs
}

// validateSchema checks one schema (a version's, or the spec's when hoisted): the root
// restrictions that depend on the CRD (status subresource, nullable), then
// structural.Compile for the schema itself.
func validateSchema(v *CustomResourceValidation, statusEnabled bool, p *validation.Path) validation.ErrorList {
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil
	}
	s := v.OpenAPIV3Schema
	var errs validation.ErrorList
	if statusEnabled {
		errs = append(errs, validateRootWithStatus(s, p)...)
	}
	// structural.Compile reports a nullable root too.
	_, compileErrs := structural.Compile(s, p.Child("openAPIV3Schema"))
	return append(errs, compileErrs...)
}

// validateRootWithStatus reports the first root field, in the order of kube's internal
// JSONSchemaProps, that is not allowed at the root of a schema when the status
// subresource is on.
func validateRootWithStatus(s *openapi.Schema, p *validation.Path) validation.ErrorList {
	_, hasRules := s.Extensions[openapi.ExtValidations]
	fields := []struct {
		name string
		set  bool
	}{
		{"Ref", s.Ref != ""}, {"Description", s.Description != ""}, {"Type", s.Type != ""},
		{"Nullable", s.Nullable}, {"Format", s.Format != ""}, {"Default", s.Default != nil},
		{"Maximum", s.Maximum != nil}, {"ExclusiveMaximum", s.ExclusiveMaximum},
		{"Minimum", s.Minimum != nil}, {"ExclusiveMinimum", s.ExclusiveMinimum},
		{"MaxLength", s.MaxLength != nil}, {"MinLength", s.MinLength != nil}, {"Pattern", s.Pattern != ""},
		{"MaxItems", s.MaxItems != nil}, {"MinItems", s.MinItems != nil}, {"UniqueItems", s.UniqueItems},
		{"MultipleOf", s.MultipleOf != nil}, {"Enum", len(s.Enum) > 0},
		{"MaxProperties", s.MaxProperties != nil}, {"MinProperties", s.MinProperties != nil},
		{"Required", len(s.Required) > 0}, {"Items", s.Items != nil},
		{"AllOf", len(s.AllOf) > 0}, {"OneOf", len(s.OneOf) > 0}, {"AnyOf", len(s.AnyOf) > 0},
		{"Not", s.Not != nil}, {"Properties", len(s.Properties) > 0},
		{"AdditionalProperties", s.AdditionalProperties != nil},
		{"XPreserveUnknownFields", s.PreserveUnknownFields}, {"XEmbeddedResource", s.EmbeddedResource},
		{"XIntOrString", s.IntOrString}, {"XListMapKeys", len(s.ListMapKeys) > 0},
		{"XListType", s.ListType != ""}, {"XMapType", s.MapType != ""}, {"XValidations", hasRules},
	}
	for _, f := range fields {
		switch {
		case !f.set:
		case f.name == "Type":
			if s.Type != "object" {
				return validation.ErrorList{validation.Invalid(p.Child("openAPIV3Schema.type"), s.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
		case !slices.Contains(allowedAtRootWithStatus, f.name):
			return validation.ErrorList{validation.Invalid(p.Child("openAPIV3Schema"), s,
				fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", allowedAtRootWithStatus))}
		}
	}
	return nil
}

func validateSubresources(sr *CustomResourceSubresources, p *validation.Path) validation.ErrorList {
	if sr == nil || sr.Scale == nil {
		return nil
	}
	var errs validation.ErrorList
	scale := sr.Scale
	for _, rp := range []struct {
		field, value, under string
	}{
		{"scale.specReplicasPath", scale.SpecReplicasPath, ".spec."},
		{"scale.statusReplicasPath", scale.StatusReplicasPath, ".status."},
	} {
		fp := p.Child(rp.field)
		switch {
		case rp.value == "":
			errs = append(errs, validation.Required(fp, ""))
		case len(validateSimpleJSONPath(rp.value, fp)) > 0:
			errs = append(errs, validateSimpleJSONPath(rp.value, fp)...)
		case !strings.HasPrefix(rp.value, rp.under):
			errs = append(errs, validation.Invalid(fp, rp.value, "should be a json path under "+strings.TrimSuffix(rp.under, ".")))
		}
	}
	if scale.LabelSelectorPath != nil && *scale.LabelSelectorPath != "" {
		lp, fp := *scale.LabelSelectorPath, p.Child("scale.labelSelectorPath")
		if pathErrs := validateSimpleJSONPath(lp, fp); len(pathErrs) > 0 {
			errs = append(errs, pathErrs...)
		} else if !strings.HasPrefix(lp, ".spec.") && !strings.HasPrefix(lp, ".status.") {
			errs = append(errs, validation.Invalid(fp, lp, "should be a json path under either .spec or .status"))
		}
	}
	return errs
}

func validateSimpleJSONPath(s string, p *validation.Path) validation.ErrorList {
	switch {
	case s == "":
		return validation.ErrorList{validation.Invalid(p, s, "must not be empty")}
	case s[0] != '.':
		return validation.ErrorList{validation.Invalid(p, s, "must be a simple json path starting with .")}
	}
	return nil
}

func validateColumn(col *CustomResourceColumnDefinition, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if col.Name == "" {
		errs = append(errs, validation.Required(p.Child("name"), ""))
	}
	typesMsg := "must be one of " + strings.Join(printerColumnTypes, ",")
	switch {
	case col.Type == "":
		errs = append(errs, validation.Required(p.Child("type"), typesMsg))
	case !slices.Contains(printerColumnTypes, col.Type):
		errs = append(errs, validation.Invalid(p.Child("type"), col.Type, typesMsg))
	}
	if col.Format != "" && !slices.Contains(printerColumnFormats, col.Format) {
		errs = append(errs, validation.Invalid(p.Child("format"), col.Format, "must be one of "+strings.Join(printerColumnFormats, ",")))
	}
	// kube names the field by its Go name here.
	if col.JSONPath == "" {
		errs = append(errs, validation.Required(p.Child("JSONPath"), ""))
	} else {
		errs = append(errs, validateSimpleJSONPath(col.JSONPath, p.Child("JSONPath"))...)
	}
	return errs
}

func validateSelectableFields(fields []SelectableField, schema *openapi.Schema, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	unique := map[string]bool{}
	for i, f := range fields {
		jp := p.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			errs = append(errs, validation.Required(jp, ""))
			continue
		}
		root, path, found, err := resolveFieldPath(f.JSONPath, schema)
		if err != nil {
			errs = append(errs, validation.Invalid(jp, f.JSONPath, fmt.Sprintf("is an invalid path: %v", err)))
			continue
		}
		if root == "metadata" {
			errs = append(errs, validation.Invalid(jp, f.JSONPath, "must not point to fields in metadata"))
		}
		if found == nil || (found.Type != "string" && found.Type != "boolean" && found.Type != "integer") {
			errs = append(errs, validation.Invalid(jp, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if unique[path] {
			errs = append(errs, validation.Duplicate(jp, f.JSONPath))
		}
		unique[path] = true
	}
	if len(unique) > MaxSelectableFields {
		errs = append(errs, validation.TooMany(p, len(unique), MaxSelectableFields))
	}
	return errs
}

// resolveFieldPath follows a selectable field's JSON path (".spec.color",
// ".spec.labels['a.b']" is not allowed: no array notation) through the schema, as
// kube's CEL field path resolution does, and returns the root field name, the
// canonical path and the schema it reaches.
func resolveFieldPath(jsonPath string, s *openapi.Schema) (root, path string, found *openapi.Schema, err error) {
	sc := bufio.NewScanner(strings.NewReader(jsonPath))
	sc.Split(splitFieldPath)
	var b strings.Builder
	if s == nil {
		return "", "", nil, fmt.Errorf("does not refer to a valid field")
	}
	for sc.Scan() {
		tok := sc.Text()
		switch tok {
		case "[":
			return "", "", nil, fmt.Errorf("array notation is not allowed")
		case ".":
			if !sc.Scan() {
				return "", "", nil, fmt.Errorf("unexpected end of JSON path")
			}
			name := sc.Text()
			switch {
			case len(s.Properties) > 0:
				next, ok := s.Properties[name]
				if !ok {
					return "", "", nil, fmt.Errorf("does not refer to a valid field")
				}
				if b.Len() == 0 {
					root = name
				} else {
					b.WriteByte('.')
				}
				b.WriteString(name)
				s = next
			case s.AdditionalProperties != nil:
				if b.Len() == 0 {
					root = "[" + name + "]"
				}
				b.WriteString("[" + name + "]")
				s = s.AdditionalProperties
			default:
				return "", "", nil, fmt.Errorf("does not refer to a valid field")
			}
		default:
			return "", "", nil, fmt.Errorf("expected [ or . but got: %s", tok)
		}
	}
	return root, b.String(), s, nil
}

// splitFieldPath tokenizes a JSON path into '.', '[', ']', single-quoted strings and
// the names between them.
func splitFieldPath(data []byte, atEOF bool) (int, []byte, error) {
	if len(data) == 0 {
		return 0, nil, nil
	}
	for i := 0; i < len(data); i++ {
		if data[0] == '\'' {
			if i > 0 && data[i] == '\'' && data[i-1] != '\\' {
				return i + 1, data[:i+1], nil
			}
			continue
		}
		switch data[i] {
		case '.', '[', ']':
			if i == 0 {
				return 1, data[:1], nil
			}
			return i, data[:i], nil
		}
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func validateNames(names *CustomResourceDefinitionNames, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	label := func(field, value string) {
		if msgs := validation.IsDNS1035Label(value); value != "" && len(msgs) > 0 {
			errs = append(errs, validation.Invalid(p.Child(field), value, strings.Join(msgs, ",")))
		}
	}
	kindLike := func(field, value string) {
		if msgs := validation.IsDNS1035Label(strings.ToLower(value)); value != "" && len(msgs) > 0 {
			errs = append(errs, validation.Invalid(p.Child(field), value, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
		}
	}
	label("plural", names.Plural)
	label("singular", names.Singular)
	kindLike("kind", names.Kind)
	kindLike("listKind", names.ListKind)
	for i, s := range names.ShortNames {
		if msgs := validation.IsDNS1035Label(s); len(msgs) > 0 {
			errs = append(errs, validation.Invalid(p.Child("shortNames").Index(i), s, strings.Join(msgs, ",")))
		}
	}
	if names.Kind != "" && names.Kind == names.ListKind {
		errs = append(errs, validation.Invalid(p.Child("listKind"), names.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range names.Categories {
		if msgs := validation.IsDNS1035Label(c); len(msgs) > 0 {
			errs = append(errs, validation.Invalid(p.Child("categories").Index(i), c, strings.Join(msgs, ",")))
		}
	}
	return errs
}

func validateConversion(c *CustomResourceConversion, requireRecognized bool, p *validation.Path) validation.ErrorList {
	if c == nil {
		return nil
	}
	errs := validateEnum(p.Child("strategy"), string(c.Strategy), []string{string(NoneConverter), string(WebhookConverter)})
	var cc *WebhookClientConfig
	var reviewVersions []string
	if c.Webhook != nil {
		cc, reviewVersions = c.Webhook.ClientConfig, c.Webhook.ConversionReviewVersions
	}
	// Internal paths: spec.conversion.webhookClientConfig and .conversionReviewVersions.
	ccPath, rvPath := p.Child("webhookClientConfig"), p.Child("conversionReviewVersions")
	if c.Strategy != WebhookConverter {
		if cc != nil {
			errs = append(errs, validation.Forbidden(ccPath, "should not be set when strategy is not set to Webhook"))
		}
		if len(reviewVersions) > 0 {
			errs = append(errs, validation.Forbidden(rvPath, "should not be set when strategy is not set to Webhook"))
		}
		return errs
	}
	switch {
	case cc == nil:
		errs = append(errs, validation.Required(ccPath, "required when strategy is set to Webhook"))
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, validation.Required(ccPath, "exactly one of url or service is required"))
	case cc.URL != nil:
		errs = append(errs, validation.ValidateWebhookURL(*cc.URL, ccPath.Child("url"))...)
	default:
		port := int32(443) // SetDefaults' value
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		errs = append(errs, validation.ValidateWebhookService(cc.Service.Name, cc.Service.Namespace, cc.Service.Path, port, ccPath.Child("service"))...)
	}
	return append(errs, validateReviewVersions(reviewVersions, requireRecognized, rvPath)...)
}

func validateReviewVersions(versions []string, requireRecognized bool, p *validation.Path) validation.ErrorList {
	if len(versions) == 0 {
		return validation.ErrorList{validation.Required(p, "")}
	}
	var errs validation.ErrorList
	seen := map[string]bool{}
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, validation.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range validation.IsDNS1035Label(v) {
			errs = append(errs, validation.Invalid(p.Index(i), v, msg))
		}
	}
	if requireRecognized && !hasRecognizedOrNoReviewVersion(versions) {
		errs = append(errs, validation.Invalid(p, versions, "must include at least one of "+strings.Join(acceptedConversionReviewVersions, ", ")))
	}
	return errs
}

func hasRecognizedOrNoReviewVersion(versions []string) bool {
	if len(versions) == 0 {
		return true
	}
	for _, v := range versions {
		if slices.Contains(acceptedConversionReviewVersions, v) {
			return true
		}
	}
	return false
}

func validateStoredVersions(stored []string, versions []CustomResourceDefinitionVersion, p *validation.Path) validation.ErrorList {
	if len(stored) == 0 {
		return validation.ErrorList{validation.Invalid(p, stored, "must have at least one stored version")}
	}
	var errs validation.ErrorList
	remaining := map[string]int{}
	for i, v := range stored {
		remaining[v] = i
	}
	for _, v := range versions {
		_, ok := remaining[v.Name]
		if v.Storage && !ok {
			errs = append(errs, validation.Invalid(p, stored, "must have the storage version "+v.Name))
		}
		delete(remaining, v.Name)
	}
	for i, v := range stored {
		if j, ok := remaining[v]; ok && j == i {
			errs = append(errs, validation.Invalid(p.Index(i), v, fmt.Sprintf("missing from spec.versions; %[1]s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", v)))
		}
	}
	return errs
}

// isProtectedGroup reports whether a group belongs to the Kubernetes project, whose
// CRDs need KubeAPIApprovedAnnotation.
func isProtectedGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") ||
		group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

type approvalState int

const (
	approvalInvalid approvalState = iota
	approved
	approvalBypassed
	approvalMissing
)

func apiApproval(annotations map[string]string) (approvalState, string) {
	a := annotations[KubeAPIApprovedAnnotation]
	u, err := url.ParseRequestURI(a)
	switch {
	case a == "":
		return approvalMissing, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", KubeAPIApprovedAnnotation)
	case strings.HasPrefix(a, "unapproved"):
		return approvalBypassed, fmt.Sprintf("not approved: %q", a)
	case err == nil && u.Host != "" && u.Scheme != "":
		return approved, "approved in " + a
	}
	return approvalInvalid, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", KubeAPIApprovedAnnotation)
}

func validateAPIApproval(crd, old *CustomResourceDefinition) validation.ErrorList {
	if !isProtectedGroup(crd.Spec.Group) {
		return nil
	}
	state, reason := apiApproval(crd.Annotations)
	if old != nil {
		if oldState, _ := apiApproval(old.Annotations); oldState == state {
			return nil
		}
	}
	p := validation.NewPath("metadata", "annotations").Key(KubeAPIApprovedAnnotation)
	switch state {
	case approved, approvalBypassed:
		return nil
	case approvalMissing:
		return validation.ErrorList{validation.Required(p, reason)}
	}
	return validation.ErrorList{validation.Invalid(p, crd.Annotations[KubeAPIApprovedAnnotation], reason)}
}

func allVersionsHaveSchema(spec *CustomResourceDefinitionSpec) bool {
	for _, v := range spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return false
		}
	}
	return true
}

func specHasDefaults(spec *CustomResourceDefinitionSpec) bool {
	for _, v := range spec.Versions {
		if v.Schema != nil && hasDefault(v.Schema.OpenAPIV3Schema) {
			return true
		}
	}
	return false
}

func hasDefault(s *openapi.Schema) bool {
	if s == nil {
		return false
	}
	if s.Default != nil || hasDefault(s.Items) || hasDefault(s.AdditionalProperties) || hasDefault(s.Not) {
		return true
	}
	for _, group := range [][]*openapi.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		if slices.ContainsFunc(group, hasDefault) {
			return true
		}
	}
	for _, p := range s.Properties {
		if hasDefault(p) {
			return true
		}
	}
	return false
}
