package scheme

import (
	"reflect"
	"testing"
)

type jfInner struct {
	A string `json:"a"`
	B string
	C string `json:"c,omitempty"`
}

type jfOther struct {
	A string `json:"a"`
	D int    `json:"d,string"`
}

type jfTagged struct {
	X string `json:"x"`
}

type jfOuter struct {
	jfInner
	*jfOther
	Named  jfTagged `json:"named"`
	B      string   `json:"b"`
	Skip   string   `json:"-"`
	Dash   string   `json:"-,"`
	hidden string
	Z      *int `json:"z,omitzero"`
	Q      bool `json:",string"`
	Bad    int  `json:"a b\u0001"`
	E      jfTagged
	F      []int `json:"f,omitempty,omitzero"`
}

func TestJSONFields_FollowEncodingJSONRules(t *testing.T) {
	got := map[string]JSONField{}
	var order []string
	for _, f := range JSONFields(reflect.TypeFor[jfOuter]()) {
		got[f.Name] = f
		order = append(order, f.Name)
	}
	// "a" is at depth 1 in both embedded structs, both tagged: they annihilate.
	if _, ok := got["a"]; ok {
		t.Error(`conflicting "a" at one depth was kept`)
	}
	wantPresent := []string{"B", "c", "d", "named", "b", "-", "z", "Q", "Bad", "E", "f"}
	for _, n := range wantPresent {
		if _, ok := got[n]; !ok {
			t.Errorf("field %q missing; have %v", n, order)
		}
	}
	for _, n := range []string{"Skip", "hidden", "x"} {
		if _, ok := got[n]; ok {
			t.Errorf("field %q should not be a member", n)
		}
	}
	if f := got["b"]; !f.Tagged || len(f.Index) != 1 {
		t.Errorf(`the shallow tagged "b" should win over the embedded B: %+v`, f)
	}
	if f := got["B"]; len(f.Index) != 2 {
		t.Errorf(`embedded B keeps its Go name at depth 2: %+v`, f)
	}
	if !got["c"].OmitEmpty || !got["z"].OmitZero || !got["d"].Quoted || !got["Q"].Quoted {
		t.Errorf("tag options lost: c=%+v z=%+v d=%+v Q=%+v", got["c"], got["z"], got["d"], got["Q"])
	}
	if f := got["f"]; !f.OmitEmpty || !f.OmitZero {
		t.Errorf("both options on one tag: %+v", f)
	}
	if f := got["d"]; f.Owner != reflect.TypeFor[jfOther]() || !f.ViaPointer || f.GoName != "D" || f.Tag != `json:"d,string"` {
		t.Errorf(`"d" is declared by jfOther and promoted through its embedded pointer: %+v`, f)
	}
	if f := got["c"]; f.Owner != reflect.TypeFor[jfInner]() || f.ViaPointer {
		t.Errorf(`"c" is declared by the embedded value jfInner: %+v`, f)
	}
	if f := got["Bad"]; f.Owner != reflect.TypeFor[jfOuter]() || f.ViaPointer || f.GoName != "Bad" || f.Tag.Get("json") != "a b\u0001" {
		t.Errorf(`"Bad" is jfOuter's own field with its whole tag: %+v`, f)
	}
	if &JSONFields(reflect.TypeFor[jfOuter]())[0] != &JSONFields(reflect.TypeFor[jfOuter]())[0] {
		t.Error("JSONFields is not cached")
	}
}
