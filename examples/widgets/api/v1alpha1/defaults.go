package v1alpha1

// DefaultReplicas is the spec.scaling.replicas a Widget gets when it sets none; the same
// default as v1's spec.replicas.
const DefaultReplicas int32 = 1

// SetDefaultsWidget fills in the defaults of a v1alpha1 Widget: spec.scaling.replicas 1
// (creating spec.scaling if absent).
func SetDefaultsWidget(w *Widget) {
	if w.Spec.Scaling == nil {
		w.Spec.Scaling = &WidgetScaling{}
	}
	if w.Spec.Scaling.Replicas == nil {
		r := DefaultReplicas
		w.Spec.Scaling.Replicas = &r
	}
}
