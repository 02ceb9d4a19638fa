package strategies

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// betaStorageClassAnnotation named a claim's or a volume's class before
// spec.storageClassName.
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

// pvcStrategy is kube-apiserver v1.37.2's PersistentVolumeClaim strategy
// (pkg/registry/core/persistentvolumeclaim): a create starts Pending with no other
// status, an update keeps the stored status, and /status writes keep the spec; the
// data source fields as kube's pvcutil sets them; kube's validation with its messages
// and paths (pkg/apis/core/validation) and its warnings.
func pvcStrategy() registry.StrategyFor[*corev1.PersistentVolumeClaim] {
	return withoutGeneration(registry.StrategyFor[*corev1.PersistentVolumeClaim]{
		PrepareForCreate: func(_ context.Context, c *corev1.PersistentVolumeClaim) {
			// kube stores an empty status and reads it back defaulted to Pending.
			c.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
			preparePVCSpec(&c.Spec, nil)
		},
		PrepareForUpdate: func(_ context.Context, c, old *corev1.PersistentVolumeClaim) {
			c.Status = old.Status
			preparePVCSpec(&c.Spec, &old.Spec)
		},
		Validate: func(_ context.Context, c *corev1.PersistentVolumeClaim) validation.ErrorList {
			return validatePVCSpec(&c.Spec, validation.NewPath("spec"), pvcOptionsFor(nil))
		},
		ValidateUpdate: func(_ context.Context, c, old *corev1.PersistentVolumeClaim) validation.ErrorList {
			return validatePVCUpdate(c, old)
		},
		WarningsOnCreate: func(_ context.Context, c *corev1.PersistentVolumeClaim) []string { return pvcWarnings(c) },
		WarningsOnUpdate: func(_ context.Context, c, _ *corev1.PersistentVolumeClaim) []string { return pvcWarnings(c) },
		Status: &registry.StrategyFor[*corev1.PersistentVolumeClaim]{
			PrepareForUpdate: func(_ context.Context, c, old *corev1.PersistentVolumeClaim) { c.Spec = old.Spec },
			ValidateUpdate: func(_ context.Context, c, old *corev1.PersistentVolumeClaim) validation.ErrorList {
				return validatePVCStatusUpdate(c, old)
			},
		},
	})
}

// preparePVCSpec is kube's pvcutil on a written claim: a dataSourceRef with a namespace
// is dropped (CrossNamespaceVolumeDataSource is off) unless the stored claim has one; a
// data source that is neither a claim nor a VolumeSnapshot is dropped from a claim that
// had none and names no dataSourceRef; then dataSource and dataSourceRef mirror each
// other when only one is set.
func preparePVCSpec(spec, old *corev1.PersistentVolumeClaimSpec) {
	if r := spec.DataSourceRef; r != nil && r.Namespace != nil && *r.Namespace != "" && (old == nil || old.DataSourceRef == nil) {
		spec.DataSourceRef = nil
	}
	if (old == nil || old.DataSource == nil && old.DataSourceRef == nil) && spec.DataSourceRef == nil && !isClaimOrSnapshot(spec.DataSource) {
		spec.DataSource = nil
	}
	normalizeDataSources(spec)
}

func isClaimOrSnapshot(ds *corev1.TypedLocalObjectReference) bool {
	if ds == nil {
		return false
	}
	group := ""
	if ds.APIGroup != nil {
		group = *ds.APIGroup
	}
	return ds.Kind == "PersistentVolumeClaim" && group == "" || ds.Kind == "VolumeSnapshot" && group == "snapshot.storage.k8s.io"
}

func normalizeDataSources(spec *corev1.PersistentVolumeClaimSpec) {
	switch ds, ref := spec.DataSource, spec.DataSourceRef; {
	case ds != nil && ref == nil:
		spec.DataSourceRef = &corev1.TypedObjectReference{Kind: ds.Kind, Name: ds.Name, APIGroup: clonePtr(ds.APIGroup)}
	case ref != nil && ds == nil && (ref.Namespace == nil || *ref.Namespace == ""):
		spec.DataSource = &corev1.TypedLocalObjectReference{Kind: ref.Kind, Name: ref.Name, APIGroup: clonePtr(ref.APIGroup)}
	}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// pvcOptions are the parts of kube's PersistentVolumeClaimSpecValidationOptions that
// depend on the stored claim (the feature gates they read are on in v1.37:
// VolumeAttributesClass, RecoverVolumeExpansionFailure).
type pvcOptions struct {
	allowInvalidLabelValue bool
	allowInvalidAPIGroup   bool
}

func pvcOptionsFor(old *corev1.PersistentVolumeClaim) pvcOptions {
	if old == nil {
		return pvcOptions{}
	}
	var o pvcOptions
	o.allowInvalidAPIGroup = old.Spec.DataSource != nil && old.Spec.DataSource.APIGroup != nil ||
		old.Spec.DataSourceRef != nil && old.Spec.DataSourceRef.APIGroup != nil
	o.allowInvalidLabelValue = old.Spec.Selector != nil && len(validateLabelSelector(old.Spec.Selector, false, nil)) > 0
	return o
}

var (
	supportedAccessModes = []string{string(corev1.ReadOnlyMany), string(corev1.ReadWriteMany), string(corev1.ReadWriteOnce), string(corev1.ReadWriteOncePod)}
	supportedVolumeModes = []string{string(corev1.PersistentVolumeBlock), string(corev1.PersistentVolumeFilesystem)}
)

// validateAccessModes is the access mode part of kube's PVC and PV spec validation:
// each mode supported, ReadWriteOncePod alone.
func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	rwop, other := false, false
	for _, m := range modes {
		switch m {
		case corev1.ReadWriteOncePod:
			rwop = true
		case corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce:
			other = true
		default:
			errs = append(errs, validation.NotSupported(p, m, supportedAccessModes))
		}
	}
	if rwop && other {
		errs = append(errs, validation.Forbidden(p, "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}

// validateClassName reports kube's ValidateClassName (a DNS subdomain) at p.
func validateClassName(name *string, p *validation.Path) validation.ErrorList {
	if name == nil || *name == "" {
		return nil
	}
	return validateDNS1123Subdomain(*name, p)
}

// validatePVCSpec is kube's ValidatePersistentVolumeClaimSpec.
func validatePVCSpec(spec *corev1.PersistentVolumeClaimSpec, p *validation.Path, o pvcOptions) validation.ErrorList {
	var errs validation.ErrorList
	if len(spec.AccessModes) == 0 {
		errs = append(errs, validation.Required(p.Child("accessModes"), "at least 1 access mode is required"))
	}
	if spec.Selector != nil {
		errs = append(errs, validateLabelSelector(spec.Selector, o.allowInvalidLabelValue, p.Child("selector"))...)
	}
	errs = append(errs, validateAccessModes(spec.AccessModes, p.Child("accessModes"))...)
	sp := p.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := spec.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, validation.Required(sp, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, validation.Invalid(sp, q.String(), isNotPositiveErrorMsg))
	} else {
		errs = append(errs, validateResourceQuantityValue(corev1.ResourceStorage, q, sp)...)
	}
	errs = append(errs, validateClassName(spec.StorageClassName, p.Child("storageClassName"))...)
	if m := spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, validation.NotSupported(p.Child("volumeMode"), *m, supportedVolumeModes))
	}
	if ds := spec.DataSource; ds != nil {
		errs = append(errs, validateDataSource(ds.Name, ds.Kind, ds.APIGroup, p.Child("dataSource"), o.allowInvalidAPIGroup)...)
	}
	if ref := spec.DataSourceRef; ref != nil {
		rp := p.Child("dataSourceRef")
		errs = append(errs, validateDataSource(ref.Name, ref.Kind, ref.APIGroup, rp, o.allowInvalidAPIGroup)...)
		if ref.Namespace != nil && *ref.Namespace != "" {
			for _, msg := range validation.IsDNS1123Label(*ref.Namespace) {
				errs = append(errs, validation.Invalid(rp.Child("namespace"), *ref.Namespace, msg))
			}
		}
	}
	if ref := spec.DataSourceRef; ref != nil && ref.Namespace != nil && *ref.Namespace != "" {
		if spec.DataSource != nil {
			errs = append(errs, validation.Invalid(p, pathValue, "may not be specified when dataSourceRef.namespace is specified"))
		}
	} else if ds := spec.DataSource; ds != nil && ref != nil {
		if !semanticEqual(ds.APIGroup, ref.APIGroup) || ds.Kind != ref.Kind || ds.Name != ref.Name {
			errs = append(errs, validation.Invalid(p, pathValue, "must match dataSourceRef"))
		}
	}
	errs = append(errs, validateClassName(spec.VolumeAttributesClassName, p.Child("volumeAttributesClassName"))...)
	return errs
}

// validateDataSource is kube's validateDataSource and the shared part of
// validateDataSourceRef.
func validateDataSource(name, kind string, apiGroup *string, p *validation.Path, allowInvalidAPIGroup bool) validation.ErrorList {
	var errs validation.ErrorList
	if name == "" {
		errs = append(errs, validation.Required(p.Child("name"), ""))
	}
	if kind == "" {
		errs = append(errs, validation.Required(p.Child("kind"), ""))
	}
	group := ""
	if apiGroup != nil {
		group = *apiGroup
	}
	if group == "" && kind != "PersistentVolumeClaim" {
		errs = append(errs, validation.Invalid(p, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
	}
	if group != "" && !allowInvalidAPIGroup {
		errs = append(errs, validateDNS1123Subdomain(group, p.Child("apiGroup"))...)
	}
	return errs
}

// pathValue is the bad value kube's dataSource errors carry, a *field.Path, which
// its error rendering marshals to JSON as {} (its fields are unexported).
var pathValue = struct{}{}

// pvcSpecImmutableMsg is kube's refusal of a claim's spec change, before the diff.
const pvcSpecImmutableMsg = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"

// validatePVCUpdate is kube's ValidatePersistentVolumeClaimUpdate (the metadata part
// runs in the registry): the new claim valid, its spec unchanged but for a volumeName
// set once, a storage class set where none was (or as its beta annotation said), and on
// a bound claim the storage request and the volume attributes class; a request never
// below the stored one... down to status.capacity (RecoverVolumeExpansionFailure); the
// attributes class not removed once applied.
func validatePVCUpdate(c, old *corev1.PersistentVolumeClaim) validation.ErrorList {
	errs := validatePVCSpec(&c.Spec, validation.NewPath("spec"), pvcOptionsFor(old))
	next, prev := c.Spec, old.Spec
	next.Resources.Requests = maps.Clone(c.Spec.Resources.Requests)
	if old.Spec.VolumeName == "" {
		prev.VolumeName = next.VolumeName
	}
	oldClass, oldAnnotated := old.Annotations[betaStorageClassAnnotation]
	newAnnotation, newAnnotated := c.Annotations[betaStorageClassAnnotation]
	if oldAnnotated && old.Spec.StorageClassName == nil && c.Spec.StorageClassName != nil && *c.Spec.StorageClassName == oldClass &&
		(!newAnnotated || newAnnotation == oldClass) {
		next.StorageClassName = nil
	} else {
		if newAnnotation != oldClass {
			errs = append(errs, validation.Invalid(validation.NewPath("metadata").Child("annotations", betaStorageClassAnnotation), newAnnotation, "field is immutable"))
		}
		if c.Spec.StorageClassName != nil && old.Spec.StorageClassName == nil && (!oldAnnotated || *c.Spec.StorageClassName == oldClass) {
			next.StorageClassName = prev.StorageClassName
		}
	}
	if c.Status.Phase == corev1.ClaimBound {
		if next.Resources.Requests != nil {
			next.Resources.Requests[corev1.ResourceStorage] = old.Spec.Resources.Requests[corev1.ResourceStorage]
		}
		next.VolumeAttributesClassName = prev.VolumeAttributesClassName
	}
	if !semanticEqual(next, prev) {
		errs = append(errs, validation.Forbidden(validation.NewPath("spec"), pvcSpecImmutableMsg+"\n"+podSpecDiff(&prev, &next)))
	}
	oldSize := old.Spec.Resources.Requests[corev1.ResourceStorage]
	newSize := c.Spec.Resources.Requests[corev1.ResourceStorage]
	statusSize := old.Status.Capacity[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) < 0 && newSize.Cmp(statusSize) <= 0 {
		errs = append(errs, validation.Forbidden(validation.NewPath("spec", "resources", "requests", "storage"), "field can not be less than status.capacity"))
	}
	if !semanticEqual(c.Spec.VolumeMode, old.Spec.VolumeMode) {
		errs = append(errs, validation.Invalid(validation.NewPath("volumeMode"), derefMode(c.Spec.VolumeMode), "field is immutable"))
	}
	if !semanticEqual(c.Spec.VolumeAttributesClassName, old.Spec.VolumeAttributesClassName) && old.Status.CurrentVolumeAttributesClassName != nil {
		vp := validation.NewPath("spec", "volumeAttributesClassName")
		switch {
		case c.Spec.VolumeAttributesClassName == nil:
			errs = append(errs, validation.Forbidden(vp, "update to nil is forbidden when status.currentVolumeAttributesClassName is not nil"))
		case *c.Spec.VolumeAttributesClassName == "":
			errs = append(errs, validation.Forbidden(vp, "update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil"))
		}
	}
	return errs
}

// derefMode is the value kube prints for a volume mode pointer: the mode, or null.
func derefMode(m *corev1.PersistentVolumeMode) any {
	if m == nil {
		return nil
	}
	return *m
}

// pvcResizeStatuses are the values of status.allocatedResourceStatuses.
var pvcResizeStatuses = []string{
	string(corev1.PersistentVolumeClaimControllerResizeInProgress), string(corev1.PersistentVolumeClaimControllerResizeInfeasible),
	string(corev1.PersistentVolumeClaimNodeResizeInProgress), string(corev1.PersistentVolumeClaimNodeResizeInfeasible),
	string(corev1.PersistentVolumeClaimNodeResizePending),
}

// validatePVCStatusUpdate is kube's ValidatePersistentVolumeClaimStatusUpdate:
// a resourceVersion, access modes in the (kept) spec, no negative capacity, and the
// resize fields (RecoverVolumeExpansionFailure is GA) keyed by storage or a qualified
// domain name with known statuses and valid quantities.
func validatePVCStatusUpdate(c, _ *corev1.PersistentVolumeClaim) validation.ErrorList {
	var errs validation.ErrorList
	if c.ResourceVersion == "" {
		errs = append(errs, validation.Required(validation.NewPath("resourceVersion"), ""))
	}
	if len(c.Spec.AccessModes) == 0 {
		errs = append(errs, validation.Required(validation.NewPath("Spec", "accessModes"), ""))
	}
	capPath := validation.NewPath("status", "capacity")
	for _, r := range sortedResourceNames(c.Status.Capacity) {
		errs = append(errs, validateBasicResource(c.Status.Capacity[r], capPath.Key(string(r)))...)
	}
	statusPath := validation.NewPath("status", "allocatedResourceStatuses")
	for _, k := range slices.Sorted(maps.Keys(c.Status.AllocatedResourceStatuses)) {
		errs = append(errs, validatePVCResourceKey(string(k), statusPath)...)
		if !slices.Contains(pvcResizeStatuses, string(c.Status.AllocatedResourceStatuses[k])) {
			errs = append(errs, validation.NotSupported(statusPath, string(k), pvcResizeStatuses))
		}
	}
	allocPath := validation.NewPath("status", "allocatedResources")
	for _, r := range sortedResourceNames(c.Status.AllocatedResources) {
		if e := validatePVCResourceKey(string(r), allocPath); len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		q := c.Status.AllocatedResources[r]
		if e := validateBasicResource(q, allocPath.Key(string(r))); len(e) > 0 {
			errs = append(errs, e...)
		} else {
			errs = append(errs, validateResourceQuantityValue(corev1.ResourceStorage, q, allocPath.Key(string(r)))...)
		}
	}
	return errs
}

// validateBasicResource is kube's: a quantity whose integer value is negative is
// invalid, reported with that value.
func validateBasicResource(q quantity.Quantity, p *validation.Path) validation.ErrorList {
	if v := q.Value(); v < 0 {
		return validation.ErrorList{validation.Invalid(p, v, "must be a valid resource quantity")}
	}
	return nil
}

// validatePVCResourceKey is kube's validatePersistentVolumeClaimResourceKey: a
// qualified name, and storage when it is a native resource name.
func validatePVCResourceKey(value string, p *validation.Path) validation.ErrorList {
	if errs := validateQualifiedName(value, p); len(errs) > 0 {
		return errs
	}
	if isNativeResource(corev1.ResourceName(value)) && value != string(corev1.ResourceStorage) {
		return validation.ErrorList{validation.NotSupported(p, value, []string{string(corev1.ResourceStorage)})}
	}
	return nil
}

// pvcWarnings are kube's GetWarningsForPersistentVolumeClaim: the deprecated class
// annotation, and a fractional byte count requested or limited.
func pvcWarnings(c *corev1.PersistentVolumeClaim) []string {
	var w []string
	if _, ok := c.Annotations[betaStorageClassAnnotation]; ok {
		w = append(w, fmt.Sprintf("%s: %s", validation.NewPath("metadata", "annotations").Key(betaStorageClassAnnotation),
			`deprecated since v1.8; use "storageClassName" attribute instead`))
	}
	return append(w, claimSpecWarnings(validation.NewPath("spec"), &c.Spec)...)
}

func claimSpecWarnings(p *validation.Path, spec *corev1.PersistentVolumeClaimSpec) []string {
	var w []string
	for _, l := range []struct {
		name string
		list corev1.ResourceList
	}{{"requests", spec.Resources.Requests}, {"limits", spec.Resources.Limits}} {
		if q := l.list[corev1.ResourceStorage]; q.MilliValue()%1000 != 0 {
			w = append(w, fmt.Sprintf("%s: fractional byte value %q is invalid, must be an integer",
				p.Child("resources").Child(l.name).Key(string(corev1.ResourceStorage)), q.String()))
		}
	}
	return w
}

// StorageAndNodes returns kube-apiserver v1.37.2's write rules of core/v1
// PersistentVolumeClaims, PersistentVolumes and Nodes; Builtin includes them.
func StorageAndNodes() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		corev1.PersistentVolumeClaims: pvcStrategy(),
		corev1.PersistentVolumes:      pvStrategy(),
		corev1.Nodes:                  withConnector(nodeStrategy(), "proxy", nodeProxy), // connect.go
	}
}
