package strategies

import (
	"math"
	"strconv"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// validatePodTemplateSpec checks a pod template as kube's ValidatePodTemplateSpec does:
// the template's labels and annotations, then its pod spec (with no pod metadata, as a
// template has no name yet); ephemeral containers are forbidden in a template.
func validatePodTemplateSpec(spec *corev1.PodTemplateSpec, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	errs = append(errs, validation.ValidateLabels(spec.Labels, fldPath.Child("labels"))...)
	errs = append(errs, validation.ValidateAnnotations(spec.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, validatePodSpec(&spec.Spec, nil, fldPath.Child("spec"))...)
	if len(spec.Spec.EphemeralContainers) > 0 {
		errs = append(errs, validation.Forbidden(fldPath.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// validatePodSpec checks a pod spec as kube's ValidatePodSpec does, in its order, with
// its messages and paths. meta is the pod's metadata, nil for a template.
func validatePodSpec(spec *corev1.PodSpec, meta *scheme.ObjectMeta, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if spec.TerminationGracePeriodSeconds == nil {
		errs = append(errs, validation.Required(fldPath.Child("terminationGracePeriodSeconds"), ""))
	}
	errs = append(errs, validateContainers(spec.Containers, fldPath.Child("containers"))...)
	errs = append(errs, validateRestartPolicy(spec.RestartPolicy, fldPath.Child("restartPolicy"))...)
	errs = append(errs, validateDNSPolicy(spec.DNSPolicy, fldPath.Child("dnsPolicy"))...)
	errs = append(errs, validation.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	if spec.ServiceAccountName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(spec.ServiceAccountName) {
			errs = append(errs, validation.Invalid(fldPath.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	if spec.DeprecatedServiceAccount != spec.ServiceAccountName {
		errs = append(errs, validation.Invalid(fldPath.Child("deprecatedServiceAccount"), spec.DeprecatedServiceAccount,
			"must be the same as serviceAccountName: "+strconv.Quote(spec.ServiceAccountName)))
	}
	if spec.ActiveDeadlineSeconds != nil {
		if v := *spec.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			errs = append(errs, validation.Invalid(fldPath.Child("activeDeadlineSeconds"), v, inclusiveRangeError(1, math.MaxInt32)))
		}
	}
	if spec.Hostname != "" {
		errs = append(errs, validateDNS1123Label(spec.Hostname, fldPath.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, validateDNS1123Label(spec.Subdomain, fldPath.Child("subdomain"))...)
	}
	return errs
}

// inclusiveRangeError is apimachinery's InclusiveRangeError.
func inclusiveRangeError(lo, hi int) string {
	return "must be between " + strconv.Itoa(lo) + " and " + strconv.Itoa(hi) + ", inclusive"
}

// validateDNS1123Label reports each of kube's IsDNS1123Label messages as Invalid at path.
func validateDNS1123Label(value string, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		errs = append(errs, validation.Invalid(path, value, msg))
	}
	return errs
}

func validateContainers(containers []corev1.Container, fldPath *validation.Path) validation.ErrorList {
	if len(containers) == 0 {
		return validation.ErrorList{validation.Required(fldPath, "")}
	}
	var errs validation.ErrorList
	names := make(map[string]bool, len(containers))
	for i := range containers {
		c := &containers[i]
		path := fldPath.Index(i)
		if c.Name == "" {
			errs = append(errs, validation.Required(path.Child("name"), ""))
		} else {
			errs = append(errs, validateDNS1123Label(c.Name, path.Child("name"))...)
		}
		if c.Image == "" {
			errs = append(errs, validation.Required(path.Child("image"), ""))
		}
		if names[c.Name] {
			errs = append(errs, validation.Duplicate(path.Child("name"), c.Name))
		}
		names[c.Name] = true
	}
	return errs
}

func validateRestartPolicy(p corev1.RestartPolicy, path *validation.Path) validation.ErrorList {
	switch p {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return nil
	case "":
		return validation.ErrorList{validation.Required(path, "")}
	}
	return validation.ErrorList{validation.NotSupported(path, string(p), []string{"Always", "OnFailure", "Never"})}
}

func validateDNSPolicy(p corev1.DNSPolicy, path *validation.Path) validation.ErrorList {
	switch p {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
		return nil
	case "":
		return validation.ErrorList{validation.Required(path, "")}
	}
	return validation.ErrorList{validation.NotSupported(path, string(p), []string{"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"})}
}
