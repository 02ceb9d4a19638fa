package protobuf

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/scheme"
)

// gizmo marshals itself, like a gogo-generated Kubernetes type: name=1, size=2.
type gizmo struct {
	scheme.TypeMeta
	Name string
	Size int64
}

func (g *gizmo) Marshal() ([]byte, error) {
	b := appendString(nil, 1, g.Name)
	return appendVarintField(b, 2, uint64(g.Size)), nil
}

func (g *gizmo) Unmarshal(data []byte) error {
	*g = gizmo{}
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return errors.New("bad tag")
		}
		data = data[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return errors.New("bad name")
			}
			g.Name, data = string(v), data[n:]
		case num == 2 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return errors.New("bad size")
			}
			g.Size, data = int64(v), data[n:]
		default:
			return errors.New("unexpected field")
		}
	}
	return nil
}

func TestSerializer_UsesATypesOwnMarshalAndUnmarshal(t *testing.T) {
	s := scheme.New()
	gv := scheme.GroupVersion{Group: "g", Version: "v1"}
	s.AddKnownTypes(gv, &gizmo{})
	ps := New(s)
	in := &gizmo{TypeMeta: scheme.TypeMeta{APIVersion: "g/v1", Kind: "gizmo"}, Name: "x", Size: 7}
	data := encode(t, ps, in)
	if want := []byte("\x12\x05\x0a\x01x\x10\x07"); !bytes.Contains(data, want) {
		t.Fatalf("raw %x does not hold the type's own marshalling %x", data, want)
	}
	res, err := ps.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, res.Object); diff != "" {
		t.Error(diff)
	}
}

func TestDecode_IntoAnotherRegisteredKindCreatesTheNamedKind(t *testing.T) {
	s := New(testScheme())
	data := encode(t, s, sampleWidget(0))
	into := &WidgetList{}
	res, err := s.Decode(data, nil, into)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Object.(*Widget); !ok {
		t.Fatalf("got %T, want *Widget", res.Object)
	}
}

func TestDecode_UnstructuredListOfRegisteredKind(t *testing.T) {
	s := New(testScheme())
	l := &WidgetList{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "WidgetList"},
		ListMeta: scheme.ListMeta{ResourceVersion: "3"}, Items: []Widget{listItem(1), listItem(2)}}
	data := encode(t, s, l)
	res, err := s.Decode(data, nil, &scheme.UnstructuredList{})
	if err != nil {
		t.Fatal(err)
	}
	ul := res.Object.(*scheme.UnstructuredList)
	if len(ul.Items) != 2 || ul.Items[1].GetName() != "w1" || ul.Items[0].GetKind() != "Widget" {
		t.Fatalf("items = %+v", ul.Items)
	}
	if rv := ul.GetResourceVersion(); rv != "3" {
		t.Errorf("resourceVersion = %q", rv)
	}
	if again := encode(t, s, ul); !bytes.Equal(again, data) {
		t.Errorf("unstructured list re-encodes differently:\n%x\n%x", again, data)
	}
}
