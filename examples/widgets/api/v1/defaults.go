package v1

// DefaultReplicas is the spec.replicas a Widget gets when it sets none.
const DefaultReplicas int32 = 1

// SetDefaultsWidget fills in the defaults of a v1 Widget: spec.replicas 1.
func SetDefaultsWidget(w *Widget) {
	if w.Spec.Replicas == nil {
		r := DefaultReplicas
		w.Spec.Replicas = &r
	}
}
