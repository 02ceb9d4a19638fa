package conversion_test

import (
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// Note and Memo are one resource's objects seen through two groups (as core/v1 and
// events.k8s.io/v1 Event are); Sticker is another kind of Memo's group.
type Note struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Text              string `json:"text"`
}

type Memo struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Body              string `json:"body"`
}

type Sticker struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Text              string `json:"text"`
}

var (
	notesV1 = scheme.GroupVersion{Group: "", Version: "v1"}
	memosV1 = scheme.GroupVersion{Group: "memos.example.com", Version: "v1"}
)

func noteToMemo(in *Note, out *Memo, sc conversion.Scope) error {
	out.ObjectMeta, out.Body = in.ObjectMeta, "memo: "+in.Text
	return nil
}

func memoToNote(in *Memo, out *Note, sc conversion.Scope) error {
	out.ObjectMeta, out.Text = in.ObjectMeta, strings.TrimPrefix(in.Body, "memo: ")
	return nil
}

func acrossGroupsScheme(register bool) *scheme.Scheme {
	s := scheme.New()
	s.AddKnownTypeWithName(notesV1.WithKind("Note"), &Note{})
	s.AddKnownTypeWithName(memosV1.WithKind("Note"), &Memo{})
	s.AddKnownTypeWithName(memosV1.WithKind("Sticker"), &Sticker{})
	s.AddKnownTypeWithName(notesV1.WithKind("Sticker"), &Sticker{})
	if register {
		conversion.RegisterAcrossGroups(s, noteToMemo, memoToNote)
	}
	return s
}

func TestRegisterAcrossGroups_OnlyThePairConvertsBetweenGroups(t *testing.T) {
	note := &Note{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Note"}, ObjectMeta: scheme.ObjectMeta{Name: "n"}, Text: "hi"}
	memo := &Memo{TypeMeta: scheme.TypeMeta{APIVersion: memosV1.String(), Kind: "Note"}, ObjectMeta: scheme.ObjectMeta{Name: "m"}, Body: "memo: yo"}
	sticker := &Sticker{TypeMeta: scheme.TypeMeta{APIVersion: memosV1.String(), Kind: "Sticker"}, ObjectMeta: scheme.ObjectMeta{Name: "s"}, Text: "x"}
	registered := acrossGroupsScheme(true)
	tests := []struct {
		name    string
		s       *scheme.Scheme
		in      scheme.Kinded
		to      scheme.GroupVersion
		want    string // the converted text, or "" for an error
		wantErr string
	}{
		{"the registered pair, one way", registered, note, memosV1, "memo: hi", ""},
		{"the registered pair, the other way", registered, memo, notesV1, "yo", ""},
		{"the registered pair in a clone of the scheme", registered.Clone(), note, memosV1, "memo: hi", ""},
		{"the same kinds without the registration", acrossGroupsScheme(false), note, memosV1, "", "cannot convert between groups"},
		{"a kind whose Go type is the same in both groups", registered, sticker, notesV1, "", "cannot convert between groups"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := conversion.ToVersion(tt.s, tt.in, tt.to)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ToVersion = %v, %v; want an error containing %q", out, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var text string
			switch o := out.(type) {
			case *Memo:
				text = o.Body
			case *Note:
				text = o.Text
			default:
				t.Fatalf("ToVersion gave a %T", out)
			}
			if text != tt.want || out.GetObjectKind().GroupVersionKind().GroupVersion() != tt.to {
				t.Errorf("ToVersion = %s %q, want %s %q", out.GetObjectKind().GroupVersionKind(), text, tt.to, tt.want)
			}
		})
	}
}
