package codec_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/codec"
)

// indentStreamed indents doc through an IndentWriter, written in the given chunk sizes
// (cycled), as a streamed response arrives in pieces.
func indentStreamed(t *testing.T, doc []byte, chunks []int) []byte {
	t.Helper()
	var out bytes.Buffer
	iw := codec.NewIndentWriter(&out)
	for i, k := 0, 0; i < len(doc); k++ {
		n := min(chunks[k%len(chunks)], len(doc)-i)
		if w, err := iw.Write(doc[i : i+n]); err != nil || w != n {
			t.Fatalf("Write = %d, %v", w, err)
		}
		i += n
	}
	if err := iw.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestIndentWriter_WritesWhatJSONIndentWrites(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `{"a":{}}`, `{"a":[]}`, `[[],[{}]]`, `"x"`, `12`, `null`, `true`,
		`{"apiVersion":"v1","kind":"List","items":[{"a":1,"b":[1,2,{"c":"d"}]},{"e":null}],"metadata":{}}` + "\n",
		`{"s":"quote \" backslash \\ brace { bracket [ comma , colon : \u00e9 \\\" end"}`,
		` {"a" : [ 1 , 2 ] } ` + "\n\n",
		`{"a":"\\"}`, `["\\\\", "\"", "\\\""]`,
		`{"deep":[[[[[[{"x":[{}]}]]]]]]}`,
		`{"k":"` + strings.Repeat("long string ", 5000) + `"}`,
	}
	for _, doc := range docs {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(doc), "", "  "); err != nil {
			t.Fatalf("json.Indent(%q): %v", doc, err)
		}
		for _, chunks := range [][]int{{len(doc) + 1}, {1}, {2, 3}, {7, 1, 64}} {
			if got := indentStreamed(t, []byte(doc), chunks); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("doc %.60q in chunks %v:\n got %.200q\nwant %.200q", doc, chunks, got, want.Bytes())
			}
		}
	}
}

// randomJSON writes a random JSON value of bounded depth, with strings that hold the
// bytes that matter to an indenter.
func randomJSON(r *rand.Rand, b *strings.Builder, depth int) {
	pieces := []string{`"`, `\\`, `\"`, `{`, `}`, `[`, `]`, `,`, `:`, ` `, `a`, `é`, `\n`, `\u0041`}
	str := func() {
		b.WriteByte('"')
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		b.WriteByte('"')
	}
	switch k := r.IntN(6); {
	case depth > 4 || k == 0:
		[]func(){func() { b.WriteString("null") }, func() { b.WriteString("-1.5e3") }, func() { b.WriteString("true") }, str}[r.IntN(4)]()
	case k < 3:
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			str()
			b.WriteByte(':')
			randomJSON(r, b, depth+1)
		}
		b.WriteByte('}')
	default:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString([]string{",", " , ", ",\n"}[r.IntN(3)])
			}
			randomJSON(r, b, depth+1)
		}
		b.WriteByte(']')
	}
}

func TestIndentWriter_MatchesJSONIndentOnGeneratedDocuments(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for range 3000 {
		var b strings.Builder
		randomJSON(r, &b, 0)
		doc := []byte(b.String())
		var want bytes.Buffer
		if json.Indent(&want, doc, "", "  ") != nil {
			continue // the generator's strings can hold invalid escapes: not an encoder's output
		}
		checked++
		chunks := []int{1 + r.IntN(8), 1 + r.IntN(40)}
		if got := indentStreamed(t, doc, chunks); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("doc %q in chunks %v:\n got %q\nwant %q", doc, chunks, got, want.Bytes())
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d of 3000 generated documents were valid JSON", checked)
	}
}
