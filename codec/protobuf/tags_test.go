package protobuf_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// Kinds described by their protobuf struct tags, shaped like k8s.io/api's types: every
// field kind a built-in kind has (pointers, named scalars, bytes, repeated scalars and
// messages, maps of strings, of bytes, of messages and of string lists, an inline
// message, a recursive message, the meta/v1 messages).

type tkMode string

type tkResourceName string

// tkVerbs is a named list type: a message of repeated items=1, as meta/v1 Verbs.
type tkVerbs []string

type tkSize struct {
	Text string `json:"text" protobuf:"bytes,1,opt,name=text"`
}

type TkSource struct {
	Path string  `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	Type *string `json:"type,omitempty" protobuf:"bytes,2,opt,name=type"`
}

type tkNode struct {
	Name     string   `json:"name" protobuf:"bytes,1,opt,name=name"`
	Children []tkNode `json:"children,omitempty" protobuf:"bytes,2,rep,name=children"`
	Next     *tkNode  `json:"next,omitempty" protobuf:"bytes,3,opt,name=next"`
}

type tkSpec struct {
	Replicas *int32                    `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	Name     string                    `json:"name" protobuf:"bytes,2,opt,name=name"`
	Mode     tkMode                    `json:"mode,omitempty" protobuf:"bytes,3,opt,name=mode,casttype=tkMode"`
	Offset   int64                     `json:"offset,omitempty" protobuf:"varint,4,opt,name=offset"`
	Delta    int32                     `json:"delta,omitempty" protobuf:"varint,5,opt,name=delta"`
	Enabled  bool                      `json:"enabled,omitempty" protobuf:"varint,6,opt,name=enabled"`
	Ratio    float64                   `json:"ratio,omitempty" protobuf:"fixed64,7,opt,name=ratio"`
	Raw      []byte                    `json:"raw,omitempty" protobuf:"bytes,8,opt,name=raw"`
	Args     []string                  `json:"args,omitempty" protobuf:"bytes,9,rep,name=args"`
	Ports    []int32                   `json:"ports,omitempty" protobuf:"varint,10,rep,name=ports"`
	Selector map[string]string         `json:"selector,omitempty" protobuf:"bytes,11,rep,name=selector" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Sizes    map[tkResourceName]tkSize `json:"sizes,omitempty" protobuf:"bytes,12,rep,name=sizes,castkey=tkResourceName"`
	Blobs    map[string][]byte         `json:"blobs,omitempty" protobuf:"bytes,13,rep,name=blobs"`
	TkSource `json:",inline" protobuf:"bytes,14,opt,name=source"`
	Tree     []tkNode            `json:"tree,omitempty" protobuf:"bytes,15,rep,name=tree"`
	Started  *scheme.Time        `json:"started,omitempty" protobuf:"bytes,16,opt,name=started"`
	Renewed  *scheme.MicroTime   `json:"renewed,omitempty" protobuf:"bytes,17,opt,name=renewed"`
	Verbs    tkVerbs             `json:"verbs,omitempty" protobuf:"bytes,18,opt,name=verbs"`
	Extra    map[string][]string `json:"extra,omitempty" protobuf:"bytes,19,rep,name=extra"`
	Big      *int64              `json:"big,omitempty" protobuf:"varint,20,opt,name=big"`
}

type tkStatus struct {
	Conditions []scheme.Condition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
	Observed   int64              `json:"observedGeneration,omitempty" protobuf:"varint,2,opt,name=observedGeneration"`
}

type tkKind struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec              tkSpec    `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status            *tkStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type tkKindList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []tkKind `json:"items" protobuf:"bytes,2,rep,name=items"`
}

var tkGVK = scheme.GroupVersionKind{Group: "tags.example.com", Version: "v1", Kind: "TkKind"}

func tkScheme(t testing.TB) *scheme.Scheme {
	t.Helper()
	s := scheme.New()
	s.AddKnownTypeWithName(tkGVK, &tkKind{})
	s.AddKnownTypeWithName(tkGVK.GroupVersion().WithKind("TkKindList"), &tkKindList{})
	if err := protobuf.RegisterType(s, tkGVK, &tkKind{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// pb builds expected messages field by field.
type pb []byte

func (b pb) str(num protowire.Number, s string) pb {
	return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), s)
}

func (b pb) msg(num protowire.Number, body pb) pb {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), body)
}

func (b pb) varint(num protowire.Number, v uint64) pb {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func (b pb) fixed64(num protowire.Number, v uint64) pb {
	return protowire.AppendFixed64(protowire.AppendTag(b, num, protowire.Fixed64Type), v)
}

// zeroSpec is the message of an empty tkSpec: the non-pointer scalars and messages
// always, nothing else.
func zeroSpec() pb {
	return pb{}.str(2, "").str(3, "").varint(4, 0).varint(5, 0).varint(6, 0).fixed64(7, 0).msg(14, pb{}.str(1, ""))
}

// encodeMessage returns the message (without envelope) of obj.
func encodeMessage(t *testing.T, ser *protobuf.Serializer, obj scheme.Kinded) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ser.Encode(&buf, obj); err != nil {
		t.Fatal(err)
	}
	u, err := protobuf.DecodeEnvelope(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return u.Raw
}

func TestRegisterType_WritesFieldsAsGogoDoes(t *testing.T) {
	ser := protobuf.New(tkScheme(t))
	zero, neg, big := int32(0), int32(-2), int64(1)<<40
	typ := ""
	started := scheme.NewTime(time.Unix(1700000000, 0))
	renewed := scheme.NewMicroTime(time.Unix(1700000000, 123456000))
	meta := pb{}.msg(1, pb{}.str(1, "n").str(2, "").str(3, "ns").str(4, "").str(5, "").str(6, "").varint(7, 0).msg(8, pb{}))
	emptyMeta := pb{}.msg(1, pb{}.str(1, "").str(2, "").str(3, "").str(4, "").str(5, "").str(6, "").varint(7, 0).msg(8, pb{}))
	cases := []struct {
		name string
		spec tkSpec
		want pb // the spec message
	}{
		{"an empty spec writes its non-pointer scalars and messages, zero included", tkSpec{}, zeroSpec()},
		{"a pointer set to zero is written, before the fields that follow it",
			tkSpec{Replicas: &zero}, append(pb{}.varint(1, 0), zeroSpec()...)},
		{"a negative int32 is sign-extended to ten bytes",
			tkSpec{Replicas: &neg, Delta: -1},
			pb{}.varint(1, uint64(math.MaxUint64-1)).str(2, "").str(3, "").varint(4, 0).varint(5, math.MaxUint64).varint(6, 0).fixed64(7, 0).msg(14, pb{}.str(1, ""))},
		{"named scalars, a double and an int64 pointer",
			tkSpec{Name: "a", Mode: "Fast", Offset: 300, Enabled: true, Ratio: 0.5, Big: &big},
			pb{}.str(2, "a").str(3, "Fast").varint(4, 300).varint(5, 0).varint(6, 1).fixed64(7, math.Float64bits(0.5)).msg(14, pb{}.str(1, "")).varint(20, uint64(big))},
		{"bytes are written when not nil, empty included",
			tkSpec{Raw: []byte{}}, append(zeroSpec()[:len(zeroSpec())-4], append(pb{}.str(8, ""), pb{}.msg(14, pb{}.str(1, ""))...)...)},
		{"repeated strings and int32s are written per element, unpacked, empty strings included",
			tkSpec{Args: []string{"x", ""}, Ports: []int32{80, 443}},
			append(zeroSpec()[:len(zeroSpec())-4], append(pb{}.str(9, "x").str(9, "").varint(10, 80).varint(10, 443), pb{}.msg(14, pb{}.str(1, ""))...)...)},
		{"maps are entries sorted by key; a bytes value only when not nil, a message value always",
			tkSpec{Selector: map[string]string{"b": "2", "a": ""}, Sizes: map[tkResourceName]tkSize{"mem": {Text: "1Gi"}, "cpu": {}},
				Blobs: map[string][]byte{"z": nil, "y": {1}}},
			append(zeroSpec()[:len(zeroSpec())-4], append(pb{}.
				msg(11, pb{}.str(1, "a").str(2, "")).msg(11, pb{}.str(1, "b").str(2, "2")).
				msg(12, pb{}.str(1, "cpu").msg(2, pb{}.str(1, ""))).msg(12, pb{}.str(1, "mem").msg(2, pb{}.str(1, "1Gi"))).
				msg(13, pb{}.str(1, "y").msg(2, pb{1})).msg(13, pb{}.str(1, "z")),
				pb{}.msg(14, pb{}.str(1, ""))...)...)},
		{"an inline struct is a message of its own, its pointer written when set",
			tkSpec{TkSource: TkSource{Path: "/p", Type: &typ}},
			append(zeroSpec()[:len(zeroSpec())-4], pb{}.msg(14, pb{}.str(1, "/p").str(2, ""))...)},
		{"a recursive message, times, a string-list message and a map of string lists",
			tkSpec{Tree: []tkNode{{Name: "r", Children: []tkNode{{Name: "c"}}, Next: &tkNode{}}}, Started: &started, Renewed: &renewed,
				Verbs: []string{}, Extra: map[string][]string{"k": {"v"}, "e": {}}},
			append(zeroSpec(), pb{}.
				msg(15, pb{}.str(1, "r").msg(2, pb{}.str(1, "c")).msg(3, pb{}.str(1, ""))).
				msg(16, pb{}.varint(1, 1700000000).varint(2, 0)).
				msg(17, pb{}.varint(1, 1700000000).varint(2, 123456000)).
				msg(18, pb{}).
				msg(19, pb{}.str(1, "e").msg(2, pb{})).msg(19, pb{}.str(1, "k").msg(2, pb{}.str(1, "v")))...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := &tkKind{TypeMeta: scheme.TypeMeta{APIVersion: tkGVK.GroupVersion().String(), Kind: tkGVK.Kind},
				ObjectMeta: scheme.ObjectMeta{Name: "n", Namespace: "ns"}, Spec: tc.spec}
			got := encodeMessage(t, ser, obj)
			want := append(slicesClone(meta), pb{}.msg(2, tc.want)...)
			if !bytes.Equal(got, want) {
				t.Fatalf("encoding\n got %x\nwant %x", got, []byte(want))
			}
			back := decodeTyped(t, ser, obj)
			// A map entry without its bytes value decodes as empty bytes, as gogo's does.
			wantObj := *obj
			if obj.Spec.Blobs != nil {
				wantObj.Spec.Blobs = maps.Clone(obj.Spec.Blobs)
				for k, v := range wantObj.Spec.Blobs {
					if v == nil {
						wantObj.Spec.Blobs[k] = []byte{}
					}
				}
			}
			if d := cmp.Diff(&wantObj, back, cmpTimes); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
		})
	}
	t.Run("an unset pointer message is left out, a set one written", func(t *testing.T) {
		obj := &tkKind{TypeMeta: scheme.TypeMeta{APIVersion: tkGVK.GroupVersion().String(), Kind: tkGVK.Kind}}
		if got, want := encodeMessage(t, ser, obj), append(slicesClone(emptyMeta), pb{}.msg(2, zeroSpec())...); !bytes.Equal(got, want) {
			t.Fatalf("nil status\n got %x\nwant %x", got, []byte(want))
		}
		obj.Status = &tkStatus{}
		if got, want := encodeMessage(t, ser, obj), append(slicesClone(emptyMeta), pb{}.msg(2, zeroSpec()).msg(3, pb{}.varint(2, 0))...); !bytes.Equal(got, want) {
			t.Fatalf("empty status\n got %x\nwant %x", got, []byte(want))
		}
	})
}

func slicesClone(b pb) pb { return append(pb{}, b...) }

// cmpTimes compares times as instants, whatever their location.
var cmpTimes = cmp.Options{
	cmp.Comparer(func(a, b scheme.Time) bool { return a.Time.Equal(b.Time) }),
	cmp.Comparer(func(a, b scheme.MicroTime) bool { return a.Time.Equal(b.Time) }),
}

func decodeTyped(t *testing.T, ser *protobuf.Serializer, obj scheme.Kinded) scheme.Kinded {
	t.Helper()
	var buf bytes.Buffer
	if err := ser.Encode(&buf, obj); err != nil {
		t.Fatal(err)
	}
	res, err := ser.Decode(buf.Bytes(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Object
}

// fullKind sets every field of tkKind.
func fullKind() *tkKind {
	one, typ, big := int32(1), "Dir", int64(-5)
	started := scheme.NewTime(time.Unix(1700000000, 0))
	renewed := scheme.NewMicroTime(time.Unix(1700000000, 123456000))
	return &tkKind{
		TypeMeta:   scheme.TypeMeta{APIVersion: tkGVK.GroupVersion().String(), Kind: tkGVK.Kind},
		ObjectMeta: scheme.ObjectMeta{Name: "n", Namespace: "ns", Labels: map[string]string{"a": "b"}, Generation: 3},
		Spec: tkSpec{Replicas: &one, Name: "x", Mode: "Slow", Offset: -7, Delta: 9, Enabled: true, Ratio: 1.25,
			Raw: []byte("raw"), Args: []string{"a", "b"}, Ports: []int32{1, -1}, Selector: map[string]string{"k": "v"},
			Sizes: map[tkResourceName]tkSize{"cpu": {Text: "1"}}, Blobs: map[string][]byte{"b": []byte("x")},
			TkSource: TkSource{Path: "/p", Type: &typ}, Tree: []tkNode{{Name: "r", Next: &tkNode{Name: "n"}}},
			Started: &started, Renewed: &renewed, Verbs: []string{"get"}, Extra: map[string][]string{"e": {"1", "2"}}, Big: &big},
		Status: &tkStatus{Conditions: []scheme.Condition{{Type: "Ready", Status: "True", LastTransitionTime: started, Reason: "R", Message: "M"}}, Observed: 2},
	}
}

func TestRegisterType_UnstructuredEncodesTheBytesOfTheTypedObject(t *testing.T) {
	ser := protobuf.New(tkScheme(t))
	zero := int32(0)
	empty := &tkKind{TypeMeta: fullKind().TypeMeta, Spec: tkSpec{Replicas: &zero}}
	for name, obj := range map[string]*tkKind{"every field set": fullKind(), "nearly empty, a pointer set to zero": empty} {
		t.Run(name, func(t *testing.T) {
			typed := encodeMessage(t, ser, obj)
			j, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			u := &scheme.Unstructured{}
			if err := json.Unmarshal(j, &u.Object); err != nil {
				t.Fatal(err)
			}
			if got := encodeMessage(t, ser, u); !bytes.Equal(got, typed) {
				t.Fatalf("unstructured encoding differs from the typed one\n got %x\nwant %x", got, typed)
			}
			// Decoded as unstructured, the bytes give the typed object's JSON back.
			var buf bytes.Buffer
			if err := ser.Encode(&buf, obj); err != nil {
				t.Fatal(err)
			}
			res, err := ser.Decode(buf.Bytes(), nil, &scheme.Unstructured{})
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := json.Unmarshal(j, &want); err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(res.Object.(*scheme.Unstructured).Object)
			if err != nil {
				t.Fatal(err)
			}
			var gotMap map[string]any
			if err := json.Unmarshal(got, &gotMap); err != nil {
				t.Fatal(err)
			}
			// Metadata travels by ObjectMeta's own rules (creationTimestamp null).
			delete(want, "metadata")
			delete(gotMap, "metadata")
			if d := cmp.Diff(want, gotMap); d != "" {
				t.Errorf("unstructured decode (-typed JSON +got):\n%s", d)
			}
		})
	}
}

func TestRegisterType_ListKindComesWithIt(t *testing.T) {
	ser := protobuf.New(tkScheme(t))
	list := &tkKindList{TypeMeta: scheme.TypeMeta{APIVersion: tkGVK.GroupVersion().String(), Kind: "TkKindList"},
		ListMeta: scheme.ListMeta{ResourceVersion: "5"}, Items: []tkKind{*fullKind(), {}}}
	list.Items[1].Spec.Name = "second"
	got := decodeTyped(t, ser, list).(*tkKindList)
	for i := range list.Items {
		list.Items[i].TypeMeta = scheme.TypeMeta{} // items carry no apiVersion and kind on the wire
	}
	if d := cmp.Diff(list, got, cmpTimes); d != "" {
		t.Errorf("list round trip (-want +got):\n%s", d)
	}
	item := encodeMessage(t, ser, fullKind())
	msg := encodeMessage(t, ser, list)
	if !bytes.Contains(msg, pb{}.msg(2, item)) {
		t.Errorf("the list's first item is not the item's own message")
	}
}

// Types whose tags cannot be encoded as k8s.io/api's would be: each refused with the
// field named.
type (
	untaggedField struct {
		Name  string `json:"name" protobuf:"bytes,1,opt,name=name"`
		Extra string `json:"extra,omitempty"`
	}
	zigzagWire struct {
		Count int32 `json:"count" protobuf:"zigzag32,1,opt,name=count"`
	}
	namedIntList struct {
		L tkInts `json:"l" protobuf:"varint,1,rep,name=l"`
	}
	duplicateNumber struct {
		A string `json:"a" protobuf:"bytes,1,opt,name=a"`
		B string `json:"b" protobuf:"bytes,1,opt,name=b"`
	}
	badNumber struct {
		A string `json:"a" protobuf:"bytes,x,opt,name=a"`
	}
	intKeys struct {
		M map[int]string `json:"m" protobuf:"bytes,1,rep,name=m"`
	}
	wrongValueNumber struct {
		M map[string]string `json:"m" protobuf:"bytes,1,rep,name=m" protobuf_val:"bytes,3,opt,name=value"`
	}
	nestedUntagged struct {
		Inner untaggedField `json:"inner" protobuf:"bytes,1,opt,name=inner"`
	}
	interfaceField struct {
		Any any `json:"any" protobuf:"bytes,1,opt,name=any"`
	}
	listOfMaps struct {
		L []map[string]string `json:"l" protobuf:"bytes,1,rep,name=l"`
	}
)

type tkInts []int32

type refusedKind[T any] struct {
	scheme.TypeMeta `json:",inline"`
	Body            T `json:"body" protobuf:"bytes,1,opt,name=body"`
}

func (r *refusedKind[T]) GetObjectKind() scheme.ObjectKind { return &r.TypeMeta }

func TestRegisterType_RefusesWhatWouldBeLost(t *testing.T) {
	cases := []struct {
		name string
		obj  scheme.Kinded
		want string
	}{
		{"a JSON field without a protobuf tag", &refusedKind[untaggedField]{}, `JSON field "extra" has no protobuf tag`},
		{"a wire type k8s.io/api never uses", &refusedKind[zigzagWire]{}, `wire type "zigzag32": only varint, bytes and fixed64`},
		{"a named list type of other than strings", &refusedKind[namedIntList]{}, "only string lists travel as a message"},
		{"two fields with one number", &refusedKind[duplicateNumber]{}, "field number 1 used by"},
		{"a field number that is not one", &refusedKind[badNumber]{}, `invalid field number "x"`},
		{"a map whose keys are not strings", &refusedKind[intKeys]{}, "only string keys"},
		{"a map value numbered other than 2", &refusedKind[wrongValueNumber]{}, "field number 3, want 2"},
		{"an untagged field deep inside", &refusedKind[nestedUntagged]{}, `untaggedField.Extra: JSON field "extra"`},
		{"an interface", &refusedKind[interfaceField]{}, "has no protobuf encoding"},
		{"a list of maps", &refusedKind[listOfMaps]{}, "has no protobuf encoding"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := scheme.New()
			gvk := scheme.GroupVersionKind{Group: "x", Version: "v1", Kind: fmt.Sprintf("K%T", tc.obj)}
			err := protobuf.RegisterType(s, gvk, tc.obj)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RegisterType: %v, want an error containing %q", err, tc.want)
			}
			// Nothing registered: the kind has no protobuf encoding.
			if protobuf.New(s).Supports(gvk, tc.obj) {
				t.Errorf("a refused kind is supported")
			}
		})
	}
}

func TestRegisterType_SharesDerivedMessagesAcrossSchemes(t *testing.T) {
	// Deriving is once per Go type: the second scheme's registration reuses the first's.
	a, b := tkScheme(t), tkScheme(t)
	obj := fullKind()
	if x, y := encodeMessage(t, protobuf.New(a), obj), encodeMessage(t, protobuf.New(b), obj); !bytes.Equal(x, y) {
		t.Fatalf("two schemes encode one object differently")
	}
	allocs := testing.AllocsPerRun(10, func() {
		if err := protobuf.RegisterType(a, tkGVK, &tkKind{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("RegisterType of a derived type again: %.0f allocs", allocs)
	if allocs > 20 {
		t.Errorf("registering a derived type again allocates %.0f times: it derives again", allocs)
	}
}

func TestRegisterTypes_NamesKindsByGoTypeAndSkipsLists(t *testing.T) {
	s := scheme.New()
	gv := scheme.GroupVersion{Group: "tags.example.com", Version: "v1"}
	s.AddKnownTypes(gv, &tkKind{}, &tkKindList{})
	if err := protobuf.RegisterTypes(s, gv, &tkKind{}, &tkKindList{}); err != nil {
		t.Fatal(err)
	}
	ser := protobuf.New(s)
	for _, k := range []string{"tkKind", "tkKindList"} {
		if !ser.Supports(gv.WithKind(k), reflect.New(map[string]reflect.Type{"tkKind": reflect.TypeFor[tkKind](), "tkKindList": reflect.TypeFor[tkKindList]()}[k]).Interface()) {
			t.Errorf("%s not supported", k)
		}
	}
}

func BenchmarkRegisterType(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s := scheme.New()
		if err := protobuf.RegisterType(s, tkGVK, &tkKind{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRegisterType_Encode(b *testing.B) {
	ser := protobuf.New(tkScheme(b))
	obj := fullKind()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := ser.Encode(&buf, obj); err != nil {
			b.Fatal(err)
		}
	}
}

// tkValues carries the wire value types of apimachinery: resource.Quantity,
// intstr.IntOrString and runtime.RawExtension, as values, pointers, list elements and
// map values.
type tkValues struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Q                 quantity.Quantity                    `json:"q" protobuf:"bytes,2,opt,name=q"`
	QP                *quantity.Quantity                   `json:"qp,omitempty" protobuf:"bytes,3,opt,name=qp"`
	Limits            map[tkResourceName]quantity.Quantity `json:"limits,omitempty" protobuf:"bytes,4,rep,name=limits,casttype=ResourceList,castkey=tkResourceName"`
	Port              scheme.IntOrString                   `json:"port,omitempty" protobuf:"bytes,5,opt,name=port"`
	PortP             *scheme.IntOrString                  `json:"portP,omitempty" protobuf:"bytes,6,opt,name=portP"`
	Data              scheme.RawExtension                  `json:"data,omitempty" protobuf:"bytes,7,opt,name=data"`
	DataP             *scheme.RawExtension                 `json:"dataP,omitempty" protobuf:"bytes,8,opt,name=dataP"`
	Qs                []quantity.Quantity                  `json:"qs,omitempty" protobuf:"bytes,9,rep,name=qs"`
}

var tvGVK = scheme.GroupVersionKind{Group: "tags.example.com", Version: "v1", Kind: "TkValues"}

func tvScheme(t testing.TB) *scheme.Scheme {
	t.Helper()
	s := scheme.New()
	s.AddKnownTypeWithName(tvGVK, &tkValues{})
	if err := protobuf.RegisterType(s, tvGVK, &tkValues{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRegisterType_ValueTypesAsApimachineryWritesThem(t *testing.T) {
	ser := protobuf.New(tvScheme(t))
	emptyMeta := pb{}.msg(1, pb{}.str(1, "").str(2, "").str(3, "").str(4, "").str(5, "").str(6, "").varint(7, 0).msg(8, pb{}))
	q := func(s string) pb { return pb{}.str(1, s) }
	ios := func(typ, i uint64, s string) pb { return pb{}.varint(1, typ).varint(2, i).str(3, s) }
	half, port := quantity.MustParse("0.5"), scheme.FromString("http")
	cases := []struct {
		name string
		obj  tkValues
		want pb
	}{
		{"zero values: the quantity 0, an int 0, a RawExtension without raw", tkValues{},
			pb{}.msg(2, q("0")).msg(5, ios(0, 0, "")).msg(7, pb{})},
		{"canonical quantities, string and negative int-or-strings, raw JSON, sorted limits",
			tkValues{Q: quantity.MustParse("1500m"), QP: &half,
				Limits: map[tkResourceName]quantity.Quantity{"memory": quantity.MustParse("1024Mi"), "cpu": quantity.MustParse("1000m")},
				Port:   scheme.FromInt32(-3), PortP: &port, Data: scheme.RawExtension{Raw: []byte(`{"a":1}`)},
				DataP: &scheme.RawExtension{Raw: []byte("[1]")}, Qs: []quantity.Quantity{quantity.MustParse("1e3"), {}}},
			pb{}.msg(2, q("1500m")).msg(3, q("500m")).
				msg(4, pb{}.str(1, "cpu").msg(2, q("1"))).msg(4, pb{}.str(1, "memory").msg(2, q("1Gi"))).
				msg(5, ios(0, uint64(math.MaxUint64-2), "")).msg(6, ios(1, 0, "http")).
				msg(7, pb{}.str(1, `{"a":1}`)).msg(8, pb{}.str(1, "[1]")).
				msg(9, q("1e3")).msg(9, q("0"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj
			obj.TypeMeta = scheme.TypeMeta{APIVersion: tvGVK.GroupVersion().String(), Kind: tvGVK.Kind}
			got := encodeMessage(t, ser, &obj)
			want := append(slicesClone(emptyMeta), tc.want...)
			if !bytes.Equal(got, want) {
				t.Fatalf("encoding\n got %x\nwant %x", got, []byte(want))
			}
			back := decodeTyped(t, ser, &obj).(*tkValues)
			if gj, wj := mustJSON(t, back), mustJSON(t, &obj); gj != wj {
				t.Errorf("round trip\n got %s\nwant %s", gj, wj)
			}
			// The same JSON as an unstructured object: the same bytes, and back.
			u := &scheme.Unstructured{}
			if _, err := codec.Unmarshal([]byte(mustJSON(t, &obj)), &u.Object); err != nil {
				t.Fatal(err)
			}
			if ub := encodeMessage(t, ser, u); !bytes.Equal(ub, want) {
				t.Fatalf("unstructured encoding\n got %x\nwant %x", ub, []byte(want))
			}
			var buf bytes.Buffer
			if err := ser.Encode(&buf, &obj); err != nil {
				t.Fatal(err)
			}
			res, err := ser.Decode(buf.Bytes(), nil, &scheme.Unstructured{})
			if err != nil {
				t.Fatal(err)
			}
			gotU := res.Object.(*scheme.Unstructured).Object
			delete(gotU, "metadata")
			delete(u.Object, "metadata")
			for k, v := range u.Object {
				if v == nil { // a RawExtension without raw: null in JSON, absent decoded
					delete(u.Object, k)
				}
			}
			if d := cmp.Diff(u.Object, gotU); d != "" {
				t.Errorf("unstructured decode (-typed JSON +got):\n%s", d)
			}
		})
	}
}

func TestRegisterType_RefusesAQuantityThatDoesNotParse(t *testing.T) {
	ser := protobuf.New(tvScheme(t))
	var buf bytes.Buffer
	if err := ser.Encode(&buf, &tkValues{TypeMeta: scheme.TypeMeta{APIVersion: tvGVK.GroupVersion().String(), Kind: tvGVK.Kind}}); err != nil {
		t.Fatal(err)
	}
	// The zero quantity "0" of field 2 becomes "x".
	data := bytes.Replace(buf.Bytes(), []byte{0x12, 0x03, 0x0a, 0x01, '0'}, []byte{0x12, 0x03, 0x0a, 0x01, 'x'}, 1)
	if bytes.Equal(data, buf.Bytes()) {
		t.Fatal("the test did not find the quantity to corrupt")
	}
	for _, into := range []scheme.Kinded{nil, &scheme.Unstructured{}} {
		if _, err := ser.Decode(data, nil, into); !errors.Is(err, protobuf.ErrMalformed) {
			t.Errorf("decode into %T: %v, want ErrMalformed", into, err)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

func TestRegisterType_RecursiveMessageNestedTooDeepIsMalformed(t *testing.T) {
	ser := protobuf.New(tkScheme(t))
	// tree[0].next.next...: 11,000 levels of the recursive tkNode, 3 or 4 bytes each.
	node := pb{}
	for range 11000 {
		node = pb{}.msg(3, node)
	}
	data := protobuf.AppendEnvelope(nil, &protobuf.Unknown{APIVersion: tkGVK.GroupVersion().String(), Kind: tkGVK.Kind,
		Raw: pb{}.msg(2, pb{}.msg(15, node))})
	for _, into := range []scheme.Kinded{nil, &scheme.Unstructured{}} {
		if _, err := ser.Decode(data, nil, into); !errors.Is(err, protobuf.ErrMalformed) || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("decode into %T: %v, want ErrMalformed for the nesting", into, err)
		}
	}
	// 100 levels are fine.
	node = pb{}.str(1, "leaf")
	for range 100 {
		node = pb{}.msg(3, node)
	}
	data = protobuf.AppendEnvelope(nil, &protobuf.Unknown{APIVersion: tkGVK.GroupVersion().String(), Kind: tkGVK.Kind,
		Raw: pb{}.msg(2, pb{}.msg(15, node))})
	res, err := ser.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, depth := &res.Object.(*tkKind).Spec.Tree[0], 0
	for n.Next != nil {
		n, depth = n.Next, depth+1
	}
	if depth != 100 || n.Name != "leaf" {
		t.Errorf("decoded %d levels down to %q, want 100 down to leaf", depth, n.Name)
	}
}
