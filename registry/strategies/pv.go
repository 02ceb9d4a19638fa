package strategies

import (
	"context"
	"path"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// mountOptionsAnnotation held a volume's mount options before spec.mountOptions.
const mountOptionsAnnotation = "volume.beta.kubernetes.io/mount-options"

// pvStrategy is kube-apiserver v1.37.2's PersistentVolume strategy
// (pkg/registry/core/persistentvolume): a create starts Pending with the time of that
// phase, an update keeps the status, a /status write keeps the spec and moves
// lastPhaseTransitionTime when the phase changes; kube's ValidatePersistentVolume*.
func pvStrategy() registry.StrategyFor[*corev1.PersistentVolume] {
	return withoutGeneration(registry.StrategyFor[*corev1.PersistentVolume]{
		PrepareForCreate: func(_ context.Context, pv *corev1.PersistentVolume) {
			now := scheme.Now()
			pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: &now}
		},
		PrepareForUpdate: func(_ context.Context, pv, old *corev1.PersistentVolume) { pv.Status = old.Status },
		Validate: func(_ context.Context, pv *corev1.PersistentVolume) validation.ErrorList {
			return validatePV(pv, nil)
		},
		ValidateUpdate: func(_ context.Context, pv, old *corev1.PersistentVolume) validation.ErrorList {
			return validatePVUpdate(pv, old)
		},
		WarningsOnCreate: func(_ context.Context, pv *corev1.PersistentVolume) []string { return pvWarnings(pv) },
		WarningsOnUpdate: func(_ context.Context, pv, _ *corev1.PersistentVolume) []string { return pvWarnings(pv) },
		Status: &registry.StrategyFor[*corev1.PersistentVolume]{
			PrepareForUpdate: func(_ context.Context, pv, old *corev1.PersistentVolume) {
				pv.Spec = old.Spec
				st, was := &pv.Status, old.Status
				switch {
				case was.Phase == st.Phase && st.LastPhaseTransitionTime == nil:
					st.LastPhaseTransitionTime = was.LastPhaseTransitionTime
				case was.Phase != st.Phase && (st.LastPhaseTransitionTime == nil || st.LastPhaseTransitionTime.Equal(was.LastPhaseTransitionTime)):
					now := scheme.Now()
					st.LastPhaseTransitionTime = &now
				}
			},
			ValidateUpdate: func(_ context.Context, pv, _ *corev1.PersistentVolume) validation.ErrorList {
				if pv.ResourceVersion == "" {
					return validation.ErrorList{validation.Required(validation.NewPath("resourceVersion"), "")}
				}
				return nil
			},
		},
	})
}

var supportedReclaimPolicies = []string{string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRecycle), string(corev1.PersistentVolumeReclaimRetain)}

// validatePV is kube's ValidatePersistentVolume (the metadata part runs in the
// registry) with pkg/volume/validation's mount option rule; old is the stored volume
// on an update, whose invalid node affinity values stay allowed.
func validatePV(pv *corev1.PersistentVolume, old *corev1.PersistentVolume) validation.ErrorList {
	allowInvalid := old != nil && old.Spec.NodeAffinity != nil && old.Spec.NodeAffinity.Required != nil &&
		hasInvalidLabelValue(old.Spec.NodeAffinity.Required.NodeSelectorTerms)
	errs := validatePVSpec(&pv.Spec, pv.Name, validation.NewPath("spec"), allowInvalid)
	if _, ok := pv.Annotations[mountOptionsAnnotation]; ok && !supportsMountOptions(&pv.Spec.PersistentVolumeSource) {
		errs = append(errs, validation.Forbidden(validation.NewPath("metadata").Child("annotations", mountOptionsAnnotation), "may not specify mount options for this volume type"))
	}
	return errs
}

// hasInvalidLabelValue is kube's HasInvalidLabelValueInNodeSelectorTerms.
func hasInvalidLabelValue(terms []corev1.NodeSelectorTerm) bool {
	for _, t := range terms {
		for _, exprs := range [][]corev1.NodeSelectorRequirement{t.MatchExpressions, t.MatchFields} {
			for _, e := range exprs {
				for _, v := range e.Values {
					if len(validation.IsValidLabelValue(v)) > 0 {
						return true
					}
				}
			}
		}
	}
	return false
}

func supportsMountOptions(s *corev1.PersistentVolumeSource) bool {
	return s.GCEPersistentDisk != nil || s.AWSElasticBlockStore != nil || s.Glusterfs != nil || s.NFS != nil || s.RBD != nil ||
		s.Quobyte != nil || s.ISCSI != nil || s.Cinder != nil || s.CephFS != nil || s.AzureFile != nil || s.VsphereVolume != nil ||
		s.AzureDisk != nil || s.PhotonPersistentDisk != nil
}

// validatePVSpec is kube's ValidatePersistentVolumeSpec for a PersistentVolume (not an
// inline volume): access modes, a storage capacity and nothing else, a reclaim
// policy, node affinity, exactly one volume source checked as kube checks it, the class
// names and the volume mode.
func validatePVSpec(spec *corev1.PersistentVolumeSpec, pvName string, p *validation.Path, allowInvalidAffinity bool) validation.ErrorList {
	var errs validation.ErrorList
	if len(spec.AccessModes) == 0 {
		errs = append(errs, validation.Required(p.Child("accessModes"), ""))
	}
	errs = append(errs, validateAccessModes(spec.AccessModes, p.Child("accessModes"))...)
	cp := p.Child("capacity")
	if len(spec.Capacity) == 0 {
		errs = append(errs, validation.Required(cp, ""))
	}
	if _, ok := spec.Capacity[corev1.ResourceStorage]; !ok || len(spec.Capacity) > 1 {
		errs = append(errs, validation.NotSupported(cp, spec.Capacity, []string{string(corev1.ResourceStorage)}))
	}
	for _, r := range sortedResourceNames(spec.Capacity) {
		q := spec.Capacity[r]
		errs = append(errs, validateBasicResource(q, cp.Key(string(r)))...)
		if q.Sign() <= 0 {
			errs = append(errs, validation.Invalid(cp.Key(string(r)), q.String(), isNotPositiveErrorMsg))
		}
	}
	if rp := spec.PersistentVolumeReclaimPolicy; rp != "" && rp != corev1.PersistentVolumeReclaimDelete &&
		rp != corev1.PersistentVolumeReclaimRecycle && rp != corev1.PersistentVolumeReclaimRetain {
		errs = append(errs, validation.NotSupported(p.Child("persistentVolumeReclaimPolicy"), rp, supportedReclaimPolicies))
	}
	affinity := false
	if na := spec.NodeAffinity; na != nil {
		affinity = true
		if na.Required != nil {
			errs = append(errs, validateNodeSelectorAllowing(na.Required, allowInvalidAffinity, p.Child("nodeAffinity").Child("required"))...)
		} else {
			errs = append(errs, validation.Required(p.Child("nodeAffinity").Child("required"), "must specify required node constraints"))
		}
	}
	errs = append(errs, validatePVSource(&spec.PersistentVolumeSource, pvName, p, affinity)...)
	if hp := spec.HostPath; hp != nil && path.Clean(hp.Path) == "/" && spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
		errs = append(errs, validation.Forbidden(p.Child("persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	if spec.StorageClassName != "" {
		errs = append(errs, validateDNS1123Subdomain(spec.StorageClassName, p.Child("storageClassName"))...)
	}
	if m := spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, validation.NotSupported(p.Child("volumeMode"), *m, supportedVolumeModes))
	}
	if vac := spec.VolumeAttributesClassName; vac != nil {
		if *vac == "" {
			errs = append(errs, validation.Required(p.Child("volumeAttributesClassName"), "an empty string is disallowed"))
		} else {
			errs = append(errs, validateDNS1123Subdomain(*vac, p.Child("volumeAttributesClassName"))...)
		}
		if spec.CSI == nil {
			errs = append(errs, validation.Required(p.Child("csi"), "has to be specified when using volumeAttributesClassName"))
		}
	}
	return errs
}

func validateNodeSelectorAllowing(s *corev1.NodeSelector, allowInvalid bool, p *validation.Path) validation.ErrorList {
	tp := p.Child("nodeSelectorTerms")
	if len(s.NodeSelectorTerms) == 0 {
		return validation.ErrorList{validation.Required(tp, "must have at least one node selector term")}
	}
	var errs validation.ErrorList
	for i, t := range s.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(t, allowInvalid, tp.Index(i))...)
	}
	return errs
}

// validatePVSource checks that exactly one source is set and each as kube's
// ValidatePersistentVolumeSpec does, with its paths (gcePersistentDisk's errors under
// persistentDisk, cephFS's under cephfs) and its quirk that flexVolume is counted but
// never refused as a second source.
func validatePVSource(s *corev1.PersistentVolumeSource, pvName string, p *validation.Path, affinity bool) validation.ErrorList {
	var errs validation.ErrorList
	n := 0
	one := func(set bool, name string, check func() validation.ErrorList) {
		if !set {
			return
		}
		if n > 0 {
			errs = append(errs, validation.Forbidden(p.Child(name), "may not specify more than 1 volume type"))
			return
		}
		n++
		errs = append(errs, check()...)
	}
	required := func(v string, fp *validation.Path) validation.ErrorList {
		if v == "" {
			return validation.ErrorList{validation.Required(fp, "")}
		}
		return nil
	}
	one(s.HostPath != nil, "hostPath", func() validation.ErrorList { return validateHostPathVolumeSource(s.HostPath, p.Child("hostPath")) })
	one(s.GCEPersistentDisk != nil, "gcePersistentDisk", func() validation.ErrorList {
		return validateDisk(s.GCEPersistentDisk.PDName, "pdName", s.GCEPersistentDisk.Partition, p.Child("persistentDisk"))
	})
	one(s.AWSElasticBlockStore != nil, "awsElasticBlockStore", func() validation.ErrorList {
		return validateDisk(s.AWSElasticBlockStore.VolumeID, "volumeID", s.AWSElasticBlockStore.Partition, p.Child("awsElasticBlockStore"))
	})
	one(s.Glusterfs != nil, "glusterfs", func() validation.ErrorList {
		g, gp := s.Glusterfs, p.Child("glusterfs")
		e := append(required(g.EndpointsName, gp.Child("endpoints")), required(g.Path, gp.Child("path"))...)
		if ns := g.EndpointsNamespace; ns != nil {
			if *ns == "" {
				e = append(e, validation.Invalid(gp.Child("endpointsNamespace"), *ns, "if the endpointnamespace is set, it must be a valid namespace name"))
			} else {
				e = append(e, validateDNS1123Label(*ns, gp.Child("endpointsNamespace"))...)
			}
		}
		return e
	})
	one(s.Flocker != nil, "flocker", func() validation.ErrorList {
		f, fp := s.Flocker, p.Child("flocker")
		var e validation.ErrorList
		if f.DatasetName == "" && f.DatasetUUID == "" {
			e = append(e, validation.Required(fp, "one of datasetName and datasetUUID is required"))
		}
		if f.DatasetName != "" && f.DatasetUUID != "" {
			e = append(e, validation.Invalid(fp, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
		}
		if strings.Contains(f.DatasetName, "/") {
			e = append(e, validation.Invalid(fp.Child("datasetName"), f.DatasetName, "must not contain '/'"))
		}
		return e
	})
	one(s.NFS != nil, "nfs", func() validation.ErrorList {
		np := p.Child("nfs")
		e := append(required(s.NFS.Server, np.Child("server")), required(s.NFS.Path, np.Child("path"))...)
		if !path.IsAbs(s.NFS.Path) {
			e = append(e, validation.Invalid(np.Child("path"), s.NFS.Path, "must be an absolute path"))
		}
		return e
	})
	one(s.RBD != nil, "rbd", func() validation.ErrorList {
		var e validation.ErrorList
		if len(s.RBD.CephMonitors) == 0 {
			e = append(e, validation.Required(p.Child("rbd", "monitors"), ""))
		}
		return append(e, required(s.RBD.RBDImage, p.Child("rbd", "image"))...)
	})
	one(s.Quobyte != nil, "quobyte", func() validation.ErrorList { return validateQuobyteVolumeSource(s.Quobyte, p.Child("quobyte")) })
	one(s.CephFS != nil, "cephFS", func() validation.ErrorList {
		if len(s.CephFS.Monitors) == 0 {
			return validation.ErrorList{validation.Required(p.Child("cephfs", "monitors"), "")}
		}
		return nil
	})
	one(s.ISCSI != nil, "iscsi", func() validation.ErrorList {
		return validateISCSIPersistentVolumeSource(s.ISCSI, pvName, p.Child("iscsi"))
	})
	one(s.Cinder != nil, "cinder", func() validation.ErrorList {
		cp := p.Child("cinder")
		e := required(s.Cinder.VolumeID, cp.Child("volumeID"))
		if r := s.Cinder.SecretRef; r != nil {
			e = append(e, required(r.Name, cp.Child("secretRef", "name"))...)
			e = append(e, required(r.Namespace, cp.Child("secretRef", "namespace"))...)
		}
		return e
	})
	one(s.FC != nil, "fc", func() validation.ErrorList { return validateFCVolumeSource(s.FC, p.Child("fc")) })
	if s.FlexVolume != nil {
		n++
		fp := p.Child("flexVolume")
		errs = append(errs, required(s.FlexVolume.Driver, fp.Child("driver"))...)
		for _, k := range sortedKeys(s.FlexVolume.Options) {
			ns, _, _ := strings.Cut(k, "/")
			if dn := "." + strings.ToLower(ns); strings.HasSuffix(dn, ".kubernetes.io") || strings.HasSuffix(dn, ".k8s.io") {
				errs = append(errs, validation.Invalid(fp.Child("options").Key(k), k, "kubernetes.io and k8s.io namespaces are reserved"))
			}
		}
	}
	one(s.AzureFile != nil, "azureFile", func() validation.ErrorList {
		ap := p.Child("azureFile")
		e := append(required(s.AzureFile.SecretName, ap.Child("secretName")), required(s.AzureFile.ShareName, ap.Child("shareName"))...)
		if ns := s.AzureFile.SecretNamespace; ns != nil && *ns == "" {
			e = append(e, validation.Required(ap.Child("secretNamespace"), ""))
		}
		return e
	})
	one(s.VsphereVolume != nil, "vsphereVolume", func() validation.ErrorList {
		return required(s.VsphereVolume.VolumePath, p.Child("vsphereVolume", "volumePath"))
	})
	one(s.PhotonPersistentDisk != nil, "photonPersistentDisk", func() validation.ErrorList {
		return required(s.PhotonPersistentDisk.PdID, p.Child("photonPersistentDisk", "pdID"))
	})
	one(s.PortworxVolume != nil, "portworxVolume", func() validation.ErrorList {
		return required(s.PortworxVolume.VolumeID, p.Child("portworxVolume", "volumeID"))
	})
	one(s.AzureDisk != nil, "azureDisk", func() validation.ErrorList { return validateAzureDisk(s.AzureDisk, p.Child("azureDisk")) })
	one(s.ScaleIO != nil, "scaleIO", func() validation.ErrorList {
		sp := p.Child("scaleIO")
		e := append(required(s.ScaleIO.Gateway, sp.Child("gateway")), required(s.ScaleIO.System, sp.Child("system"))...)
		return append(e, required(s.ScaleIO.VolumeName, sp.Child("volumeName"))...)
	})
	one(s.Local != nil, "local", func() validation.ErrorList {
		lp := p.Child("local", "path")
		var e validation.ErrorList
		if s.Local.Path == "" {
			e = append(e, validation.Required(lp, ""))
		} else {
			e = append(e, validatePathNoBacksteps(s.Local.Path, lp)...)
		}
		if !affinity {
			e = append(e, validation.Required(p.Child("nodeAffinity"), "Local volume requires node affinity"))
		}
		return e
	})
	one(s.StorageOS != nil, "storageos", func() validation.ErrorList {
		so, sp := s.StorageOS, p.Child("storageos")
		var e validation.ErrorList
		if so.VolumeName == "" {
			e = append(e, validation.Required(sp.Child("volumeName"), ""))
		} else {
			e = append(e, validateDNS1123Label(so.VolumeName, sp.Child("volumeName"))...)
		}
		if so.VolumeNamespace != "" {
			e = append(e, validateDNS1123Label(so.VolumeNamespace, sp.Child("volumeNamespace"))...)
		}
		if r := so.SecretRef; r != nil {
			e = append(e, required(r.Name, sp.Child("secretRef", "name"))...)
			e = append(e, required(r.Namespace, sp.Child("secretRef", "namespace"))...)
		}
		return e
	})
	one(s.CSI != nil, "csi", func() validation.ErrorList { return validateCSIPersistentVolumeSource(s.CSI, p.Child("csi")) })
	if n == 0 {
		errs = append(errs, validation.Required(p, "must specify a volume type"))
	}
	return errs
}

// validateISCSIPersistentVolumeSource is kube's: its messages differ from a pod
// volume's ("must be valid format" alone), and the length rule is on targetportal.
func validateISCSIPersistentVolumeSource(s *corev1.ISCSIPersistentVolumeSource, pvName string, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if s.TargetPortal == "" {
		errs = append(errs, validation.Required(p.Child("targetPortal"), ""))
	}
	if s.InitiatorName != nil && len(pvName+":"+s.TargetPortal) > 64 {
		errs = append(errs, validation.Invalid(p.Child("targetportal"), s.TargetPortal,
			"Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."))
	}
	known := func(v string) bool {
		return strings.HasPrefix(v, "iqn") || strings.HasPrefix(v, "eui") || strings.HasPrefix(v, "naa")
	}
	badFormat := func(v string) bool {
		return strings.HasPrefix(v, "iqn") && !iscsiIQN.MatchString(v) || strings.HasPrefix(v, "eui") && !iscsiEUI.MatchString(v) ||
			strings.HasPrefix(v, "naa") && !iscsiNAA.MatchString(v)
	}
	if s.IQN == "" {
		errs = append(errs, validation.Required(p.Child("iqn"), ""))
	} else if !known(s.IQN) || badFormat(s.IQN) {
		errs = append(errs, validation.Invalid(p.Child("iqn"), s.IQN, "must be valid format"))
	}
	if s.Lun < 0 || s.Lun > 255 {
		errs = append(errs, validation.Invalid(p.Child("lun"), int64(s.Lun), inclusiveRangeError(0, 255)))
	}
	if (s.DiscoveryCHAPAuth || s.SessionCHAPAuth) && s.SecretRef == nil {
		errs = append(errs, validation.Required(p.Child("secretRef"), ""))
	}
	if s.SecretRef != nil && s.SecretRef.Name == "" {
		errs = append(errs, validation.Required(p.Child("secretRef", "name"), ""))
	}
	if s.InitiatorName != nil {
		v := *s.InitiatorName
		if !known(v) {
			errs = append(errs, validation.Invalid(p.Child("initiatorname"), v, "must be valid format"))
		}
		if badFormat(v) {
			errs = append(errs, validation.Invalid(p.Child("initiatorname"), v, "must be valid format"))
		}
	}
	return errs
}

// validateCSIPersistentVolumeSource is kube's: the driver name, a volume handle, and
// each secret reference with a name (a DNS subdomain) and a namespace (a DNS label).
func validateCSIPersistentVolumeSource(c *corev1.CSIPersistentVolumeSource, p *validation.Path) validation.ErrorList {
	errs := validateCSIDriverName(c.Driver, p.Child("driver"))
	if c.VolumeHandle == "" {
		errs = append(errs, validation.Required(p.Child("volumeHandle"), ""))
	}
	for _, r := range []struct {
		name string
		ref  *corev1.SecretReference
	}{
		{"controllerPublishSecretRef", c.ControllerPublishSecretRef}, {"controllerExpandSecretRef", c.ControllerExpandSecretRef},
		{"nodePublishSecretRef", c.NodePublishSecretRef}, {"nodeExpandSecretRef", c.NodeExpandSecretRef},
	} {
		if r.ref == nil {
			continue
		}
		rp := p.Child(r.name)
		if r.ref.Name == "" {
			errs = append(errs, validation.Required(rp.Child("name"), ""))
		} else {
			errs = append(errs, validateDNS1123Subdomain(r.ref.Name, rp.Child("name"))...)
		}
		if r.ref.Namespace == "" {
			errs = append(errs, validation.Required(rp.Child("namespace"), ""))
		} else {
			errs = append(errs, validateDNS1123Label(r.ref.Namespace, rp.Child("namespace"))...)
		}
	}
	return errs
}

// validateCSIDriverName is kube's ValidateCSIDriverName: required, at most 63
// characters, a DNS subdomain once lowercased.
func validateCSIDriverName(driver string, p *validation.Path) validation.ErrorList {
	if driver == "" {
		return validation.ErrorList{validation.Required(p, "")}
	}
	var errs validation.ErrorList
	if len(driver) > 63 {
		errs = append(errs, validation.TooLong(p, "", 63))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(driver)) {
		errs = append(errs, validation.Invalid(p, driver, msg))
	}
	return errs
}

// validatePVUpdate is kube's ValidatePersistentVolumeUpdate with the strategy's own
// ValidatePersistentVolume before it (kube runs it twice, so its causes repeat): the
// volume source is immutable (but a CSI controllerExpandSecretRef may be added), so is
// the volume mode, the node affinity (MutablePVNodeAffinity is off), and an attributes
// class is not removed.
func validatePVUpdate(pv, old *corev1.PersistentVolume) validation.ErrorList {
	errs := validatePV(pv, old)
	// ValidatePersistentVolumeUpdate checks the spec again (without the mount options).
	allowInvalid := old.Spec.NodeAffinity != nil && old.Spec.NodeAffinity.Required != nil &&
		hasInvalidLabelValue(old.Spec.NodeAffinity.Required.NodeSelectorTerms)
	errs = append(errs, validatePVSpec(&pv.Spec, pv.Name, validation.NewPath("spec"), allowInvalid)...)
	next := pv.Spec.PersistentVolumeSource
	if old.Spec.CSI != nil && old.Spec.CSI.ControllerExpandSecretRef == nil && next.CSI != nil && next.CSI.ControllerExpandSecretRef != nil {
		csi := *next.CSI
		csi.ControllerExpandSecretRef = nil
		next.CSI = &csi
	}
	if !semanticEqual(next, old.Spec.PersistentVolumeSource) {
		errs = append(errs, validation.Forbidden(validation.NewPath("spec", "persistentvolumesource"),
			"spec.persistentvolumesource is immutable after creation\n"+podSpecDiff(&old.Spec.PersistentVolumeSource, &next)))
	}
	if !semanticEqual(pv.Spec.VolumeMode, old.Spec.VolumeMode) {
		errs = append(errs, validation.Invalid(validation.NewPath("volumeMode"), derefMode(pv.Spec.VolumeMode), "field is immutable"))
	}
	if old.Spec.NodeAffinity != nil && !semanticEqual(pv.Spec.NodeAffinity, old.Spec.NodeAffinity) {
		errs = append(errs, validation.Invalid(validation.NewPath("nodeAffinity"), badStruct(pv.Spec.NodeAffinity), "field is immutable, except for updating from beta label to GA"))
	}
	if old.Spec.VolumeAttributesClassName != nil && pv.Spec.VolumeAttributesClassName == nil {
		errs = append(errs, validation.Forbidden(validation.NewPath("spec", "volumeAttributesClassName"), "update from non-nil value to nil is forbidden"))
	}
	return errs
}

// pvWarnings are kube's GetWarningsForPersistentVolume: the deprecated annotations,
// the Recycle policy, beta node labels in the node affinity, and the removed sources.
func pvWarnings(pv *corev1.PersistentVolume) []string {
	var w []string
	for _, d := range []struct{ key, msg string }{
		{betaStorageClassAnnotation, `deprecated since v1.8; use "storageClassName" attribute instead`},
		{mountOptionsAnnotation, `deprecated since v1.31; use "mountOptions" attribute instead`},
	} {
		if _, ok := pv.Annotations[d.key]; ok {
			w = append(w, validation.NewPath("metadata", "annotations").Key(d.key).String()+": "+d.msg)
		}
	}
	spec := &pv.Spec
	if spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
		w = append(w, "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.")
	}
	if na := spec.NodeAffinity; na != nil && na.Required != nil {
		tp := validation.NewPath("spec", "nodeAffinity", "required", "nodeSelectorTerms")
		for i, t := range na.Required.NodeSelectorTerms {
			w = append(w, nodeSelectorTermWarnings(t, false, tp.Index(i))...)
		}
	}
	for _, d := range []struct {
		set        bool
		field, msg string
	}{
		{spec.CephFS != nil, "cephfs", "deprecated in v1.28, non-functional in v1.31+"},
		{spec.PhotonPersistentDisk != nil, "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
		{spec.ScaleIO != nil, "scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
		{spec.StorageOS != nil, "storageOS", "deprecated in v1.22, non-functional in v1.25+"},
		{spec.Glusterfs != nil, "glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
		{spec.RBD != nil, "rbd", "deprecated in v1.28, non-functional in v1.31+"},
	} {
		if d.set {
			w = append(w, "spec."+d.field+": "+d.msg)
		}
	}
	return w
}
