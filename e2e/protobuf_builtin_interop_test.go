package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	k8sappsv1 "k8s.io/api/apps/v1"
	k8sauthenticationv1 "k8s.io/api/authentication/v1"
	k8scoordinationv1 "k8s.io/api/coordination/v1"
	k8scorev1 "k8s.io/api/core/v1"
	k8seventsv1 "k8s.io/api/events/v1"
	k8srbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	"github.com/apikit-dev/apikit/builtin"
	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	coordinationv1 "github.com/apikit-dev/apikit/builtin/coordination/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	eventsv1 "github.com/apikit-dev/apikit/builtin/events/v1"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// The built-in kinds whose Go types apikit generates from k8s.io/api, encoded by
// apikit from their protobuf struct tags (protobuf.RegisterType) and by k8s.io/api's
// gogo-generated Marshal: the same bytes, and each side decodes the other's.

// builtinProtoKind pairs a k8s.io/api kind with apikit's.
type builtinProtoKind struct {
	k8s  func() runtime.Object
	ours func() scheme.Kinded
}

func builtinProtoKinds() map[string]builtinProtoKind {
	return map[string]builtinProtoKind{
		"Deployment":         {func() runtime.Object { return &k8sappsv1.Deployment{} }, func() scheme.Kinded { return &appsv1.Deployment{} }},
		"StatefulSet":        {func() runtime.Object { return &k8sappsv1.StatefulSet{} }, func() scheme.Kinded { return &appsv1.StatefulSet{} }},
		"DaemonSet":          {func() runtime.Object { return &k8sappsv1.DaemonSet{} }, func() scheme.Kinded { return &appsv1.DaemonSet{} }},
		"ReplicaSet":         {func() runtime.Object { return &k8sappsv1.ReplicaSet{} }, func() scheme.Kinded { return &appsv1.ReplicaSet{} }},
		"ControllerRevision": {func() runtime.Object { return &k8sappsv1.ControllerRevision{} }, func() scheme.Kinded { return &appsv1.ControllerRevision{} }},
		"DeploymentList":     {func() runtime.Object { return &k8sappsv1.DeploymentList{} }, func() scheme.Kinded { return &appsv1.DeploymentList{} }},
		"Pod":                {func() runtime.Object { return &k8scorev1.Pod{} }, func() scheme.Kinded { return &corev1.Pod{} }},
		"PodTemplate":        {func() runtime.Object { return &k8scorev1.PodTemplate{} }, func() scheme.Kinded { return &corev1.PodTemplate{} }},
		"PodList":            {func() runtime.Object { return &k8scorev1.PodList{} }, func() scheme.Kinded { return &corev1.PodList{} }},
		// The kinds builtin.AddToScheme registered by hand-written field tables before
		// their Go types carried protobuf tags.
		"Namespace":          {func() runtime.Object { return &k8scorev1.Namespace{} }, func() scheme.Kinded { return &corev1.Namespace{} }},
		"ConfigMap":          {func() runtime.Object { return &k8scorev1.ConfigMap{} }, func() scheme.Kinded { return &corev1.ConfigMap{} }},
		"Secret":             {func() runtime.Object { return &k8scorev1.Secret{} }, func() scheme.Kinded { return &corev1.Secret{} }},
		"ServiceAccount":     {func() runtime.Object { return &k8scorev1.ServiceAccount{} }, func() scheme.Kinded { return &corev1.ServiceAccount{} }},
		"Event":              {func() runtime.Object { return &k8scorev1.Event{} }, func() scheme.Kinded { return &corev1.Event{} }},
		"events/Event":       {func() runtime.Object { return &k8seventsv1.Event{} }, func() scheme.Kinded { return &eventsv1.Event{} }},
		"Lease":              {func() runtime.Object { return &k8scoordinationv1.Lease{} }, func() scheme.Kinded { return &coordinationv1.Lease{} }},
		"SelfSubjectReview":  {func() runtime.Object { return &k8sauthenticationv1.SelfSubjectReview{} }, func() scheme.Kinded { return &authenticationv1.SelfSubjectReview{} }},
		"Role":               {func() runtime.Object { return &k8srbacv1.Role{} }, func() scheme.Kinded { return &rbacv1.Role{} }},
		"ClusterRole":        {func() runtime.Object { return &k8srbacv1.ClusterRole{} }, func() scheme.Kinded { return &rbacv1.ClusterRole{} }},
		"RoleBinding":        {func() runtime.Object { return &k8srbacv1.RoleBinding{} }, func() scheme.Kinded { return &rbacv1.RoleBinding{} }},
		"ClusterRoleBinding": {func() runtime.Object { return &k8srbacv1.ClusterRoleBinding{} }, func() scheme.Kinded { return &rbacv1.ClusterRoleBinding{} }},
		"ClusterRoleList":    {func() runtime.Object { return &k8srbacv1.ClusterRoleList{} }, func() scheme.Kinded { return &rbacv1.ClusterRoleList{} }},
	}
}

// builtinProtoSchemes returns apimachinery's serializer of apps/v1 and core/v1 and
// apikit's, whose kinds are registered by their struct tags.
func builtinProtoSchemes(t testing.TB) (*kproto.Serializer, *protobuf.Serializer) {
	t.Helper()
	ks := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{k8sappsv1.AddToScheme, k8scorev1.AddToScheme, k8seventsv1.AddToScheme,
		k8scoordinationv1.AddToScheme, k8sauthenticationv1.AddToScheme, k8srbacv1.AddToScheme} {
		if err := add(ks); err != nil {
			t.Fatal(err)
		}
	}
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	apps := []scheme.Kinded{&appsv1.Deployment{}, &appsv1.DeploymentList{}, &appsv1.StatefulSet{}, &appsv1.StatefulSetList{},
		&appsv1.DaemonSet{}, &appsv1.DaemonSetList{}, &appsv1.ReplicaSet{}, &appsv1.ReplicaSetList{},
		&appsv1.ControllerRevision{}, &appsv1.ControllerRevisionList{}}
	core := []scheme.Kinded{&corev1.Pod{}, &corev1.PodList{}, &corev1.PodTemplate{}, &corev1.PodTemplateList{}}
	s.AddKnownTypes(appsv1.SchemeGroupVersion, apps...)
	s.AddKnownTypes(corev1.SchemeGroupVersion, core...)
	if err := protobuf.RegisterTypes(s, appsv1.SchemeGroupVersion, apps...); err != nil {
		t.Fatal(err)
	}
	if err := protobuf.RegisterTypes(s, corev1.SchemeGroupVersion, core...); err != nil {
		t.Fatal(err)
	}
	return kproto.NewSerializer(ks, ks), protobuf.New(s)
}

// interopFiller fills k8s.io/api objects at random, every field reachable: pointers
// nil or set, slices and maps nil, empty or not, strings of any Unicode. The wire
// value types get values both sides can hold: canonical quantities of every format,
// int-or-strings of both types, RawExtensions of JSON (or none), times in seconds.
func interopFiller(seed int64) *randfill.Filler {
	formats := []resource.Format{resource.DecimalSI, resource.BinarySI, resource.DecimalExponent}
	return randfill.New().RandSource(rand.NewSource(seed)).NilChance(0.25).NumElements(0, 2).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			switch c.Intn(4) {
			case 0:
				*q = resource.Quantity{} // the zero value: "0"
			case 1:
				*q = *resource.NewMilliQuantity(c.Int63n(1<<40)-1<<39, formats[c.Intn(3)])
			case 2:
				*q = *resource.NewQuantity(c.Int63n(1<<50), formats[c.Intn(3)])
			default:
				*q = *resource.NewScaledQuantity(c.Int63n(1000000), resource.Scale(c.Intn(19)-9))
			}
			// What the wire holds is the canonical text.
			*q = resource.MustParse(q.String())
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31() - 1<<30)
			} else {
				*v = intstr.FromString(c.String(8))
			}
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			switch c.Intn(3) {
			case 0:
				*r = runtime.RawExtension{}
			case 1:
				*r = runtime.RawExtension{Raw: []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","n":%d}`, c.Intn(1000)))}
			default:
				*r = runtime.RawExtension{Raw: []byte(`[1,"two",null]`)}
			}
		},
		func(tm *metav1.Time, c randfill.Continue) {
			// Never zero: a set pointer to the zero Time is null in JSON, which
			// the copy into apikit's Go type reads as unset.
			*tm = metav1.Unix(1+c.Int63n(4e9), 0)
		},
		func(tm *metav1.MicroTime, c randfill.Continue) {
			*tm = metav1.NewMicroTime(time.Unix(1+c.Int63n(4e9), c.Int63n(1e6)*1000))
		},
		func(m *metav1.ListMeta, c randfill.Continue) {
			c.FillNoCustom(m)
			m.ShardInfo = nil // alpha in v1.37, and not in scheme.ListMeta
		},
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			c.FillNoCustom(m)
			// managedFields carry JSON field sets; apikit keeps them as JSON.
			for i := range m.ManagedFields {
				m.ManagedFields[i].FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}
				m.ManagedFields[i].Time = nil
				if c.Bool() {
					now := metav1.Unix(c.Int63n(4e9), 0)
					m.ManagedFields[i].Time = &now
				}
			}
		},
	)
}

// toApikit copies a k8s.io/api object into apikit's Go type through JSON.
func toApikit(t testing.TB, k runtime.Object, ours scheme.Kinded) {
	t.Helper()
	j, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codec.Unmarshal(j, ours); err != nil {
		t.Fatalf("apikit JSON decode of %T: %v", k, err)
	}
}

// jsonOf is the JSON value of v, for comparing objects of two Go types.
func jsonOf(t testing.TB, v any) any {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(j, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutNulls drops null members of JSON objects: what an unstructured decode
// leaves out (a zero Time, a RawExtension without raw) where a Go struct writes null.
func withoutNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = withoutNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = withoutNulls(e)
		}
	}
	return v
}

// setKind sets apiVersion and kind, which a filled object has at random, from the
// Go type's package and name.
func setKind(k runtime.Object, _ string) {
	t := reflect.TypeOf(k).Elem()
	gv := map[string]schema.GroupVersion{
		"k8s.io/api/apps/v1": k8sappsv1.SchemeGroupVersion, "k8s.io/api/core/v1": k8scorev1.SchemeGroupVersion,
		"k8s.io/api/events/v1": k8seventsv1.SchemeGroupVersion, "k8s.io/api/coordination/v1": k8scoordinationv1.SchemeGroupVersion,
		"k8s.io/api/authentication/v1": k8sauthenticationv1.SchemeGroupVersion, "k8s.io/api/rbac/v1": k8srbacv1.SchemeGroupVersion,
	}[t.PkgPath()]
	k.GetObjectKind().SetGroupVersionKind(gv.WithKind(t.Name()))
}

// builtinInteropSeeds is how many random objects of each kind the tests compare.
const builtinInteropSeeds = 40

func TestProtobufBuiltinInterop_RandomObjectsEncodeToApimachinerysBytes(t *testing.T) {
	ks, ours := builtinProtoSchemes(t)
	for kind, pair := range builtinProtoKinds() {
		t.Run(kind, func(t *testing.T) {
			sizes := 0
			for seed := int64(0); seed < builtinInteropSeeds; seed++ {
				k := pair.k8s()
				interopFiller(seed).Fill(k)
				setKind(k, kind)
				want := k8sProtoEncode(t, ks, k)
				sizes += len(want)

				// Typed: apikit's Go value of the same JSON.
				o := pair.ours()
				toApikit(t, k, o)
				var buf bytes.Buffer
				if err := ours.Encode(&buf, o); err != nil {
					t.Fatalf("seed %d: apikit encode: %v", seed, err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					t.Fatalf("seed %d: bytes differ at %d of %d\napikit:       %x\napimachinery: %x", seed, firstDiff(buf.Bytes(), want), len(want), buf.Bytes(), want)
				}

				// Unstructured: the same JSON as a map encodes the same bytes.
				if strings.HasSuffix(kind, "List") {
					continue // lists are typed on the client side; the item kinds cover maps
				}
				u := &scheme.Unstructured{}
				toApikitMap(t, k, u)
				buf.Reset()
				if err := ours.Encode(&buf, u); err != nil {
					t.Fatalf("seed %d: apikit unstructured encode: %v", seed, err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					t.Fatalf("seed %d: unstructured bytes differ at %d of %d", seed, firstDiff(buf.Bytes(), want), len(want))
				}
			}
			t.Logf("%d objects, %d bytes of protobuf on average", builtinInteropSeeds, sizes/builtinInteropSeeds)
		})
	}
}

func toApikitMap(t testing.TB, k runtime.Object, u *scheme.Unstructured) {
	t.Helper()
	j, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codec.Unmarshal(j, &u.Object); err != nil {
		t.Fatal(err)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestProtobufBuiltinInterop_EachSideDecodesTheOthers(t *testing.T) {
	ks, ours := builtinProtoSchemes(t)
	for kind, pair := range builtinProtoKinds() {
		t.Run(kind, func(t *testing.T) {
			for seed := int64(0); seed < builtinInteropSeeds; seed++ {
				k := pair.k8s()
				interopFiller(seed + 1000).Fill(k)
				setKind(k, kind)
				data := k8sProtoEncode(t, ks, k)
				// What apimachinery reads back from its own bytes is what apikit must read.
				kback, _, err := ks.Decode(data, nil, nil)
				if err != nil {
					t.Fatalf("seed %d: apimachinery decode: %v", seed, err)
				}
				want := jsonOf(t, kback)

				// apikit reads apimachinery's bytes, typed and unstructured.
				res, err := ours.Decode(data, nil, nil)
				if err != nil {
					t.Fatalf("seed %d: apikit decode: %v", seed, err)
				}
				if reflect.TypeOf(res.Object) != reflect.TypeOf(pair.ours()) {
					t.Fatalf("seed %d: decoded a %T", seed, res.Object)
				}
				if got := jsonOf(t, res.Object); !reflect.DeepEqual(want, got) {
					t.Fatalf("seed %d: apikit's typed decode differs (-apimachinery +apikit):\n%s", seed, cmp.Diff(want, got))
				}
				if !strings.HasSuffix(kind, "List") {
					ures, err := ours.Decode(data, nil, &scheme.Unstructured{})
					if err != nil {
						t.Fatalf("seed %d: apikit unstructured decode: %v", seed, err)
					}
					w, g := withoutNulls(jsonOf(t, kback)), withoutNulls(jsonOf(t, ures.Object.(*scheme.Unstructured).Object))
					if !reflect.DeepEqual(w, g) {
						t.Fatalf("seed %d: apikit's unstructured decode differs (-apimachinery +apikit):\n%s", seed, cmp.Diff(w, g))
					}
				}

				// apimachinery reads apikit's bytes of the decoded object.
				var buf bytes.Buffer
				if err := ours.Encode(&buf, res.Object); err != nil {
					t.Fatalf("seed %d: apikit encode: %v", seed, err)
				}
				kobj, _, err := ks.Decode(buf.Bytes(), nil, nil)
				if err != nil {
					t.Fatalf("seed %d: apimachinery decode of apikit's bytes: %v", seed, err)
				}
				if got := jsonOf(t, kobj); !reflect.DeepEqual(want, got) {
					t.Fatalf("seed %d: apimachinery's decode of apikit's bytes differs (-want +got):\n%s", seed, cmp.Diff(want, got))
				}
			}
		})
	}
}

// TestProtobufBuiltinInterop_HandFilledDeploymentAndPod pins the cases a random fill
// may miss: optional pointers set to zero and unset, empty and nil slices and maps,
// quantities of each format, int-or-strings of both types, a ControllerRevision's
// raw data.
func TestProtobufBuiltinInterop_HandFilledDeploymentAndPod(t *testing.T) {
	ks, ours := builtinProtoSchemes(t)
	zero32, zero64, no := int32(0), int64(0), false
	surge, unavailable := intstr.FromString("25%"), intstr.FromInt32(0)
	created := metav1.Unix(1700000000, 0)
	container := k8scorev1.Container{Name: "c", Image: "nginx", Args: []string{}, Command: nil,
		Ports: []k8scorev1.ContainerPort{{ContainerPort: 80, Protocol: "TCP"}},
		Resources: k8scorev1.ResourceRequirements{
			Limits:   k8scorev1.ResourceList{"cpu": resource.MustParse("1500m"), "memory": resource.MustParse("1Gi"), "ephemeral-storage": resource.MustParse("1e9")},
			Requests: k8scorev1.ResourceList{},
		},
		LivenessProbe: &k8scorev1.Probe{ProbeHandler: k8scorev1.ProbeHandler{HTTPGet: &k8scorev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}},
			PeriodSeconds: 0},
		ReadinessProbe:  &k8scorev1.Probe{ProbeHandler: k8scorev1.ProbeHandler{TCPSocket: &k8scorev1.TCPSocketAction{Port: intstr.FromInt32(-1)}}},
		SecurityContext: &k8scorev1.SecurityContext{RunAsUser: &zero64, Privileged: &no},
	}
	podSpec := k8scorev1.PodSpec{Containers: []k8scorev1.Container{container}, InitContainers: []k8scorev1.Container{},
		NodeSelector: map[string]string{}, TerminationGracePeriodSeconds: &zero64,
		Volumes: []k8scorev1.Volume{{Name: "v", VolumeSource: k8scorev1.VolumeSource{
			Secret: &k8scorev1.SecretVolumeSource{SecretName: "s", DefaultMode: &zero32},
			// SecretVolumeSource.defaultMode is tagged "bytes" in k8s.io/api; the wire has a varint.
		}}, {Name: "e", VolumeSource: k8scorev1.VolumeSource{EmptyDir: &k8scorev1.EmptyDirVolumeSource{SizeLimit: &resource.Quantity{}}}}},
		Overhead: k8scorev1.ResourceList{"cpu": resource.MustParse("0.1")},
	}
	objs := []runtime.Object{
		&k8sappsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", CreationTimestamp: created, Labels: map[string]string{"app": "d"}},
			Spec: k8sappsv1.DeploymentSpec{Replicas: &zero32, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", ""}}, {Key: "e", Operator: metav1.LabelSelectorOpExists}}},
				Template: k8scorev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}}, Spec: podSpec},
				Strategy: k8sappsv1.DeploymentStrategy{Type: k8sappsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &k8sappsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}},
			Status: k8sappsv1.DeploymentStatus{Conditions: []k8sappsv1.DeploymentCondition{{Type: "Available", Status: "True", LastUpdateTime: created}}}},
		&k8scorev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: podSpec},
		&k8sappsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Revision: -1,
			Data: runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"metadata":{"labels":{"a":"b"}}}}}`)}},
		&k8sappsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "r0"}},
	}
	for _, k := range objs {
		kind := reflect.TypeOf(k).Elem().Name()
		t.Run(kind+"/"+k.(metav1.Object).GetName(), func(t *testing.T) {
			setKind(k, kind)
			want := k8sProtoEncode(t, ks, k)
			o := builtinProtoKinds()[kind].ours()
			toApikit(t, k, o)
			var buf bytes.Buffer
			if err := ours.Encode(&buf, o); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("bytes differ at %d of %d\napikit:       %x\napimachinery: %x", firstDiff(buf.Bytes(), want), len(want), buf.Bytes(), want)
			}
			res, err := ours.Decode(want, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			kback, _, err := ks.Decode(want, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(jsonOf(t, kback), jsonOf(t, res.Object)); d != "" {
				t.Errorf("apikit decode (-apimachinery +apikit):\n%s", d)
			}
		})
	}
}

// BenchmarkProtobufBuiltin_Pod encodes and decodes one fully filled Pod with
// apimachinery (gogo-generated code) and with apikit (derived from struct tags).
func BenchmarkProtobufBuiltin_Pod(b *testing.B) {
	ks, ours := builtinProtoSchemes(b)
	k := &k8scorev1.Pod{}
	interopFiller(7).Fill(k)
	setKind(k, "Pod")
	o := &corev1.Pod{}
	toApikit(b, k, o)
	data := k8sProtoEncode(b, ks, k)
	b.Logf("%d bytes", len(data))
	var buf bytes.Buffer
	b.Run("encode/apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := ks.Encode(k, &buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/apikit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := ours.Encode(&buf, o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := ks.Decode(data, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/apikit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ours.Decode(data, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
