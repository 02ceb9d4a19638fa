package api

import (
	"slices"

	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	"github.com/apikit-dev/apikit/validation"
)

// supportedColors are the values spec.color accepts, in the order error messages list them.
var supportedColors = []string{"blue", "green", "red"}

// isNegativeErrorMsg is Kubernetes' message for a number that must not be negative.
const isNegativeErrorMsg = "must be greater than or equal to 0"

// ValidateWidget checks a new Widget: its metadata (namespaced, DNS-subdomain name) and
// its spec: color is required and one of blue, green, red; replicas is not negative;
// every part has a unique, non-empty name and a count that is not negative.
func ValidateWidget(w *hub.Widget) validation.ErrorList {
	allErrs := validation.ValidateObjectMeta(&w.ObjectMeta, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	return append(allErrs, validateWidgetSpec(&w.Spec, validation.NewPath("spec"))...)
}

// ValidateWidgetUpdate checks an update of oldW to newW: the metadata update rules
// (immutable name, namespace, uid, ...) and then every rule of ValidateWidget on newW.
func ValidateWidgetUpdate(newW, oldW *hub.Widget) validation.ErrorList {
	allErrs := validation.ValidateObjectMetaUpdate(&newW.ObjectMeta, &oldW.ObjectMeta, validation.NewPath("metadata"))
	return append(allErrs, ValidateWidget(newW)...)
}

func validateWidgetSpec(spec *hub.WidgetSpec, path *validation.Path) validation.ErrorList {
	var allErrs validation.ErrorList
	switch {
	case spec.Color == "":
		allErrs = append(allErrs, validation.Required(path.Child("color"), ""))
	case !slices.Contains(supportedColors, spec.Color):
		allErrs = append(allErrs, validation.NotSupported(path.Child("color"), spec.Color, supportedColors))
	}
	if spec.Replicas != nil && *spec.Replicas < 0 {
		allErrs = append(allErrs, validation.Invalid(path.Child("replicas"), *spec.Replicas, isNegativeErrorMsg))
	}
	seen := make(map[string]bool, len(spec.Parts))
	for i, part := range spec.Parts {
		partPath := path.Child("parts").Index(i)
		switch {
		case part.Name == "":
			allErrs = append(allErrs, validation.Required(partPath.Child("name"), ""))
		case seen[part.Name]:
			allErrs = append(allErrs, validation.Duplicate(partPath.Child("name"), part.Name))
		}
		seen[part.Name] = true
		if part.Count < 0 {
			allErrs = append(allErrs, validation.Invalid(partPath.Child("count"), part.Count, isNegativeErrorMsg))
		}
	}
	return allErrs
}

// ValidateWarehouse checks a new Warehouse: its metadata (cluster-scoped, DNS-subdomain
// name) and its spec: location is required and capacity is not negative.
func ValidateWarehouse(w *hub.Warehouse) validation.ErrorList {
	allErrs := validation.ValidateObjectMeta(&w.ObjectMeta, false, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	specPath := validation.NewPath("spec")
	if w.Spec.Location == "" {
		allErrs = append(allErrs, validation.Required(specPath.Child("location"), ""))
	}
	if w.Spec.Capacity < 0 {
		allErrs = append(allErrs, validation.Invalid(specPath.Child("capacity"), w.Spec.Capacity, isNegativeErrorMsg))
	}
	return allErrs
}

// ValidateWarehouseUpdate checks an update of oldW to newW: the metadata update rules
// and then every rule of ValidateWarehouse on newW.
func ValidateWarehouseUpdate(newW, oldW *hub.Warehouse) validation.ErrorList {
	allErrs := validation.ValidateObjectMetaUpdate(&newW.ObjectMeta, &oldW.ObjectMeta, validation.NewPath("metadata"))
	return append(allErrs, ValidateWarehouse(newW)...)
}
