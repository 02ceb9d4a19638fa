package codec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"sigs.k8s.io/yaml"
)

// yamlParityDocs are JSON documents whose YAML must be kube's (sigs.k8s.io/yaml's
// JSONToYAML) byte for byte: the scalars whose style go-yaml chooses, numbers, long
// and multi-line strings that it folds or writes as blocks, nesting of every kind.
var yamlParityDocs = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"y"}},"data":{"k":"v"}}`,
	`{"s":["true","false","yes","no","on","off","y","n","null","~","","1","1.5","0x1F","1e3",".inf","-.inf",".nan","2001-12-14","12:30:45","<<","=","-","?","- a","a: b","#c","a #b"," lead","trail ","'q'","\"dq\"","@at","%p","!t","&a","*a","|","\u003e","{","}","[","]",",","é","日本","\u0000\u0007\t\u001b","\u2028","\ufeff","a\u00a0b"]}`,
	`{"n":[0,-0,1,-1,9223372036854775807,-9223372036854775808,9223372036854775808,18446744073709551615,18446744073709551616,1.5,-2.25,0.1,1e21,1e-7,123456789012345680000,1.0,5e-324,1.7976931348623157e308,-0.0]}`,
	`{"b":[true,false,null],"e":{},"l":[],"ee":[{},[],[[]],[{}]]}`,
	`{"nested":[[1,[2,[3]]],[{"a":[{"b":[]}]}],{"c":{"d":{"e":[1,2]}}}]}`,
	`{"multi":"line one\nline two\n","keep":"a\n\n\nb\n\n","strip":"a\nb","lead":"\nx","spaces":"  a\n b","tabs":"a\tb\nc","crlf":"a\r\nb","trailsp":"a \nb"}`,
	`{"long":"` + strings.Repeat("word ", 60) + `","longnospace":"` + strings.Repeat("x", 300) + `","deep":{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":{"m":{"n":{"o":{"p":{"q":{"r":{"s":{"t":{"u":{"v":{"w":{"x":"` + strings.Repeat("deep words ", 30) + `"}}}}}}}}}}}}}}}}}}}}}}}}}`,
	`{"` + strings.Repeat("k", 200) + `":1,"short":{"` + strings.Repeat("q", 129) + `":{"a":[1]}},"k with space":1,"k:colon":2,"1":3,"true":4,"":5,"-":6}`,
	`{"keys":{"a10":1,"a2":2,"a1":3,"A":4,"b":5,"_":6,"a-1":7,"a.2":8,"10":9,"9":10,"a01":11}}`,
	`{"fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}}}`,
	`"just a string"`, `42`, `null`, `[1,"a",{"b":2}]`, `[]`, `{}`,
}

func TestJSONToYAML_IsKubesYAMLByteForByte(t *testing.T) {
	docs := append([]string(nil), yamlParityDocs...)
	rnd := rand.New(rand.NewPCG(7, 7))
	for range 200 {
		docs = append(docs, randomJSON(rnd, 0))
	}
	for i, doc := range docs {
		want, err := yaml.JSONToYAML([]byte(doc))
		if err != nil {
			t.Fatalf("doc %d: sigs.k8s.io/yaml: %v", i, err)
		}
		got, err := JSONToYAML([]byte(doc))
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("doc %d %.80s:\ngot  %q\nwant %q", i, doc, got, want)
		}
	}
}

// randomJSON is a random JSON value of moderate depth, with the strings and numbers
// whose YAML differs most.
func randomJSON(rnd *rand.Rand, depth int) string {
	scalars := []string{`"x"`, `"true"`, `"1"`, `"a b c"`, `"a\nb"`, `""`, `" "`, `"é"`, `0`, `-7`, `3.25`, `1e30`, `true`, `null`,
		`"` + strings.Repeat("lorem ipsum ", 12) + `"`, `"multi\nline\ntext\n"`}
	if depth > 6 || rnd.IntN(3) == 0 {
		return scalars[rnd.IntN(len(scalars))]
	}
	n := rnd.IntN(4)
	parts := make([]string, n)
	if rnd.IntN(2) == 0 {
		for i := range parts {
			parts[i] = randomJSON(rnd, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	for i := range parts {
		parts[i] = fmt.Sprintf(`"k%d%s":%s`, i, []string{"", "_x", " y", ":z"}[rnd.IntN(4)], randomJSON(rnd, depth+1))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// allocatedBy is the number of bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestJSONToYAML_DeepDocumentsStayWithinAMultipleOfTheirJSON(t *testing.T) {
	nest := func(open, leaf, close string, depth int) string {
		return strings.Repeat(open, depth) + leaf + strings.Repeat(close, depth)
	}
	tests := []struct {
		name string
		json string
	}{
		// The managedFields: a fieldsV1 5,000 levels deep is 25 MB of block YAML.
		{"deep fieldsV1", `{"metadata":{"managedFields":[{"manager":"m","fieldsV1":` + nest(`{"f:a":`, `{}`, `}`, 5000) + `}]}}`},
		{"deep maps in lists", `{"a":` + nest(`[{"b":`, `1`, `}]`, 2000) + `}`},
		{"long words past column 80", `{"a":` + nest(`{"b":`, `"`+strings.Repeat("a ", 20000)+`"`, `}`, 60) + `}`},
		{"short list items deep down", `{"a":` + nest(`{"b":`, `[`+strings.Repeat("0,", 20000)+`0]`, `}`, 60) + `}`},
		{"deep list of lists", `{"a":` + nest(`[`, ``, `]`, 3000) + `}`},
		// Above the second flow depth, so only the last one writes the zeros as flow.
		{"short list items fifteen levels down", `{"a":` + nest(`{"b":`, `[`+strings.Repeat("0,", 20000)+`0]`, `}`, 14) + `}`},
		{"short list items three levels down", `{"a":{"b":[` + strings.Repeat("0,", 20000) + `0]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kube, err := yaml.JSONToYAML([]byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			var y []byte
			alloc := allocatedBy(func() {
				if y, err = JSONToYAML([]byte(tt.json)); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("JSON %d bytes: kube's YAML %d bytes, ours %d bytes, %d bytes allocated", len(tt.json), len(kube), len(y), alloc)
			if limit := yamlOutputLimit(len(tt.json)); len(y) > limit {
				t.Errorf("YAML of %d bytes for %d bytes of JSON, over %d", len(y), len(tt.json), limit)
			}
			if limit := uint64(200*len(tt.json) + 16<<20); alloc > limit {
				t.Errorf("%d bytes allocated for %d bytes of JSON, over %d", alloc, len(tt.json), limit)
			}
			// What is written reads back as the document.
			back, err := yaml.YAMLToJSON(y)
			if err != nil {
				t.Fatalf("the YAML does not read back: %v", err)
			}
			want, _ := yaml.YAMLToJSON([]byte(tt.json))
			if !bytes.Equal(back, want) {
				t.Errorf("reads back as %.100s..., want %.100s...", back, want)
			}
		})
	}
}

func TestYAMLEncodeList_DeepItemKeepsTheListsFrame(t *testing.T) {
	deep := strings.Repeat(`{"f:a":`, 3000) + `{}` + strings.Repeat(`}`, 3000)
	item := func(name, fields string) map[string]any {
		var m map[string]any
		doc := `{"apiVersion":"v1","kind":"Widget","metadata":{"name":"` + name + `","labels":{"a":"b"},"managedFields":[{"manager":"m","fieldsV1":` + fields + `}]}}`
		if _, err := Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	items := []scheme.Unstructured{{Object: item("a", `{}`)}, {Object: item("b", deep)}, {Object: item("c", `{"f:x":{}}`)}}
	meta := map[string]any{"apiVersion": "v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "7", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"}}
	out := &scheme.UnstructuredList{Object: meta}
	src := ListSource{List: out, Len: len(items), Hold: func(i int) error {
		out.Items = []scheme.Unstructured{}
		if i >= 0 {
			out.Items = append(out.Items, items[i])
		}
		return nil
	}}
	var buf bytes.Buffer
	if err := NewYAML(scheme.New()).EncodeList(&buf, src); err != nil {
		t.Fatalf("EncodeList: %v", err)
	}
	whole, err := AppendJSON(nil, (&scheme.UnstructuredList{Object: meta, Items: items}).UnstructuredContent())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("list of %d bytes of JSON written as %d bytes of YAML", len(whole), buf.Len())
	if limit := yamlOutputLimit(len(whole)); buf.Len() > limit {
		t.Errorf("%d bytes of YAML, over %d", buf.Len(), limit)
	}
	back, err := yaml.YAMLToJSON(buf.Bytes())
	if err != nil {
		t.Fatalf("the list does not read back: %v", err)
	}
	want, _ := yaml.YAMLToJSON(whole)
	if !bytes.Equal(back, want) {
		t.Errorf("reads back as %.200s..., want %.200s...", back, want)
	}
}

// TestYAMLEncodeList_TableWithADeepRowKeepsItsColumns: a row whose object is deep is
// written in flow style, and the Table's column definitions (collections of scalars)
// stay as they are when the Table holds no row, so the Table still splits into rows.
func TestYAMLEncodeList_TableWithADeepRowKeepsItsColumns(t *testing.T) {
	row := func(name, fields string) any {
		var m any
		doc := `{"cells":["` + name + `",1],"object":{"apiVersion":"v1","kind":"Widget","metadata":{"name":"` + name + `","managedFields":[{"fieldsV1":` + fields + `}]}}}`
		if _, err := Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// Deep, and wide fifteen levels down: the second flow depth still leaves the
	// zeros in block style, one a line, so only the last one fits.
	deep := strings.Repeat(`{"f:a":`, 3000) + `{}` + strings.Repeat(`}`, 3000)
	wide := strings.Repeat(`{"f:b":`, 7) + `[` + strings.Repeat(`0,`, 5000) + `0]` + strings.Repeat(`}`, 7)
	rows := []any{row("a", `{}`), row("b", deep), row("c", wide), row("d", `{"f:x":{}}`)}
	columns := []any{
		map[string]any{"name": "Name", "type": "string", "format": "name", "description": "Name must be unique within a namespace.", "priority": int64(0)},
		map[string]any{"name": "Count", "type": "integer", "format": "", "description": "How many.", "priority": int64(1)},
	}
	table := func(rows []any) map[string]any {
		return map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "Table", "metadata": map[string]any{"resourceVersion": "9"}, "columnDefinitions": columns, "rows": rows}
	}
	out := &scheme.Unstructured{Object: table([]any{})}
	src := ListSource{List: out, Len: len(rows), Hold: func(i int) error {
		out.Object["rows"] = []any{}
		if i >= 0 {
			out.Object["rows"] = []any{rows[i]}
		}
		return nil
	}}
	var buf bytes.Buffer
	if err := NewYAML(scheme.New()).EncodeList(&buf, src); err != nil {
		t.Fatalf("EncodeList: %v", err)
	}
	whole, err := AppendJSON(nil, table(rows))
	if err != nil {
		t.Fatal(err)
	}
	if limit := yamlOutputLimit(len(whole)); buf.Len() > limit {
		t.Errorf("%d bytes of YAML, over %d", buf.Len(), limit)
	}
	back, err := yaml.YAMLToJSON(buf.Bytes())
	if err != nil {
		t.Fatalf("the table does not read back: %v", err)
	}
	want, _ := yaml.YAMLToJSON(whole)
	if !bytes.Equal(back, want) {
		t.Errorf("reads back as %.200s..., want %.200s...", back, want)
	}
}
