package e2e

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	toysv1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
)

// The Widget kind written the way a client-go user writes it: apimachinery's meta types
// and hand-written deep copies standing in for deepcopy-gen's output. It is the peer
// that apikit's example Widget is compared with, byte for byte and benchmark for benchmark.
type k8sWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              k8sWidgetSpec   `json:"spec"`
	Status            k8sWidgetStatus `json:"status,omitempty"`
}

type k8sWidgetSpec struct {
	Color    string          `json:"color"`
	Replicas *int32          `json:"replicas,omitempty"`
	Parts    []k8sWidgetPart `json:"parts,omitempty"`
}

type k8sWidgetPart struct {
	Name  string `json:"name"`
	Count int32  `json:"count,omitempty"`
}

type k8sWidgetStatus struct {
	Phase              string             `json:"phase,omitempty"`
	Replicas           int32              `json:"replicas,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

type k8sWidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []k8sWidget `json:"items"`
}

func (w *k8sWidget) DeepCopyInto(out *k8sWidget) {
	*out = *w
	out.TypeMeta = w.TypeMeta
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Spec.Replicas != nil {
		r := *w.Spec.Replicas
		out.Spec.Replicas = &r
	}
	if w.Spec.Parts != nil {
		out.Spec.Parts = make([]k8sWidgetPart, len(w.Spec.Parts))
		copy(out.Spec.Parts, w.Spec.Parts)
	}
	if w.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(w.Status.Conditions))
		for i := range w.Status.Conditions {
			w.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

func (w *k8sWidget) DeepCopy() *k8sWidget {
	if w == nil {
		return nil
	}
	out := new(k8sWidget)
	w.DeepCopyInto(out)
	return out
}

func (w *k8sWidget) DeepCopyObject() runtime.Object { return w.DeepCopy() }

func (l *k8sWidgetList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &k8sWidgetList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]k8sWidget, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

var k8sWidgetGV = k8sschema.GroupVersion{Group: "toys.example.com", Version: "v1"}

func newK8sScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(k8sWidgetGV.WithKind("Widget"), &k8sWidget{})
	s.AddKnownTypeWithName(k8sWidgetGV.WithKind("WidgetList"), &k8sWidgetList{})
	metav1.AddToGroupVersion(s, k8sWidgetGV)
	return s
}

// widgetFixture builds the benchmark Widget: labels and an annotation, parts parts, and two
// conditions. 200 parts make the ~10 KB object of BENCHMARKS.md.
func widgetFixture(parts int) *toysv1.Widget {
	replicas := int32(3)
	ts := scheme.NewTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	w := &toysv1.Widget{
		TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{
			Name: "widget-1", Namespace: "default", UID: "6c8a7e0e-1f0b-4a5e-9b8a-1d2c3e4f5a6b",
			ResourceVersion: "12345", Generation: 4, CreationTimestamp: ts,
			Labels:      map[string]string{"app": "demo", "tier": "backend", "team": "toys"},
			Annotations: map[string]string{"example.com/note": "a widget used for benchmarks"},
		},
		Spec: toysv1.WidgetSpec{Color: "blue", Replicas: &replicas},
		Status: toysv1.WidgetStatus{
			Phase: "Ready", Replicas: 3, ObservedGeneration: 4,
			Conditions: []scheme.Condition{
				{Type: "Ready", Status: scheme.ConditionTrue, ObservedGeneration: 4, LastTransitionTime: ts, Reason: "AllPartsPresent", Message: "all parts are present"},
				{Type: "Degraded", Status: scheme.ConditionFalse, ObservedGeneration: 4, LastTransitionTime: ts, Reason: "Healthy", Message: "nothing is degraded"},
			},
		},
	}
	for i := 0; i < parts; i++ {
		w.Spec.Parts = append(w.Spec.Parts, toysv1.WidgetPart{Name: fmt.Sprintf("part-%04d-hex-bolt-m8x40", i), Count: int32(i%17 + 1)})
	}
	return w
}

func k8sWidgetFixture(t testing.TB, parts int) *k8sWidget {
	t.Helper()
	b, err := json.Marshal(widgetFixture(parts))
	if err != nil {
		t.Fatal(err)
	}
	var w k8sWidget
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return &w
}

// The example Widget and its client-go twin must produce the same bytes, or the
// side-by-side benchmarks would compare different work.
func TestWidgetFixture_SameJSONAsClientGoTwin(t *testing.T) {
	for _, parts := range []int{0, 20, 200} {
		ours, _ := json.Marshal(widgetFixture(parts))
		theirs, _ := json.Marshal(k8sWidgetFixture(t, parts))
		if string(ours) != string(theirs) {
			t.Fatalf("parts=%d: bytes differ\n ours %s\nk8s's %s", parts, ours, theirs)
		}
		if parts == 200 && (len(ours) < 9500 || len(ours) > 11000) {
			t.Errorf("the 200-part fixture is %d bytes, want about 10 KB", len(ours))
		}
	}
}
