package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	kubemerge "gopkg.in/evanphx/json-patch.v4"

	"github.com/apikit-dev/apikit/patch"
)

// mergeDiffGen makes random JSON documents and merge patches over a few keys (one of
// them spelled twice, "a" and "\u0061", and keys may repeat), with the values a merge
// treats apart: nulls in objects and lists, objects in lists, numbers in several
// spellings, escaped strings.
type mergeDiffGen struct{ r *rand.Rand }

var (
	mergeDiffKeys    = []string{`"a"`, `"b"`, `"c"`, `"\u0061"`, `"d\"e"`, `"ü"`}
	mergeDiffNumbers = []string{`0`, `-1`, `1.50`, `1e3`, `-0.0`, `12345678901234567890123`}
	mergeDiffStrings = []string{`""`, `"x"`, `"a\nb"`, `"\u00e9\u2028"`, `"}]"`, `"\\"`, `"<&>"`}
)

func (g mergeDiffGen) value(b *strings.Builder, depth int) {
	n := g.r.IntN(10)
	if depth <= 0 && n >= 7 {
		n = g.r.IntN(7)
	}
	switch n {
	case 0, 1:
		b.WriteString("null")
	case 2:
		b.WriteString([]string{"true", "false"}[g.r.IntN(2)])
	case 3, 4:
		b.WriteString(mergeDiffNumbers[g.r.IntN(len(mergeDiffNumbers))])
	case 5, 6:
		b.WriteString(mergeDiffStrings[g.r.IntN(len(mergeDiffStrings))])
	case 7:
		b.WriteString("[")
		for i := range g.r.IntN(4) {
			if i > 0 {
				b.WriteString(" , ")
			}
			g.value(b, depth-1)
		}
		b.WriteString("]")
	default:
		g.object(b, depth-1)
	}
}

func (g mergeDiffGen) object(b *strings.Builder, depth int) {
	b.WriteString("{")
	for i := range g.r.IntN(5) {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(mergeDiffKeys[g.r.IntN(len(mergeDiffKeys))] + ": ")
		g.value(b, depth)
	}
	b.WriteString("}")
}

// exactValue decodes one JSON value, numbers as their text.
func exactValue(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v: %.300s", err, b)
	}
	return v
}

// checkMergeLikeKube fails unless apikit's MergePatch makes of doc and p what
// kube-apiserver's merge patch (gopkg.in/evanphx/json-patch.v4's MergePatch, which
// k8s.io/apiserver's patch handler calls) makes: the same JSON value, or the same
// failure (ErrBadJSONPatch, which kube answers with a 400, is ErrMalformed with its
// message; ErrBadJSONDoc is ErrRejected).
func checkMergeLikeKube(t *testing.T, doc, p []byte) {
	t.Helper()
	got, err := patch.MergePatch(doc, p)
	want, kubeErr := kubemerge.MergePatch(doc, p)
	switch {
	case errors.Is(kubeErr, kubemerge.ErrBadJSONPatch):
		if !errors.Is(err, patch.ErrMalformed) || err.Error() != kubeErr.Error() {
			t.Fatalf("doc %s patch %s: err %v, kube %v", doc, p, err, kubeErr)
		}
	case errors.Is(kubeErr, kubemerge.ErrBadJSONDoc):
		if !errors.Is(err, patch.ErrRejected) || err.Error() != kubeErr.Error() {
			t.Fatalf("doc %s patch %s: err %v, kube %v", doc, p, err, kubeErr)
		}
	case kubeErr != nil:
		t.Fatalf("doc %s patch %s: kube fails with %v", doc, p, kubeErr)
	case err != nil:
		t.Fatalf("doc %s patch %s: err %v, kube made %s", doc, p, err, want)
	case !json.Valid(got) || !reflect.DeepEqual(exactValue(t, got), exactValue(t, want)):
		t.Fatalf("doc    %s\npatch  %s\napikit %s\nkube   %s", doc, p, got, want)
	}
}

// TestMergePatch_MatchesKubesMergeOnGeneratedDocuments compares apikit's one-pass
// merge patch with kube-apiserver's on generated documents and patches (objects,
// lists, scalars and null as patches; repeated keys), and on deep ones.
func TestMergePatch_MatchesKubesMergeOnGeneratedDocuments(t *testing.T) {
	g := mergeDiffGen{rand.New(rand.NewPCG(23, 5))}
	for range 20000 {
		var d, p strings.Builder
		g.object(&d, 4)
		if g.r.IntN(8) == 0 {
			g.value(&p, 3)
		} else {
			g.object(&p, 4)
		}
		checkMergeLikeKube(t, []byte(d.String()), []byte(p.String()))
	}
	deep := func(depth int, leaf string) []byte {
		return []byte(`{"spec":` + strings.Repeat(`{"a":`, depth) + leaf + strings.Repeat(`}`, depth) + `}`)
	}
	for _, c := range []struct{ doc, p []byte }{
		{deep(1000, `{"x":1,"y":[{"z":null}]}`), deep(1000, `{"x":null,"w":{"v":null,"u":[{"t":null}]}}`)},
		{deep(1000, `{"x":1}`), deep(500, `[{"a":null}]`)},
		{deep(500, `1`), deep(1000, `{"b":null}`)},
		{[]byte(`[1,2]`), deep(100, `null`)},
		{[]byte(`null`), []byte(`{}`)},
		{[]byte(`{"a":1}`), []byte(`null`)},
		{[]byte(`{"a":1}`), []byte(`"s"`)},
	} {
		checkMergeLikeKube(t, c.doc, c.p)
	}
}
