package jsonwire

import (
	"strings"
	"testing"
)

func TestMeter_CountsNestingOutsideStrings(t *testing.T) {
	for _, tc := range []struct {
		doc    string
		chunks int // the document is written in this many pieces
		depth  int
	}{
		{`{}`, 1, 1},
		{`{"a":[{"b":1},{"c":[[2]]}]}`, 1, 5},
		{`{"a":"{[{[\"{"}`, 1, 1},
		{`{"a":"\\","b":{"c":"]"}}`, 1, 2},
		{`{"a":"x\\\"{{","b":[{}]}`, 3, 3},
		{strings.Repeat(`{"k":`, 50) + `"}}}"` + strings.Repeat("}", 50), 7, 50},
	} {
		var m Meter
		step := (len(tc.doc) + tc.chunks - 1) / tc.chunks
		for i := 0; i < len(tc.doc); i += step {
			_, _ = m.Write([]byte(tc.doc[i:min(i+step, len(tc.doc))]))
		}
		if m.Deepest != tc.depth || m.N != int64(len(tc.doc)) || m.depth != 0 {
			t.Errorf("%s: deepest %d, n %d, open %d; want %d, %d, 0", tc.doc, m.Deepest, m.N, m.depth, tc.depth, len(tc.doc))
		}
	}
}

// BenchmarkMeter measures what the depth count adds to measuring an object's JSON
// size, side by side with counting bytes alone (what checkStoredSize did before).
func BenchmarkMeter(b *testing.B) {
	doc := []byte(`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","labels":{"app":"a"},"managedFields":[{"manager":"kubectl","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"gear\"}":{".":{},"f:count":{}}}}}}]},"spec":{"color":"red","parts":[{"name":"gear","count":2}],"note":"a \"quoted\" \\ text"}}`)
	b.Run("bytes-only", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		var n int64
		for b.Loop() {
			n += int64(len(doc))
		}
		_ = n
	})
	b.Run("bytes-and-depth", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			var m Meter
			_, _ = m.Write(doc)
		}
	})
}
