package protobuf

import (
	"bytes"
	"testing"

	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// FuzzDecodeDerived decodes arbitrary bytes as kinds whose messages are derived from
// struct tags (Pod, Deployment, ControllerRevision: maps of quantities, int-or-strings,
// raw extensions, inline messages), typed and unstructured: nothing panics, and what
// decodes encodes again to bytes that decode to the same bytes once more.
func FuzzDecodeDerived(f *testing.F) {
	s := scheme.New()
	objs := []scheme.Kinded{&corev1.Pod{}, &corev1.PodList{}, &appsv1.Deployment{}, &appsv1.DeploymentList{},
		&appsv1.ControllerRevision{}, &appsv1.ControllerRevisionList{}}
	s.AddKnownTypes(corev1.SchemeGroupVersion, objs[:2]...)
	s.AddKnownTypes(appsv1.SchemeGroupVersion, objs[2:]...)
	if err := RegisterTypes(s, corev1.SchemeGroupVersion, objs[:2]...); err != nil {
		f.Fatal(err)
	}
	if err := RegisterTypes(s, appsv1.SchemeGroupVersion, objs[2:]...); err != nil {
		f.Fatal(err)
	}
	ser := New(s)
	one := int32(1)
	port := scheme.FromString("http")
	seeds := []scheme.Kinded{
		&corev1.Pod{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: scheme.ObjectMeta{Name: "p"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i",
				Resources:     corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": quantity.MustParse("1500m")}},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: port}}}}},
				Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}},
		&appsv1.Deployment{TypeMeta: scheme.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, Spec: appsv1.DeploymentSpec{Replicas: &one}},
		&appsv1.ControllerRevision{TypeMeta: scheme.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"}, Data: scheme.RawExtension{Raw: []byte(`{"a":1}`)}},
	}
	for _, obj := range seeds {
		var buf bytes.Buffer
		if err := ser.Encode(&buf, obj); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ser.Decode(data, nil, &scheme.Unstructured{})
		res, err := ser.Decode(data, nil, nil)
		if err != nil {
			return
		}
		var once, twice bytes.Buffer
		if err := ser.Encode(&once, res.Object); err != nil {
			t.Fatalf("re-encode of decoded %T: %v", res.Object, err)
		}
		again, err := ser.Decode(once.Bytes(), nil, nil)
		if err != nil {
			t.Fatalf("decode of re-encoded %T: %v", res.Object, err)
		}
		if err := ser.Encode(&twice, again.Object); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("re-encoding is not stable:\n%x\n%x", once.Bytes(), twice.Bytes())
		}
	})
}
