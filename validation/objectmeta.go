package validation

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/apikit-dev/apikit/scheme"
)

// Limits kube-apiserver applies to metadata.
const (
	// TotalAnnotationSizeLimit is the most bytes all annotation keys and values of one
	// object may add up to (256 KiB).
	TotalAnnotationSizeLimit = 256 * 1024
	// FieldManagerMaxLength is the longest managedFields[].manager.
	FieldManagerMaxLength = 128
	// MaxSubresourceNameLength is the longest managedFields[].subresource.
	MaxSubresourceNameLength = 256
)

// The finalizers Kubernetes defines without a domain prefix. Every other finalizer
// name must be domain-qualified ("example.com/cleanup").
const (
	// FinalizerKubernetes is the finalizer namespaces carry until their content is gone.
	FinalizerKubernetes = "kubernetes"
	// FinalizerOrphanDependents makes the garbage collector orphan dependents first.
	FinalizerOrphanDependents = "orphan"
	// FinalizerDeleteDependents makes the garbage collector delete dependents first
	// (foreground deletion).
	FinalizerDeleteDependents = "foregroundDeletion"
)

const negativeErrMsg = "must be greater than or equal to 0"

// NameIsDNSSubdomain is the name rule of most kinds (and of every custom resource):
// the name must be a DNS subdomain. With prefix (a generateName) a trailing '-' is
// allowed, because random characters will follow it.
func NameIsDNSSubdomain(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Subdomain(name)
}

// NameIsLongName is the DNS subdomain name rule as kube's declarative validation words
// it (validate.LongName, k8s-long-name), which replaces the handwritten rule of the kinds
// it covers (ReplicationControllers): its length limit says "bytes".
func NameIsLongName(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return isDNS1123Subdomain(name, maxLenBytesError)
}

// NameIsDNSLabel is the name rule of kinds whose names must be a DNS label
// (namespaces, for one). With prefix a trailing '-' is allowed.
func NameIsDNSLabel(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1123Label(name)
}

// NameIsDNS1035Label is the name rule of kinds whose names must be an RFC 1035 label
// (services). With prefix a trailing '-' is allowed.
func NameIsDNS1035Label(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return IsDNS1035Label(name)
}

// NameIsPathSegment is the loosest name rule, the one kube-apiserver applies to every
// object whatever its kind: the name must be usable as a URL path segment.
func NameIsPathSegment(name string, prefix bool) []string {
	if prefix {
		return IsPathSegmentPrefix(name)
	}
	return IsPathSegmentName(name)
}

// maskTrailingDash makes a generateName ending in '-' checkable as a complete name.
// It replaces the last two characters with "a", exactly as Kubernetes does (which
// also shortens the name by one).
func maskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name[:len(name)-2] + "a"
	}
	return name
}

// ValidateLabels checks every key of labels as a qualified name and every value as a
// label value. Errors carry the path of the map itself, as in Kubernetes, and come in
// key order.
func ValidateLabels(labels map[string]string, p *Path) ErrorList {
	bad := false
	for k, v := range labels {
		if IsQualifiedName(k) != nil || IsValidLabelValue(v) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}
	var errs ErrorList
	for _, k := range sortedKeys(labels) {
		for _, msg := range IsQualifiedName(k) {
			errs = append(errs, Invalid(p, k, msg))
		}
		v := labels[k]
		for _, msg := range IsValidLabelValue(v) {
			errs = append(errs, Invalid(p, v, msg))
		}
	}
	return errs
}

// ValidateAnnotations checks every key of annotations as a qualified name (ignoring
// case, as Kubernetes does) and that keys and values together take at most
// TotalAnnotationSizeLimit bytes. Errors carry the path of the map and come in key order.
func ValidateAnnotations(annotations map[string]string, p *Path) ErrorList {
	bad := false
	size := 0
	for k, v := range annotations {
		size += len(k) + len(v)
		if !bad && IsQualifiedName(strings.ToLower(k)) != nil {
			bad = true
		}
	}
	var errs ErrorList
	if bad {
		for _, k := range sortedKeys(annotations) {
			for _, msg := range IsQualifiedName(strings.ToLower(k)) {
				errs = append(errs, Invalid(p, k, msg))
			}
		}
	}
	if size > TotalAnnotationSizeLimit {
		errs = append(errs, TooLong(p, "", TotalAnnotationSizeLimit))
	}
	return errs
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ValidateFinalizerName checks one finalizer name: it must be a qualified name, and
// unless it is one of the standard finalizers (kubernetes, orphan,
// foregroundDeletion) it must carry a domain prefix ("example.com/cleanup"), as
// kube-apiserver requires of every built-in kind.
func ValidateFinalizerName(name string, p *Path) ErrorList {
	errs := validateFinalizerQualifiedName(name, p)
	if e := validateStandardFinalizerName(name, p); e != nil {
		errs = append(errs, e)
	}
	return errs
}

func validateFinalizerQualifiedName(name string, p *Path) ErrorList {
	var errs ErrorList
	for _, msg := range IsQualifiedName(name) {
		errs = append(errs, Invalid(p, name, msg))
	}
	return errs
}

func validateStandardFinalizerName(name string, p *Path) *Error {
	if strings.Contains(name, "/") {
		return nil
	}
	switch name {
	case FinalizerKubernetes, FinalizerOrphanDependents, FinalizerDeleteDependents,
		// kube-apiserver's own finalizer of CustomResourceDefinitions, which are
		// validated by apimachinery's rules (a qualified name) rather than core's.
		"customresourcecleanup.apiextensions.k8s.io":
		return nil
	}
	return Invalid(p, name, "name is neither a standard finalizer name nor is it fully qualified")
}

// ValidateFinalizers checks a list of finalizers as kube-apiserver checks
// metadata.finalizers: each name is a qualified name (errors on the list's path), the
// orphan and foregroundDeletion finalizers are not both set, and each name without a
// domain prefix is a standard one (errors on the item's path, p[i]).
func ValidateFinalizers(finalizers []string, p *Path) ErrorList {
	errs := validateFinalizerList(finalizers, p)
	return append(errs, validateStandardFinalizerNames(finalizers, p)...)
}

// validateFinalizerList is apimachinery's part of the finalizer checks.
func validateFinalizerList(finalizers []string, p *Path) ErrorList {
	var errs ErrorList
	orphan, foreground := false, false
	for _, f := range finalizers {
		errs = append(errs, validateFinalizerQualifiedName(f, p)...)
		switch f {
		case FinalizerOrphanDependents:
			orphan = true
		case FinalizerDeleteDependents:
			foreground = true
		}
	}
	if orphan && foreground {
		errs = append(errs, Invalid(p, finalizers, fmt.Sprintf("finalizer %s and %s cannot be both set",
			FinalizerOrphanDependents, FinalizerDeleteDependents)))
	}
	return errs
}

// validateStandardFinalizerNames is the check k8s.io/kubernetes adds for built-in kinds.
func validateStandardFinalizerNames(finalizers []string, p *Path) ErrorList {
	var errs ErrorList
	for i, f := range finalizers {
		if strings.Contains(f, "/") {
			continue
		}
		if e := validateStandardFinalizerName(f, p.Index(i)); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// bannedOwner is the one kind Kubernetes forbids as an owner.
var bannedOwner = scheme.GroupVersionKind{Version: "v1", Kind: "Event"}

// ValidateOwnerReferences checks metadata.ownerReferences: apiVersion, kind, name and
// uid are set and apiVersion parses, no core/v1 Event is an owner, and at most one
// reference is the controller.
func ValidateOwnerReferences(refs []scheme.OwnerReference, p *Path) ErrorList {
	var errs ErrorList
	firstController := ""
	for i, ref := range refs {
		errs = append(errs, validateOwnerReference(ref, p.Index(i))...)
		if ref.Controller != nil && *ref.Controller {
			current := ref.Kind + "/" + ref.Name
			if firstController != "" {
				errs = append(errs, Invalid(p, refs, fmt.Sprintf(
					"Only one reference can have Controller set to true. Found \"true\" in references for %v and %v",
					firstController, current)))
			} else {
				firstController = current
			}
		}
	}
	return errs
}

func validateOwnerReference(ref scheme.OwnerReference, p *Path) ErrorList {
	var errs ErrorList
	gv, err := scheme.ParseGroupVersion(ref.APIVersion)
	if ref.APIVersion == "" {
		errs = append(errs, Required(p.Child("apiVersion"), "must not be empty"))
	} else if err != nil || gv.Version == "" {
		errs = append(errs, Invalid(p.Child("apiVersion"), ref.APIVersion, "must be <group>/<version> or <version>"))
	}
	if ref.Kind == "" {
		errs = append(errs, Required(p.Child("kind"), "must not be empty"))
	}
	if ref.Name == "" {
		errs = append(errs, Required(p.Child("name"), "must not be empty"))
	}
	if ref.UID == "" {
		errs = append(errs, Required(p.Child("uid"), "must not be empty"))
	}
	if err == nil {
		if gvk := gv.WithKind(ref.Kind); gvk == bannedOwner {
			errs = append(errs, Invalid(p, ref, gvk.String()+" is disallowed from being an owner"))
		}
	}
	return errs
}

// ValidateManagedFields checks metadata.managedFields: each entry has an operation of
// Apply or Update, a fieldsType of FieldsV1 (or none), a printable manager of at most
// FieldManagerMaxLength bytes and a subresource of at most MaxSubresourceNameLength.
func ValidateManagedFields(entries []scheme.ManagedFieldsEntry, p *Path) ErrorList {
	var errs ErrorList
	for i, entry := range entries {
		if managedFieldsEntryValid(entry) {
			continue
		}
		ip := p.Index(i)
		switch entry.Operation {
		case "":
			errs = append(errs, Required(ip.Child("operation"), "must not be empty"))
		case scheme.ManagedFieldsOperationApply, scheme.ManagedFieldsOperationUpdate:
		default:
			errs = append(errs, NotSupported(ip.Child("operation"), entry.Operation, []string{
				string(scheme.ManagedFieldsOperationApply), string(scheme.ManagedFieldsOperationUpdate)}))
		}
		if entry.FieldsType != "" && entry.FieldsType != "FieldsV1" {
			errs = append(errs, Invalid(ip.Child("fieldsType"), entry.FieldsType, "must be `FieldsV1`"))
		}
		errs = append(errs, validateFieldManager(entry.Manager, ip.Child("manager"))...)
		if len(entry.Subresource) > MaxSubresourceNameLength {
			errs = append(errs, TooLong(ip.Child("subresource"), "", MaxSubresourceNameLength))
		}
	}
	return errs
}

// managedFieldsEntryValid is the allocation-free fast path of ValidateManagedFields.
func managedFieldsEntryValid(e scheme.ManagedFieldsEntry) bool {
	if e.Operation != scheme.ManagedFieldsOperationApply && e.Operation != scheme.ManagedFieldsOperationUpdate {
		return false
	}
	if e.FieldsType != "" && e.FieldsType != "FieldsV1" || len(e.Subresource) > MaxSubresourceNameLength ||
		len(e.Manager) > FieldManagerMaxLength {
		return false
	}
	for _, r := range e.Manager {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func validateFieldManager(manager string, p *Path) ErrorList {
	var errs ErrorList
	if len(manager) > FieldManagerMaxLength {
		errs = append(errs, TooLong(p, "", FieldManagerMaxLength))
	}
	for i, r := range manager {
		if !unicode.IsPrint(r) {
			errs = append(errs, Invalid(p, manager, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}

// ValidateObjectMeta checks the metadata of an object being created, exactly as
// kube-apiserver checks a built-in kind:
//
//   - name is set (after name generation; else "name or generateName is required")
//     and passes nameFn; a generateName, if set, passes nameFn with prefix true;
//   - namespace is set and a DNS label when namespaced, and unset otherwise;
//   - generation is not negative;
//   - labels, annotations, ownerReferences, finalizers and managedFields pass
//     ValidateLabels, ValidateAnnotations, ValidateOwnerReferences,
//     ValidateFinalizers and ValidateManagedFields.
//
// A nil nameFn means NameIsDNSSubdomain. p is usually NewPath("metadata").
func ValidateObjectMeta(meta scheme.MetaAccessor, namespaced bool, nameFn func(name string, prefix bool) []string, p *Path) ErrorList {
	if nameFn == nil {
		nameFn = NameIsDNSSubdomain
	}
	var errs ErrorList
	if gen := meta.GetGenerateName(); gen != "" {
		for _, msg := range nameFn(gen, true) {
			errs = append(errs, Invalid(p.Child("generateName"), gen, msg))
		}
	}
	if name := meta.GetName(); name == "" {
		errs = append(errs, Required(p.Child("name"), "name or generateName is required"))
	} else {
		for _, msg := range nameFn(name, false) {
			errs = append(errs, Invalid(p.Child("name"), name, msg))
		}
	}
	ns := meta.GetNamespace()
	switch {
	case namespaced && ns == "":
		errs = append(errs, Required(p.Child("namespace"), ""))
	case namespaced:
		for _, msg := range NameIsDNSLabel(ns, false) {
			errs = append(errs, Invalid(p.Child("namespace"), ns, msg))
		}
	case ns != "":
		errs = append(errs, Forbidden(p.Child("namespace"), "not allowed on this type"))
	}
	if gen := meta.GetGeneration(); gen < 0 {
		errs = append(errs, Invalid(p.Child("generation"), gen, negativeErrMsg))
	}
	return append(errs, validateMetaValues(meta, p)...)
}

// validateMetaValues runs the checks create and update share, in kube-apiserver's
// order. Empty fields are skipped without building their paths.
func validateMetaValues(meta scheme.MetaAccessor, p *Path) ErrorList {
	var errs ErrorList
	if labels := meta.GetLabels(); len(labels) > 0 {
		errs = append(errs, ValidateLabels(labels, p.Child("labels"))...)
	}
	if annotations := meta.GetAnnotations(); len(annotations) > 0 {
		errs = append(errs, ValidateAnnotations(annotations, p.Child("annotations"))...)
	}
	if refs := meta.GetOwnerReferences(); len(refs) > 0 {
		errs = append(errs, ValidateOwnerReferences(refs, p.Child("ownerReferences"))...)
	}
	finalizers := meta.GetFinalizers()
	var fp *Path
	if len(finalizers) > 0 {
		fp = p.Child("finalizers")
		errs = append(errs, validateFinalizerList(finalizers, fp)...)
	}
	if entries := meta.GetManagedFields(); len(entries) > 0 {
		errs = append(errs, ValidateManagedFields(entries, p.Child("managedFields"))...)
	}
	if len(finalizers) > 0 {
		errs = append(errs, validateStandardFinalizerNames(finalizers, fp)...)
	}
	return errs
}

// ValidateObjectMetaUpdate checks the metadata of an update against the stored
// object, as kube-apiserver does:
//
//   - resourceVersion is set ("must be specified for an update"; an unconditional
//     update must fill it in from the stored object before validating);
//   - generation is not negative and not decremented;
//   - name, namespace, uid, creationTimestamp, deletionTimestamp and
//     deletionGracePeriodSeconds do not change ("field is immutable"); in particular
//     an update can neither set nor unset deletionTimestamp. generateName may change;
//   - no finalizer is added once the object is being deleted;
//   - labels, annotations, ownerReferences, finalizers and managedFields pass the
//     same checks as on create.
//
// It does not check the name format or namespace scope, which cannot change.
func ValidateObjectMetaUpdate(newMeta, oldMeta scheme.MetaAccessor, p *Path) ErrorList {
	var errs ErrorList
	if oldMeta.GetDeletionTimestamp() != nil {
		if added := newFinalizers(newMeta.GetFinalizers(), oldMeta.GetFinalizers()); len(added) > 0 {
			errs = append(errs, Forbidden(p.Child("finalizers"), fmt.Sprintf(
				"no new finalizers can be added if the object is being deleted, found new finalizers %#v", added)))
		}
	}
	if rv := newMeta.GetResourceVersion(); rv == "" {
		errs = append(errs, Invalid(p.Child("resourceVersion"), rv, "must be specified for an update"))
	}
	gen := newMeta.GetGeneration()
	if gen < 0 {
		errs = append(errs, Invalid(p.Child("generation"), gen, negativeErrMsg))
	}
	if gen < oldMeta.GetGeneration() {
		errs = append(errs, Invalid(p.Child("generation"), gen, "must not be decremented"))
	}

	if n := newMeta.GetName(); n != oldMeta.GetName() {
		errs = append(errs, Immutable(p.Child("name"), n))
	}
	if ns := newMeta.GetNamespace(); ns != oldMeta.GetNamespace() {
		errs = append(errs, Immutable(p.Child("namespace"), ns))
	}
	if uid := newMeta.GetUID(); uid != oldMeta.GetUID() {
		errs = append(errs, Immutable(p.Child("uid"), uid))
	}
	if ct := newMeta.GetCreationTimestamp(); !ct.Time.Equal(oldMeta.GetCreationTimestamp().Time) {
		errs = append(errs, Immutable(p.Child("creationTimestamp"), ct))
	}
	if dt := newMeta.GetDeletionTimestamp(); !dt.Equal(oldMeta.GetDeletionTimestamp()) {
		errs = append(errs, Immutable(p.Child("deletionTimestamp"), dt))
	}
	if gp := newMeta.GetDeletionGracePeriodSeconds(); !equalInt64Ptr(gp, oldMeta.GetDeletionGracePeriodSeconds()) {
		errs = append(errs, Immutable(p.Child("deletionGracePeriodSeconds"), gp))
	}

	return append(errs, validateMetaValues(newMeta, p)...)
}

// newFinalizers returns, sorted and without repeats, the finalizers of next that old lacks.
func newFinalizers(next, old []string) []string {
	var added []string
	for _, f := range next {
		if !slices.Contains(old, f) && !slices.Contains(added, f) {
			added = append(added, f)
		}
	}
	slices.Sort(added)
	return added
}

func equalInt64Ptr(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
