package protobuf_test

import (
	"bytes"
	"encoding/hex"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// The Go shapes of built-in kinds that custom kinds do not have, each in a copy of the
// kind that brings it, registered with the field numbers of k8s.io/api's
// generated.proto: MicroTime (coordination/v1 Lease), map<string, bytes> beside
// map<string, string> (core/v1 ConfigMap), map<string, ExtraValue> (authentication/v1
// UserInfo).

type lease struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              leaseSpec `json:"spec"`
}

type leaseSpec struct {
	HolderIdentity       *string           `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32            `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *scheme.MicroTime `json:"acquireTime,omitempty"`
	RenewTime            *scheme.MicroTime `json:"renewTime,omitempty"`
	LeaseTransitions     *int32            `json:"leaseTransitions,omitempty"`
	Strategy             *string           `json:"strategy,omitempty"`
	PreferredHolder      *string           `json:"preferredHolder,omitempty"`
}

type configMap struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Data              map[string]string `json:"data,omitempty"`
	BinaryData        map[string][]byte `json:"binaryData,omitempty"`
	Immutable         *bool             `json:"immutable,omitempty"`
}

type selfSubjectReview struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Status            struct {
		UserInfo struct {
			Username string              `json:"username,omitempty"`
			UID      string              `json:"uid,omitempty"`
			Groups   []string            `json:"groups,omitempty"`
			Extra    map[string][]string `json:"extra,omitempty"`
		} `json:"userInfo,omitempty"`
	} `json:"status,omitempty"`
}

var (
	leaseGVK  = scheme.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}
	cmGVK     = scheme.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	ssrGVK    = scheme.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "SelfSubjectReview"}
	builtinTS = time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC)
)

func builtinShapesScheme(t *testing.T) *scheme.Scheme {
	t.Helper()
	s := scheme.New()
	s.AddKnownTypeWithName(leaseGVK, &lease{})
	s.AddKnownTypeWithName(cmGVK, &configMap{})
	s.AddKnownTypeWithName(ssrGVK, &selfSubjectReview{})
	f := func(path string, n int32, typ protobuf.Type) protobuf.Field {
		return protobuf.Field{Path: path, Number: n, Type: typ}
	}
	opt := func(path string, n int32, typ protobuf.Type) protobuf.Field {
		return protobuf.Field{Path: path, Number: n, Type: typ, Optional: true}
	}
	meta := f("metadata", 1, protobuf.TypeObjectMeta)
	for gvk, fields := range map[scheme.GroupVersionKind][]protobuf.Field{
		leaseGVK: {meta, f("spec", 2, protobuf.TypeMessage),
			opt("spec.holderIdentity", 1, protobuf.TypeString), opt("spec.leaseDurationSeconds", 2, protobuf.TypeInt32),
			opt("spec.acquireTime", 3, protobuf.TypeTime), opt("spec.renewTime", 4, protobuf.TypeTime),
			opt("spec.leaseTransitions", 5, protobuf.TypeInt32), opt("spec.strategy", 6, protobuf.TypeString),
			opt("spec.preferredHolder", 7, protobuf.TypeString)},
		cmGVK: {meta, f("data", 2, protobuf.TypeStringMap), f("binaryData", 3, protobuf.TypeStringMap),
			opt("immutable", 4, protobuf.TypeBool)},
		ssrGVK: {meta, f("status", 2, protobuf.TypeMessage), f("status.userInfo", 1, protobuf.TypeMessage),
			f("status.userInfo.username", 1, protobuf.TypeString), f("status.userInfo.uid", 2, protobuf.TypeString),
			{Path: "status.userInfo.groups", Number: 3, Type: protobuf.TypeString, Repeated: true},
			f("status.userInfo.extra", 4, protobuf.TypeStringMap)},
	} {
		if err := protobuf.RegisterFields(s, gvk, fields...); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestEncode_BuiltinShapesAreTheBytesOfK8sAPI(t *testing.T) {
	holder, dur, trans := "node-a", int32(40), int32(3)
	at, zero := scheme.NewMicroTime(builtinTS), scheme.MicroTime{}
	l := &lease{TypeMeta: scheme.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: scheme.ObjectMeta{Name: "l", Namespace: "kube-node-lease"},
		Spec:       leaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, AcquireTime: &at, RenewTime: &zero, LeaseTransitions: &trans}}
	cm := &configMap{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: scheme.ObjectMeta{Name: "c", Namespace: "ns"},
		Data:       map[string]string{"b": "2", "a": "1", "empty": ""},
		BinaryData: map[string][]byte{"bin": {0, 1, 2, 0xff}, "nil": nil, "none": {}}}
	ssr := &selfSubjectReview{TypeMeta: scheme.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "SelfSubjectReview"}}
	ssr.Status.UserInfo.Username, ssr.Status.UserInfo.UID = "alice", "u1"
	ssr.Status.UserInfo.Groups = []string{"g1", "g2"}
	ssr.Status.UserInfo.Extra = map[string][]string{"scopes": {"read", "write"}, "empty": {}, "a": {""}}

	// What k8s.io/apimachinery's protobuf serializer writes for the same objects of
	// k8s.io/api v0.37.2's types.
	tests := []struct {
		name string
		obj  scheme.Object
		want string
	}{
		{"MicroTime with nanoseconds, a zero MicroTime set", l,
			"6b3873000a1f0a16636f6f7264696e6174696f6e2e6b38732e696f2f763112054c6561736512400a200a016c12001a0f6b7562652d6e6f64652d6c6561736522002a00320038004200121c0a066e6f64652d6110281a0c08a5ebdcca061088eadcc302220028031a002200"},
		{"string and bytes maps, sorted, nil and empty values", cm,
			"6b3873000a0f0a0276311209436f6e6669674d6170124e0a130a016312001a026e7322002a0032003800420012060a016112013112060a016212013212090a05656d70747912001a0b0a0362696e1204000102ff1a050a036e696c1a080a046e6f6e6512001a002200"},
		{"a map of string lists, empty lists and empty strings", ssr,
			"6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a65637452657669657712560a100a0012001a0022002a0032003800420012420a400a05616c696365120275311a0267311a02673222070a016112020a0022090a05656d707479120022170a0673636f706573120d0a04726561640a0577726974651a002200"},
	}
	ser := protobuf.New(builtinShapesScheme(t))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := ser.Encode(&b, tt.obj); err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(b.Bytes()); got != tt.want {
				t.Errorf("Encode =\n%s\nwant\n%s", got, tt.want)
			}
			want, _ := hex.DecodeString(tt.want)
			res, err := ser.Decode(want, nil, nil)
			if err != nil {
				t.Fatalf("Decode of k8s.io/api's bytes: %v", err)
			}
			if diff := cmp.Diff(tt.obj, res.Object); diff != "" {
				t.Errorf("Decode of k8s.io/api's bytes (-sent +decoded):\n%s", diff)
			}
		})
	}
}
