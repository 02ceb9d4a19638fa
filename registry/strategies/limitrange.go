package strategies

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/validation"
)

// validateLimitRangeTypeName is validateLimitRangeTypeName: a qualified name, Pod,
// Container or PersistentVolumeClaim when it has no domain.
func validateLimitRangeTypeName(t corev1.LimitType, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, msg := range validation.IsQualifiedName(string(t)) {
		errs = append(errs, validation.Invalid(p, string(t), msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !strings.Contains(string(t), "/") && t != corev1.LimitTypePod && t != corev1.LimitTypeContainer && t != corev1.LimitTypePersistentVolumeClaim {
		errs = append(errs, validation.Invalid(p, string(t), "must be a standard limit type or fully qualified"))
	}
	return errs
}

// validateLimitRangeResourceName is validateLimitRangeResourceName: container resources
// for Pod and Container items, any resource name (storage for claims) otherwise.
func validateLimitRangeResourceName(t corev1.LimitType, n corev1.ResourceName, p *validation.Path) validation.ErrorList {
	if t == corev1.LimitTypePod || t == corev1.LimitTypeContainer {
		return validateContainerResourceName(n, p)
	}
	return validateResourceName(n, p)
}

// maxMilliValue is resource.MaxMilliValue: above it a quantity's milli value overflows.
const maxMilliValue = math.MaxInt64 / 1000

// validateLimitRangeSpec is the spec part of ValidateLimitRange: each item's type (once
// per limit range) and resource names, no defaults on a Pod item, a storage bound on a
// claim item, and per resource min <= default request <= default <= max, a ratio of at
// least 1 and at most max/min, and no overcommit of what cannot be (hugepages, extended
// resources). kube walks the resources of an item in map order; here they go by name.
func validateLimitRangeSpec(spec *corev1.LimitRangeSpec) validation.ErrorList {
	var errs validation.ErrorList
	types := map[corev1.LimitType]bool{}
	fp := validation.NewPath("spec", "limits")
	for i := range spec.Limits {
		ip := fp.Index(i)
		item := &spec.Limits[i]
		errs = append(errs, validateLimitRangeTypeName(item.Type, ip.Child("type"))...)
		if types[item.Type] {
			errs = append(errs, validation.Duplicate(ip.Child("type"), string(item.Type)))
		}
		types[item.Type] = true

		keys := map[corev1.ResourceName]bool{}
		names := func(l corev1.ResourceList, field string) {
			for _, n := range sortedResourceNames(l) {
				errs = append(errs, validateLimitRangeResourceName(item.Type, n, ip.Child(field).Key(string(n)))...)
				keys[n] = true
			}
		}
		names(item.Max, "max")
		names(item.Min, "min")
		defaults, defaultRequests := item.Default, item.DefaultRequest
		if item.Type == corev1.LimitTypePod {
			if len(item.Default) > 0 {
				errs = append(errs, validation.Forbidden(ip.Child("default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(item.DefaultRequest) > 0 {
				errs = append(errs, validation.Forbidden(ip.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
			defaults, defaultRequests = nil, nil
		} else {
			names(item.Default, "default")
			names(item.DefaultRequest, "defaultRequest")
		}
		if item.Type == corev1.LimitTypePersistentVolumeClaim {
			_, hasMin := item.Min[corev1.ResourceStorage]
			_, hasMax := item.Max[corev1.ResourceStorage]
			if !hasMin && !hasMax {
				errs = append(errs, validation.Required(ip.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		names(item.MaxLimitRequestRatio, "maxLimitRequestRatio")

		for _, k := range slices.Sorted(maps.Keys(keys)) {
			errs = append(errs, validateLimitRangeResource(k, item.Min, item.Max, defaults, defaultRequests, item.MaxLimitRequestRatio, ip)...)
		}
	}
	return errs
}

// validateLimitRangeResource is ValidateLimitRange's comparison of one resource's
// bounds in one item, with kube's messages; bad values are the quantities' strings.
func validateLimitRangeResource(k corev1.ResourceName, min, max, def, defReq, ratio corev1.ResourceList, ip *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	key := string(k)
	mn, hasMin := min[k]
	mx, hasMax := max[k]
	d, hasDef := def[k]
	dr, hasDefReq := defReq[k]
	r, hasRatio := ratio[k]
	if hasMin && hasMax && mn.Cmp(mx) > 0 {
		errs = append(errs, validation.Invalid(ip.Child("min").Key(key), mn.String(), fmt.Sprintf("min value %s is greater than max value %s", mn.String(), mx.String())))
	}
	if hasDefReq && hasMin && mn.Cmp(dr) > 0 {
		errs = append(errs, validation.Invalid(ip.Child("defaultRequest").Key(key), dr.String(), fmt.Sprintf("min value %s is greater than default request value %s", mn.String(), dr.String())))
	}
	if hasDefReq && hasMax && dr.Cmp(mx) > 0 {
		errs = append(errs, validation.Invalid(ip.Child("defaultRequest").Key(key), dr.String(), fmt.Sprintf("default request value %s is greater than max value %s", dr.String(), mx.String())))
	}
	if hasDefReq && hasDef && dr.Cmp(d) > 0 {
		errs = append(errs, validation.Invalid(ip.Child("defaultRequest").Key(key), dr.String(), fmt.Sprintf("default request value %s is greater than default limit value %s", dr.String(), d.String())))
	}
	if hasDef && hasMin && mn.Cmp(d) > 0 {
		errs = append(errs, validation.Invalid(ip.Child("default").Key(key), mn.String(), fmt.Sprintf("min value %s is greater than default value %s", mn.String(), d.String())))
	}
	if hasDef && hasMax && d.Cmp(mx) > 0 {
		errs = append(errs, validation.Invalid(ip.Child("default").Key(key), mx.String(), fmt.Sprintf("default value %s is greater than max value %s", d.String(), mx.String())))
	}
	if hasRatio && r.Cmp(quantity.MustParse("1")) < 0 {
		errs = append(errs, validation.Invalid(ip.Child("maxLimitRequestRatio").Key(key), r.String(), fmt.Sprintf("ratio %s is less than 1", r.String())))
	}
	if hasRatio && hasMin && hasMax {
		ratioValue, minValue, maxValue := float64(r.Value()), mn.Value(), mx.Value()
		if r.Value() < maxMilliValue && minValue < maxMilliValue && maxValue < maxMilliValue {
			ratioValue = float64(r.MilliValue()) / 1000
			minValue, maxValue = mn.MilliValue(), mx.MilliValue()
		}
		limit := float64(maxValue) / float64(minValue)
		if ratioValue > limit {
			errs = append(errs, validation.Invalid(ip.Child("maxLimitRequestRatio").Key(key), r.String(), fmt.Sprintf("ratio %s is greater than max/min = %f", r.String(), limit)))
		}
	}
	if !isOvercommitAllowed(k) && hasDef && hasDefReq && d.Cmp(dr) != 0 {
		errs = append(errs, validation.Invalid(ip.Child("defaultRequest").Key(key), dr.String(), fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", d.String(), dr.String(), key)))
	}
	return errs
}
