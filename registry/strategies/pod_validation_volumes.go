package strategies

import (
	"net"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// validateVolumes is kube's ValidateVolumes: each volume's name is a unique DNS label
// and its source is exactly one valid source. It returns the valid volumes by name,
// which the containers' mounts must refer to.
func validateVolumes(volumes []corev1.Volume, meta *scheme.ObjectMeta, fldPath *validation.Path) (map[string]corev1.VolumeSource, validation.ErrorList) {
	var errs validation.ErrorList
	names := map[string]bool{}
	created := map[string]bool{}
	if meta != nil && meta.Name != "" {
		for _, v := range volumes {
			if v.Ephemeral != nil {
				created[meta.Name+"-"+v.Name] = true
			}
		}
	}
	vols := make(map[string]corev1.VolumeSource, len(volumes))
	for i := range volumes {
		v := &volumes[i]
		p := fldPath.Index(i)
		el := validateVolumeSource(&v.VolumeSource, p, v.Name, meta)
		if v.Name == "" {
			el = append(el, validation.Required(p.Child("name"), ""))
		} else {
			el = append(el, validateDNS1123Label(v.Name, p.Child("name"))...)
		}
		if names[v.Name] {
			el = append(el, validation.Duplicate(p.Child("name"), v.Name))
		}
		if len(el) == 0 {
			names[v.Name] = true
			vols[v.Name] = v.VolumeSource
		} else {
			errs = append(errs, el...)
		}
		if v.PersistentVolumeClaim != nil && created[v.PersistentVolumeClaim.ClaimName] {
			errs = append(errs, validation.Invalid(p.Child("persistentVolumeClaim", "claimName"), v.PersistentVolumeClaim.ClaimName,
				"must not reference a PVC that gets created for an ephemeral volume"))
		}
	}
	return vols, errs
}

// validateVolumeSource checks that exactly one source is set, in kube's order and with
// its paths (including its "downwarAPI", "cephFS" and "persistentDisk" spellings).
func validateVolumeSource(s *corev1.VolumeSource, fldPath *validation.Path, volName string, meta *scheme.ObjectMeta) validation.ErrorList {
	var errs validation.ErrorList
	n := 0
	if s.EmptyDir != nil {
		n++
		if l := s.EmptyDir.SizeLimit; l != nil && l.Sign() < 0 {
			errs = append(errs, validation.Forbidden(fldPath.Child("emptyDir", "sizeLimit"), "SizeLimit field must be a valid resource quantity"))
		}
		if m := s.EmptyDir.Mode; m != nil && (*m > 0o1777 || *m < 0) {
			errs = append(errs, validation.Invalid(fldPath.Child("emptyDir", "mode"), int64(*m), emptyDirModeErrorMsg))
		}
	}
	one := func(set bool, name string, check func() validation.ErrorList) {
		if !set {
			return
		}
		if n > 0 {
			errs = append(errs, validation.Forbidden(fldPath.Child(name), "may not specify more than 1 volume type"))
			return
		}
		n++
		errs = append(errs, check()...)
	}
	one(s.HostPath != nil, "hostPath", func() validation.ErrorList {
		return validateHostPathVolumeSource(s.HostPath, fldPath.Child("hostPath"))
	})
	one(s.GitRepo != nil, "gitRepo", func() validation.ErrorList {
		var e validation.ErrorList
		if s.GitRepo.Repository == "" {
			e = append(e, validation.Required(fldPath.Child("gitRepo", "repository"), ""))
		}
		return append(e, validateLocalDescendingPath(s.GitRepo.Directory, fldPath.Child("gitRepo", "directory"))...)
	})
	one(s.GCEPersistentDisk != nil, "gcePersistentDisk", func() validation.ErrorList {
		return validateDisk(s.GCEPersistentDisk.PDName, "pdName", s.GCEPersistentDisk.Partition, fldPath.Child("persistentDisk"))
	})
	one(s.AWSElasticBlockStore != nil, "awsElasticBlockStore", func() validation.ErrorList {
		return validateDisk(s.AWSElasticBlockStore.VolumeID, "volumeID", s.AWSElasticBlockStore.Partition, fldPath.Child("awsElasticBlockStore"))
	})
	one(s.Secret != nil, "secret", func() validation.ErrorList { return validateSecretVolumeSource(s.Secret, fldPath.Child("secret")) })
	one(s.NFS != nil, "nfs", func() validation.ErrorList {
		p := fldPath.Child("nfs")
		var e validation.ErrorList
		if s.NFS.Server == "" {
			e = append(e, validation.Required(p.Child("server"), ""))
		}
		if s.NFS.Path == "" {
			e = append(e, validation.Required(p.Child("path"), ""))
		}
		if !path.IsAbs(s.NFS.Path) {
			e = append(e, validation.Invalid(p.Child("path"), s.NFS.Path, "must be an absolute path"))
		}
		return e
	})
	one(s.ISCSI != nil, "iscsi", func() validation.ErrorList { return validateISCSIVolumeSource(s.ISCSI, fldPath.Child("iscsi")) })
	if s.ISCSI != nil && s.ISCSI.InitiatorName != nil && len(volName+":"+s.ISCSI.TargetPortal) > 64 {
		errs = append(errs, validation.Invalid(fldPath.Child("name"), volName,
			"Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."))
	}
	one(s.Glusterfs != nil, "glusterfs", func() validation.ErrorList {
		p := fldPath.Child("glusterfs")
		var e validation.ErrorList
		if s.Glusterfs.EndpointsName == "" {
			e = append(e, validation.Required(p.Child("endpoints"), ""))
		}
		if s.Glusterfs.Path == "" {
			e = append(e, validation.Required(p.Child("path"), ""))
		}
		return e
	})
	one(s.Flocker != nil, "flocker", func() validation.ErrorList {
		p := fldPath.Child("flocker")
		var e validation.ErrorList
		f := s.Flocker
		if f.DatasetName == "" && f.DatasetUUID == "" {
			e = append(e, validation.Required(p, "one of datasetName and datasetUUID is required"))
		}
		if f.DatasetName != "" && f.DatasetUUID != "" {
			e = append(e, validation.Invalid(p, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
		}
		if strings.Contains(f.DatasetName, "/") {
			e = append(e, validation.Invalid(p.Child("datasetName"), f.DatasetName, "must not contain '/'"))
		}
		return e
	})
	one(s.PersistentVolumeClaim != nil, "persistentVolumeClaim", func() validation.ErrorList {
		if s.PersistentVolumeClaim.ClaimName == "" {
			return validation.ErrorList{validation.Required(fldPath.Child("persistentVolumeClaim", "claimName"), "")}
		}
		return nil
	})
	one(s.RBD != nil, "rbd", func() validation.ErrorList {
		p := fldPath.Child("rbd")
		var e validation.ErrorList
		if len(s.RBD.CephMonitors) == 0 {
			e = append(e, validation.Required(p.Child("monitors"), ""))
		}
		if s.RBD.RBDImage == "" {
			e = append(e, validation.Required(p.Child("image"), ""))
		}
		return e
	})
	one(s.Cinder != nil, "cinder", func() validation.ErrorList {
		var e validation.ErrorList
		if s.Cinder.VolumeID == "" {
			e = append(e, validation.Required(fldPath.Child("cinder", "volumeID"), ""))
		}
		if s.Cinder.SecretRef != nil && s.Cinder.SecretRef.Name == "" {
			e = append(e, validation.Required(fldPath.Child("cinder", "secretRef", "name"), ""))
		}
		return e
	})
	one(s.CephFS != nil, "cephFS", func() validation.ErrorList {
		if len(s.CephFS.Monitors) == 0 {
			return validation.ErrorList{validation.Required(fldPath.Child("cephfs", "monitors"), "")}
		}
		return nil
	})
	one(s.Quobyte != nil, "quobyte", func() validation.ErrorList { return validateQuobyteVolumeSource(s.Quobyte, fldPath.Child("quobyte")) })
	one(s.DownwardAPI != nil, "downwarAPI", func() validation.ErrorList {
		return validateDownwardAPIVolumeSource(s.DownwardAPI, fldPath.Child("downwardAPI"))
	})
	one(s.FC != nil, "fc", func() validation.ErrorList { return validateFCVolumeSource(s.FC, fldPath.Child("fc")) })
	one(s.FlexVolume != nil, "flexVolume", func() validation.ErrorList {
		p := fldPath.Child("flexVolume")
		var e validation.ErrorList
		if s.FlexVolume.Driver == "" {
			e = append(e, validation.Required(p.Child("driver"), ""))
		}
		for _, k := range sortedKeys(s.FlexVolume.Options) {
			ns, _, _ := strings.Cut(k, "/")
			if n := "." + strings.ToLower(ns); strings.HasSuffix(n, ".kubernetes.io") || strings.HasSuffix(n, ".k8s.io") {
				e = append(e, validation.Invalid(p.Child("options").Key(k), k, "kubernetes.io and k8s.io namespaces are reserved"))
			}
		}
		return e
	})
	one(s.ConfigMap != nil, "configMap", func() validation.ErrorList {
		return validateConfigMapVolumeSource(s.ConfigMap, fldPath.Child("configMap"))
	})
	one(s.AzureFile != nil, "azureFile", func() validation.ErrorList {
		p := fldPath.Child("azureFile")
		var e validation.ErrorList
		if s.AzureFile.SecretName == "" {
			e = append(e, validation.Required(p.Child("secretName"), ""))
		}
		if s.AzureFile.ShareName == "" {
			e = append(e, validation.Required(p.Child("shareName"), ""))
		}
		return e
	})
	one(s.VsphereVolume != nil, "vsphereVolume", func() validation.ErrorList {
		if s.VsphereVolume.VolumePath == "" {
			return validation.ErrorList{validation.Required(fldPath.Child("vsphereVolume", "volumePath"), "")}
		}
		return nil
	})
	one(s.PhotonPersistentDisk != nil, "photonPersistentDisk", func() validation.ErrorList {
		if s.PhotonPersistentDisk.PdID == "" {
			return validation.ErrorList{validation.Required(fldPath.Child("photonPersistentDisk", "pdID"), "")}
		}
		return nil
	})
	one(s.PortworxVolume != nil, "portworxVolume", func() validation.ErrorList {
		if s.PortworxVolume.VolumeID == "" {
			return validation.ErrorList{validation.Required(fldPath.Child("portworxVolume", "volumeID"), "")}
		}
		return nil
	})
	one(s.AzureDisk != nil, "azureDisk", func() validation.ErrorList { return validateAzureDisk(s.AzureDisk, fldPath.Child("azureDisk")) })
	one(s.StorageOS != nil, "storageos", func() validation.ErrorList {
		p := fldPath.Child("storageos")
		var e validation.ErrorList
		if s.StorageOS.VolumeName == "" {
			e = append(e, validation.Required(p.Child("volumeName"), ""))
		} else {
			e = append(e, validateDNS1123Label(s.StorageOS.VolumeName, p.Child("volumeName"))...)
		}
		if s.StorageOS.VolumeNamespace != "" {
			e = append(e, validateDNS1123Label(s.StorageOS.VolumeNamespace, p.Child("volumeNamespace"))...)
		}
		if s.StorageOS.SecretRef != nil && s.StorageOS.SecretRef.Name == "" {
			e = append(e, validation.Required(p.Child("secretRef", "name"), ""))
		}
		return e
	})
	one(s.Projected != nil, "projected", func() validation.ErrorList {
		return validateProjectedVolumeSource(s.Projected, fldPath.Child("projected"))
	})
	one(s.ScaleIO != nil, "scaleIO", func() validation.ErrorList {
		p := fldPath.Child("scaleIO")
		var e validation.ErrorList
		if s.ScaleIO.Gateway == "" {
			e = append(e, validation.Required(p.Child("gateway"), ""))
		}
		if s.ScaleIO.System == "" {
			e = append(e, validation.Required(p.Child("system"), ""))
		}
		if s.ScaleIO.VolumeName == "" {
			e = append(e, validation.Required(p.Child("volumeName"), ""))
		}
		return e
	})
	one(s.CSI != nil, "csi", func() validation.ErrorList { return validateCSIVolumeSource(s.CSI, fldPath.Child("csi")) })
	one(s.Ephemeral != nil, "ephemeral", func() validation.ErrorList {
		var e validation.ErrorList
		if s.Ephemeral.VolumeClaimTemplate == nil {
			e = append(e, validation.Required(fldPath.Child("ephemeral", "volumeClaimTemplate"), ""))
		} else {
			e = append(e, validateClaimTemplate(s.Ephemeral.VolumeClaimTemplate, fldPath.Child("ephemeral", "volumeClaimTemplate"))...)
		}
		if meta != nil && meta.Name != "" && volName != "" {
			pvc := meta.Name + "-" + volName
			for _, msg := range validation.NameIsDNSSubdomain(pvc, false) {
				e = append(e, validation.Invalid(fldPath.Child("name"), volName, "PVC name \""+pvc+"\": "+msg))
			}
		}
		return e
	})
	one(s.Image != nil, "image", func() validation.ErrorList {
		var e validation.ErrorList
		if s.Image.Reference == "" {
			e = append(e, validation.Required(fldPath.Child("image", "reference"), ""))
		}
		return append(e, validatePullPolicy(s.Image.PullPolicy, fldPath.Child("image", "pullPolicy"))...)
	})
	if n == 0 {
		errs = append(errs, validation.Required(fldPath, "must specify a volume type"))
	}
	return errs
}

func validateDisk(id, idField string, partition int32, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if id == "" {
		errs = append(errs, validation.Required(p.Child(idField), ""))
	}
	if partition < 0 || partition > 255 {
		errs = append(errs, validation.Invalid(p.Child("partition"), int64(partition), inclusiveRangeError(1, 255)))
	}
	return errs
}

var hostPathTypes = []string{"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}

func validateHostPathVolumeSource(h *corev1.HostPathVolumeSource, p *validation.Path) validation.ErrorList {
	if h.Path == "" {
		return validation.ErrorList{validation.Required(p.Child("path"), "")}
	}
	errs := validatePathNoBacksteps(h.Path, p.Child("path"))
	if t := h.Type; t != nil {
		ok := false
		for _, v := range hostPathTypes {
			ok = ok || string(*t) == v
		}
		if !ok {
			errs = append(errs, validation.NotSupported(p.Child("type"), string(*t), hostPathTypes))
		}
	}
	return errs
}

func validateFileMode(m *int32, p *validation.Path) validation.ErrorList {
	if m != nil && (*m > 0o777 || *m < 0) {
		return validation.ErrorList{validation.Invalid(p, int64(*m), fileModeErrorMsg)}
	}
	return nil
}

func validateUser(u *int64, p *validation.Path) validation.ErrorList {
	if u == nil {
		return nil
	}
	return validateID(*u, p)
}

func validateSecretVolumeSource(s *corev1.SecretVolumeSource, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if s.SecretName == "" {
		errs = append(errs, validation.Required(p.Child("secretName"), ""))
	}
	errs = append(errs, validateFileMode(s.DefaultMode, p.Child("defaultMode"))...)
	errs = append(errs, validateUser(s.DefaultUser, p.Child("defaultUser"))...)
	for i := range s.Items {
		errs = append(errs, validateKeyToPath(&s.Items[i], p.Child("items").Index(i))...)
	}
	return errs
}

func validateConfigMapVolumeSource(s *corev1.ConfigMapVolumeSource, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if s.Name == "" {
		errs = append(errs, validation.Required(p.Child("name"), ""))
	}
	errs = append(errs, validateFileMode(s.DefaultMode, p.Child("defaultMode"))...)
	errs = append(errs, validateUser(s.DefaultUser, p.Child("defaultUser"))...)
	for i := range s.Items {
		errs = append(errs, validateKeyToPath(&s.Items[i], p.Child("items").Index(i))...)
	}
	return errs
}

func validateKeyToPath(kp *corev1.KeyToPath, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if kp.Key == "" {
		errs = append(errs, validation.Required(p.Child("key"), ""))
	}
	if kp.Path == "" {
		errs = append(errs, validation.Required(p.Child("path"), ""))
	}
	errs = append(errs, validateLocalNonReservedPath(kp.Path, p.Child("path"))...)
	errs = append(errs, validateFileMode(kp.Mode, p.Child("mode"))...)
	return append(errs, validateUser(kp.User, p.Child("user"))...)
}

func validateDownwardAPIVolumeFile(f *corev1.DownwardAPIVolumeFile, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if f.Path == "" {
		errs = append(errs, validation.Required(p.Child("path"), ""))
	}
	errs = append(errs, validateLocalNonReservedPath(f.Path, p.Child("path"))...)
	switch {
	case f.FieldRef != nil:
		errs = append(errs, validateObjectFieldSelector(f.FieldRef, volumeFieldPaths, p.Child("fieldRef"))...)
		if f.ResourceFieldRef != nil {
			errs = append(errs, validation.Invalid(p, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	case f.ResourceFieldRef != nil:
		errs = append(errs, validateContainerResourceFieldSelector(f.ResourceFieldRef, p.Child("resourceFieldRef"), true)...)
	default:
		errs = append(errs, validation.Required(p, "one of fieldRef and resourceFieldRef is required"))
	}
	errs = append(errs, validateFileMode(f.Mode, p.Child("mode"))...)
	return append(errs, validateUser(f.User, p.Child("user"))...)
}

func validateDownwardAPIVolumeSource(s *corev1.DownwardAPIVolumeSource, p *validation.Path) validation.ErrorList {
	errs := validateFileMode(s.DefaultMode, p.Child("defaultMode"))
	errs = append(errs, validateUser(s.DefaultUser, p.Child("defaultUser"))...)
	for i := range s.Items {
		// kube reports an item's errors without its index.
		errs = append(errs, validateDownwardAPIVolumeFile(&s.Items[i], p)...)
	}
	return errs
}

func validateProjectedVolumeSource(s *corev1.ProjectedVolumeSource, p *validation.Path) validation.ErrorList {
	errs := validateFileMode(s.DefaultMode, p.Child("defaultMode"))
	errs = append(errs, validateUser(s.DefaultUser, p.Child("defaultUser"))...)
	paths := map[string]bool{}
	dup := func(path string, bad any) {
		if paths[path] {
			errs = append(errs, validation.Invalid(p, bad, "conflicting duplicate paths"))
		}
		paths[path] = true
	}
	for i, src := range s.Sources {
		sp := p.Child("sources").Index(i)
		n := 0
		if src.Secret != nil {
			n++
			pp := sp.Child("secret")
			if src.Secret.Name == "" {
				errs = append(errs, validation.Required(pp.Child("name"), ""))
			}
			for j := range src.Secret.Items {
				kp := &src.Secret.Items[j]
				errs = append(errs, validateKeyToPath(kp, pp.Child("items").Index(j))...)
				if kp.Path != "" {
					dup(kp.Path, src.Secret.Name)
				}
			}
		}
		if src.ConfigMap != nil {
			n++
			pp := sp.Child("configMap")
			if src.ConfigMap.Name == "" {
				errs = append(errs, validation.Required(pp.Child("name"), ""))
			}
			for j := range src.ConfigMap.Items {
				kp := &src.ConfigMap.Items[j]
				errs = append(errs, validateKeyToPath(kp, pp.Child("items").Index(j))...)
				if kp.Path != "" {
					dup(kp.Path, src.ConfigMap.Name)
				}
			}
		}
		if src.DownwardAPI != nil {
			n++
			for j := range src.DownwardAPI.Items {
				f := &src.DownwardAPI.Items[j]
				errs = append(errs, validateDownwardAPIVolumeFile(f, sp.Child("downwardAPI"))...)
				if f.Path != "" {
					dup(f.Path, f.Path)
				}
			}
		}
		if t := src.ServiceAccountToken; t != nil {
			n++
			pp := sp.Child("serviceAccountToken")
			if t.ExpirationSeconds == nil {
				errs = append(errs, validation.Required(pp.Child("expirationSeconds"), ""))
			} else {
				if *t.ExpirationSeconds < 10*60 {
					errs = append(errs, validation.Invalid(pp.Child("expirationSeconds"), *t.ExpirationSeconds, "may not specify a duration less than 10 minutes"))
				}
				if *t.ExpirationSeconds > 1<<32 {
					errs = append(errs, validation.Invalid(pp.Child("expirationSeconds"), *t.ExpirationSeconds, "may not specify a duration larger than 2^32 seconds"))
				}
			}
			// kube reports the token's path at the projected source's path.
			if t.Path == "" {
				errs = append(errs, validation.Required(p.Child("path"), ""))
			} else {
				errs = append(errs, validateLocalNonReservedPath(t.Path, p.Child("path"))...)
			}
			errs = append(errs, validateUser(t.User, pp.Child("user"))...)
		}
		if b := src.ClusterTrustBundle; b != nil {
			n++
			pp := sp.Child("clusterTrustBundle")
			switch {
			case b.Name != nil && b.SignerName != nil:
				errs = append(errs, validation.Invalid(pp, badStruct(b), "only one of name and signerName may be used"))
			case b.Name != nil:
				if *b.Name == "" {
					errs = append(errs, validation.Required(pp.Child("name"), "must be a valid object name"))
				}
				if b.LabelSelector != nil {
					errs = append(errs, validation.Invalid(pp.Child("labelSelector"), b.LabelSelector, "labelSelector must be unset if name is specified"))
				}
			case b.SignerName != nil:
				if *b.SignerName == "" {
					errs = append(errs, validation.Required(pp.Child("signerName"), "must be a valid signer name"))
				}
				errs = append(errs, validatePodLabelSelector(b.LabelSelector, false, pp.Child("labelSelector"))...)
			default:
				errs = append(errs, validation.Required(pp, "either name or signerName must be specified"))
			}
			if b.Path == "" {
				errs = append(errs, validation.Required(pp.Child("path"), ""))
			}
			errs = append(errs, validateUser(b.User, pp.Child("user"))...)
			errs = append(errs, validateLocalNonReservedPath(b.Path, pp.Child("path"))...)
			dup(b.Path, b.Path)
		}
		if c := src.PodCertificate; c != nil {
			n++
			pp := sp.Child("podCertificate")
			switch c.KeyType {
			case "RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519":
			default:
				errs = append(errs, validation.NotSupported(pp.Child("keyType"), c.KeyType, []string{"RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"}))
			}
			if m := c.MaxExpirationSeconds; m != nil && *m < 3600 {
				errs = append(errs, validation.Invalid(pp.Child("maxExpirationSeconds"), int64(*m), "if provided, maxExpirationSeconds must be >= 3600"))
			}
			paths := 0
			for _, f := range []struct{ v, name string }{{c.CredentialBundlePath, "credentialBundlePath"}, {c.KeyPath, "keyPath"}, {c.CertificateChainPath, "certificateChainPath"}} {
				if f.v == "" {
					continue
				}
				paths++
				errs = append(errs, validateLocalNonReservedPath(f.v, pp.Child(f.name))...)
				dup(f.v, f.v)
			}
			if paths == 0 {
				errs = append(errs, validation.Required(pp, "specify at least one of credentialBundlePath, keyPath, and certificateChainPath"))
			}
		}
		if n > 1 {
			errs = append(errs, validation.Forbidden(sp, "may not specify more than 1 volume type per source"))
		}
	}
	return errs
}

var (
	iscsiIQN = regexp.MustCompile(`iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$`)
	iscsiEUI = regexp.MustCompile(`^eui.[[:alnum:]]{16}$`)
	iscsiNAA = regexp.MustCompile(`^naa.[[:alnum:]]{32}$`)
)

func validateISCSIVolumeSource(s *corev1.ISCSIVolumeSource, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if s.TargetPortal == "" {
		errs = append(errs, validation.Required(p.Child("targetPortal"), ""))
	}
	badFormat := func(v string) bool {
		return strings.HasPrefix(v, "iqn") && !iscsiIQN.MatchString(v) || strings.HasPrefix(v, "eui") && !iscsiEUI.MatchString(v) ||
			strings.HasPrefix(v, "naa") && !iscsiNAA.MatchString(v)
	}
	known := func(v string) bool {
		return strings.HasPrefix(v, "iqn") || strings.HasPrefix(v, "eui") || strings.HasPrefix(v, "naa")
	}
	if s.IQN == "" {
		errs = append(errs, validation.Required(p.Child("iqn"), ""))
	} else if !known(s.IQN) {
		errs = append(errs, validation.Invalid(p.Child("iqn"), s.IQN, "must be valid format starting with iqn, eui, or naa"))
	} else if badFormat(s.IQN) {
		errs = append(errs, validation.Invalid(p.Child("iqn"), s.IQN, "must be valid format"))
	}
	if s.Lun < 0 || s.Lun > 255 {
		errs = append(errs, validation.Invalid(p.Child("lun"), int64(s.Lun), inclusiveRangeError(0, 255)))
	}
	if (s.DiscoveryCHAPAuth || s.SessionCHAPAuth) && s.SecretRef == nil {
		errs = append(errs, validation.Required(p.Child("secretRef"), ""))
	}
	if s.InitiatorName != nil {
		v := *s.InitiatorName
		if !known(v) {
			errs = append(errs, validation.Invalid(p.Child("initiatorname"), v, "must be valid format starting with iqn, eui, or naa"))
		}
		if badFormat(v) {
			errs = append(errs, validation.Invalid(p.Child("initiatorname"), v, "must be valid format"))
		}
	}
	return errs
}

func validateQuobyteVolumeSource(q *corev1.QuobyteVolumeSource, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	const hostPorts = "must be a host:port pair or multiple pairs separated by commas"
	switch {
	case q.Registry == "":
		errs = append(errs, validation.Required(p.Child("registry"), hostPorts))
	case len(q.Tenant) >= 65:
		errs = append(errs, validation.Required(p.Child("tenant"), "must be a UUID and may not exceed a length of 64 characters"))
	default:
		for _, hp := range strings.Split(q.Registry, ",") {
			if _, _, err := net.SplitHostPort(hp); err != nil {
				errs = append(errs, validation.Invalid(p.Child("registry"), q.Registry, hostPorts))
			}
		}
	}
	if q.Volume == "" {
		errs = append(errs, validation.Required(p.Child("volume"), ""))
	}
	return errs
}

func validateFCVolumeSource(fc *corev1.FCVolumeSource, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if len(fc.TargetWWNs) < 1 && len(fc.WWIDs) < 1 {
		errs = append(errs, validation.Required(p.Child("targetWWNs"), "must specify either targetWWNs or wwids, but not both"))
	}
	if len(fc.TargetWWNs) != 0 && len(fc.WWIDs) != 0 {
		errs = append(errs, validation.Invalid(p.Child("targetWWNs"), fc.TargetWWNs, "targetWWNs and wwids can not be specified simultaneously"))
	}
	if len(fc.TargetWWNs) != 0 {
		if fc.Lun == nil {
			errs = append(errs, validation.Required(p.Child("lun"), "lun is required if targetWWNs is specified"))
		} else if *fc.Lun < 0 || *fc.Lun > 255 {
			errs = append(errs, validation.Invalid(p.Child("lun"), int64(*fc.Lun), inclusiveRangeError(0, 255)))
		}
	}
	return errs
}

func validateAzureDisk(a *corev1.AzureDiskVolumeSource, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if a.DiskName == "" {
		errs = append(errs, validation.Required(p.Child("diskName"), ""))
	}
	if a.DataDiskURI == "" {
		errs = append(errs, validation.Required(p.Child("diskURI"), ""))
	}
	if a.CachingMode != nil {
		switch *a.CachingMode {
		case corev1.AzureDataDiskCachingNone, corev1.AzureDataDiskCachingReadOnly, corev1.AzureDataDiskCachingReadWrite:
		default:
			errs = append(errs, validation.NotSupported(p.Child("cachingMode"), string(*a.CachingMode), []string{"None", "ReadOnly", "ReadWrite"}))
		}
	}
	if a.Kind != nil {
		switch *a.Kind {
		case corev1.AzureSharedBlobDisk, corev1.AzureDedicatedBlobDisk, corev1.AzureManagedDisk:
		default:
			errs = append(errs, validation.NotSupported(p.Child("kind"), string(*a.Kind), []string{"Dedicated", "Managed", "Shared"}))
		}
	}
	if a.Kind != nil && *a.Kind == corev1.AzureManagedDisk && strings.Index(a.DataDiskURI, "/subscriptions/") != 0 {
		errs = append(errs, validation.NotSupported(p.Child("diskURI"), a.DataDiskURI, []string{"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"}))
	}
	if a.Kind != nil && *a.Kind != corev1.AzureManagedDisk && strings.Index(a.DataDiskURI, "https://") != 0 {
		errs = append(errs, validation.NotSupported(p.Child("diskURI"), a.DataDiskURI, []string{"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"}))
	}
	return errs
}

// csiDriverName is kube's ValidateCSIDriverName: a DNS-1123 subdomain of at most 63
// characters.
func validateCSIVolumeSource(c *corev1.CSIVolumeSource, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	dp := p.Child("driver")
	switch {
	case c.Driver == "":
		errs = append(errs, validation.Required(dp, ""))
	default:
		if len(c.Driver) > 63 {
			errs = append(errs, validation.TooLong(dp, "", 63))
		}
		for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(c.Driver)) {
			errs = append(errs, validation.Invalid(dp, c.Driver, msg))
		}
	}
	if r := c.NodePublishSecretRef; r != nil {
		if r.Name == "" {
			errs = append(errs, validation.Required(p.Child("nodePublishSecretRef", "name"), ""))
		} else {
			for _, msg := range validation.NameIsDNSSubdomain(r.Name, false) {
				errs = append(errs, validation.Invalid(p.Child("name"), r.Name, msg))
			}
		}
	}
	return errs
}

// validateClaimTemplate is kube's ValidatePersistentVolumeClaimTemplate but for the
// claim's dataSource and dataSourceRef: only labels and annotations in the metadata,
// known access modes, a positive storage request, the class name and volume mode.
func validateClaimTemplate(t *corev1.PersistentVolumeClaimTemplate, p *validation.Path) validation.ErrorList {
	mp := p.Child("metadata")
	errs := validation.ValidateAnnotations(t.Annotations, mp.Child("annotations"))
	errs = append(errs, validation.ValidateLabels(t.Labels, mp.Child("labels"))...)
	m := t.ObjectMeta
	m.Labels, m.Annotations = nil, nil
	for _, f := range []struct {
		set  bool
		name string
	}{{m.Name != "", "name"}, {m.GenerateName != "", "generateName"}, {m.Namespace != "", "namespace"}, {m.SelfLink != "", "selfLink"},
		{m.UID != "", "uID"}, {m.ResourceVersion != "", "resourceVersion"}, {m.Generation != 0, "generation"},
		{!m.CreationTimestamp.IsZero(), "creationTimestamp"}, {m.DeletionTimestamp != nil, "deletionTimestamp"},
		{m.DeletionGracePeriodSeconds != nil, "deletionGracePeriodSeconds"}, {m.OwnerReferences != nil, "ownerReferences"},
		{m.Finalizers != nil, "finalizers"}, {m.ManagedFields != nil, "managedFields"}} {
		if f.set {
			errs = append(errs, validation.Forbidden(mp.Child(f.name), "cannot be set"))
		}
	}
	sp := p.Child("spec")
	if len(t.Spec.AccessModes) == 0 {
		errs = append(errs, validation.Required(sp.Child("accessModes"), "at least 1 access mode is required"))
	}
	if t.Spec.Selector != nil {
		errs = append(errs, validatePodLabelSelector(t.Spec.Selector, false, sp.Child("selector"))...)
	}
	rwop, other := false, false
	for _, mode := range t.Spec.AccessModes {
		switch mode {
		case corev1.ReadWriteOncePod:
			rwop = true
		case corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteMany:
			other = true
		default:
			errs = append(errs, validation.NotSupported(sp.Child("accessModes"), string(mode), []string{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}))
		}
	}
	if rwop && other {
		errs = append(errs, validation.Forbidden(sp.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	storagePath := sp.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := t.Spec.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, validation.Required(storagePath, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, validation.Invalid(storagePath, q.String(), isNotPositiveErrorMsg))
	}
	if c := t.Spec.StorageClassName; c != nil && *c != "" {
		for _, msg := range validation.NameIsDNSSubdomain(*c, false) {
			errs = append(errs, validation.Invalid(sp.Child("storageClassName"), *c, msg))
		}
	}
	if m := t.Spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, validation.NotSupported(sp.Child("volumeMode"), string(*m), []string{"Block", "Filesystem"}))
	}
	return errs
}

// validateLocalDescendingPath: a relative path without "..".
func validateLocalDescendingPath(target string, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if path.IsAbs(target) {
		errs = append(errs, validation.Invalid(p, target, "must be a relative path"))
	}
	return append(errs, validatePathNoBacksteps(target, p)...)
}

func hasBacksteps(target string) bool {
	for _, part := range strings.Split(filepath.ToSlash(target), "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

func validatePathNoBacksteps(target string, p *validation.Path) validation.ErrorList {
	if hasBacksteps(target) {
		return validation.ErrorList{validation.Invalid(p, target, "must not contain '..'")}
	}
	return nil
}

func validateLocalNonReservedPath(target string, p *validation.Path) validation.ErrorList {
	errs := validateLocalDescendingPath(target, p)
	if strings.HasPrefix(target, "..") && !strings.HasPrefix(target, "../") {
		errs = append(errs, validation.Invalid(p, target, "must not start with '..'"))
	}
	return errs
}
