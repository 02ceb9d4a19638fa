package codec_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// Crate is a typed kind of the storage codec's tests.
type Crate struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Slots int32 `json:"slots"`
	} `json:"spec"`
}

// CrateList is Crate's list kind: a list is not a stored object.
type CrateList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Crate `json:"items"`
}

var crateGV = scheme.GroupVersion{Group: "storage.example.com", Version: "v1"}

func storageCodecScheme() *scheme.Scheme {
	s := scheme.New()
	s.AddKnownTypes(crateGV, &Crate{}, &CrateList{})
	s.AddUnstructuredKind(crateGV.WithKind("Pallet"))
	return s
}

func TestStorageCodec_EncodeIsTheSerializersBytesWithoutTheNewline(t *testing.T) {
	s := storageCodecScheme()
	c := codec.StorageCodec{Serializer: codec.NewJSON(s)}
	crate := &Crate{TypeMeta: scheme.TypeMeta{APIVersion: crateGV.String(), Kind: "Crate"},
		ObjectMeta: scheme.ObjectMeta{Name: "c1", Namespace: "ns", ResourceVersion: "7"}}
	crate.Spec.Slots = 4
	pallet := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": crateGV.String(), "kind": "Pallet",
		"metadata": map[string]any{"name": "p1"}, "spec": map[string]any{"load": "x\n"},
	}}
	tests := []struct {
		name string
		obj  scheme.Object
		want string
	}{
		{"typed kind", crate, `{"kind":"Crate","apiVersion":"storage.example.com/v1","metadata":{"name":"c1","namespace":"ns","resourceVersion":"7"},"spec":{"slots":4}}`},
		{"schema-only kind, a newline inside a string stays escaped", pallet, `{"apiVersion":"storage.example.com/v1","kind":"Pallet","metadata":{"name":"p1"},"spec":{"load":"x\n"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wire bytes.Buffer
			if err := codec.NewJSON(s).Encode(&wire, tt.obj); err != nil {
				t.Fatal(err)
			}
			got, err := c.Encode(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Encode =\n%s\nwant\n%s", got, tt.want)
			}
			if string(got)+"\n" != wire.String() {
				t.Errorf("Encode is not the serializer's bytes less the newline:\n%q\n%q", got, wire.String())
			}
		})
	}
}

func TestStorageCodec_DecodeFindsTheKindInTheBytes(t *testing.T) {
	c := codec.StorageCodec{Serializer: codec.NewJSON(storageCodecScheme())}
	tests := []struct {
		name, data, wantType, wantName, wantErr string
	}{
		{"typed kind", `{"apiVersion":"storage.example.com/v1","kind":"Crate","metadata":{"name":"c1"},"spec":{"slots":4}}`, "*codec_test.Crate", "c1", ""},
		{"schema-only kind", `{"apiVersion":"storage.example.com/v1","kind":"Pallet","metadata":{"name":"p1"}}`, "*scheme.Unstructured", "p1", ""},
		{"a list is not a stored object", `{"apiVersion":"storage.example.com/v1","kind":"CrateList","items":[]}`, "", "", "not a scheme.Object"},
		{"an unknown kind", `{"apiVersion":"storage.example.com/v1","kind":"Barrel","metadata":{"name":"b"}}`, "", "", `no kind "Barrel" is registered for version "storage.example.com/v1"`},
		{"bytes without a kind", `{"metadata":{"name":"x"}}`, "", "", "Object 'Kind' is missing"},
		{"bytes that are not JSON", `{"apiVersion":`, "", "", "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := c.Decode([]byte(tt.data))
			if tt.wantType == "" {
				if err == nil {
					t.Fatalf("Decode(%s) = %T, want an error", tt.data, obj)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q does not mention %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%T", obj); got != tt.wantType || obj.GetName() != tt.wantName {
				t.Errorf("Decode = %s %q, want %s %q", got, obj.GetName(), tt.wantType, tt.wantName)
			}
		})
	}
}

func TestStorageCodec_RoundTripKeepsTheObject(t *testing.T) {
	c := codec.StorageCodec{Serializer: codec.NewJSON(storageCodecScheme())}
	in := &Crate{TypeMeta: scheme.TypeMeta{APIVersion: crateGV.String(), Kind: "Crate"},
		ObjectMeta: scheme.ObjectMeta{Name: "c1", Labels: map[string]string{"a": "b"}, Finalizers: []string{"example.com/f"}}}
	in.Spec.Slots = 9
	data, err := c.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := out.(*Crate)
	if !ok || got == in || got.Name != "c1" || got.Labels["a"] != "b" || len(got.Finalizers) != 1 || got.Spec.Slots != 9 ||
		got.GetObjectKind().GroupVersionKind() != crateGV.WithKind("Crate") {
		t.Errorf("round trip = %#v", out)
	}
	again, err := c.Encode(out)
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("second encoding differs: %s\n%s (%v)", again, data, err)
	}
}
