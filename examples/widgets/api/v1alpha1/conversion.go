package v1alpha1

import (
	"encoding/json"
	"fmt"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	"github.com/apikit-dev/apikit/scheme"
)

// ConditionsAnnotation is the annotation that carries a hub Widget's status.conditions
// (as their JSON) in v1alpha1, which has no field for them. Converting to v1alpha1 sets
// it; converting back to the hub restores the conditions from it and removes it.
const ConditionsAnnotation = "toys.example.com/v1-conditions"

// ConvertWidgetToHub converts a v1alpha1 Widget to the hub: everything automatically,
// then the conditions are restored from ConditionsAnnotation, which is dropped.
func ConvertWidgetToHub(in *Widget, out *hub.Widget, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.Status.Conditions = nil
	raw, ok := in.Annotations[ConditionsAnnotation]
	if !ok {
		return nil
	}
	var conds []scheme.Condition
	if err := json.Unmarshal([]byte(raw), &conds); err != nil {
		return fmt.Errorf("widget %q: annotation %s: %w", in.Name, ConditionsAnnotation, err)
	}
	out.Status.Conditions = conds
	out.Annotations = withoutKey(out.Annotations, ConditionsAnnotation)
	return nil
}

// ConvertHubToWidget converts a hub Widget to v1alpha1: everything automatically, then
// the conditions, which v1alpha1 cannot hold, go into ConditionsAnnotation (absent when
// they are nil, "[]" when empty, so that both come back as they were). The hub object is
// not modified.
func ConvertHubToWidget(in *hub.Widget, out *Widget, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	// A stale copy of the annotation must not survive, so it is dropped first.
	out.Annotations = withoutKey(out.Annotations, ConditionsAnnotation)
	if in.Status.Conditions == nil {
		return nil
	}
	raw, err := json.Marshal(in.Status.Conditions)
	if err != nil {
		return fmt.Errorf("widget %q: annotation %s: %w", in.Name, ConditionsAnnotation, err)
	}
	out.Annotations = withKey(out.Annotations, ConditionsAnnotation, string(raw))
	return nil
}

// ConvertWidgetSpecToHub converts a v1alpha1 spec to the hub: paint becomes color,
// scaling.replicas becomes replicas, the rest converts automatically.
func ConvertWidgetSpecToHub(in *WidgetSpec, out *hub.WidgetSpec, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.Color = in.Paint
	out.Replicas = nil
	if in.Scaling != nil && in.Scaling.Replicas != nil {
		r := *in.Scaling.Replicas
		out.Replicas = &r
	}
	return nil
}

// ConvertHubToWidgetSpec converts a hub spec to v1alpha1: color becomes paint,
// replicas becomes scaling.replicas (scaling stays nil when replicas is unset), the
// rest converts automatically.
func ConvertHubToWidgetSpec(in *hub.WidgetSpec, out *WidgetSpec, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.Paint = in.Color
	out.Scaling = nil
	if in.Replicas != nil {
		r := *in.Replicas
		out.Scaling = &WidgetScaling{Replicas: &r}
	}
	return nil
}

// ConvertWidgetStatusToHub converts a v1alpha1 status to the hub: every field
// automatically. The conditions, which v1alpha1 lacks, are left for ConvertWidgetToHub
// to restore from the annotation; registering this function tells the automatic
// conversion that their absence is handled.
func ConvertWidgetStatusToHub(in *WidgetStatus, out *hub.WidgetStatus, sc conversion.Scope) error {
	return sc.AutoConvert(in, out)
}

// ConvertHubToWidgetStatus converts a hub status to v1alpha1: every field
// automatically but the conditions, which ConvertHubToWidget carries in an annotation.
func ConvertHubToWidgetStatus(in *hub.WidgetStatus, out *WidgetStatus, sc conversion.Scope) error {
	return sc.AutoConvert(in, out)
}

// withoutKey returns m without key, never modifying m: the same map if key is absent,
// otherwise a copy (nil when nothing else is left).
func withoutKey(m map[string]string, key string) map[string]string {
	if _, ok := m[key]; !ok {
		return m
	}
	if len(m) == 1 {
		return nil
	}
	c := make(map[string]string, len(m)-1)
	for k, v := range m {
		if k != key {
			c[k] = v
		}
	}
	return c
}

// withKey returns a copy of m with key set to value; m itself may be shared with the
// input of a conversion and is never modified.
func withKey(m map[string]string, key, value string) map[string]string {
	c := make(map[string]string, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	c[key] = value
	return c
}
