package codec

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMediaType(t *testing.T) {
	tests := []struct {
		in      string
		want    MediaType
		str     string
		wantErr bool
	}{
		{in: "application/json", want: MediaType{Type: "application", Subtype: "json", Q: 1}, str: "application/json"},
		{in: "application/json;as=Table;g=meta.k8s.io;v=v1", want: MediaType{Type: "application", Subtype: "json", Q: 1,
			Params: map[string]string{"as": "Table", "g": "meta.k8s.io", "v": "v1"}}, str: "application/json;as=Table;g=meta.k8s.io;v=v1"},
		{in: "  Application/JSON ; Charset = UTF-8 ", want: MediaType{Type: "application", Subtype: "json", Q: 1,
			Params: map[string]string{"charset": "UTF-8"}}, str: "application/json;charset=UTF-8"},
		{in: `text/plain; x="a;b,c"`, want: MediaType{Type: "text", Subtype: "plain", Q: 1, Params: map[string]string{"x": "a;b,c"}}, str: `text/plain;x="a;b,c"`},
		{in: "application/json;q=0.5", want: MediaType{Type: "application", Subtype: "json", Q: 0.5}, str: "application/json"},
		{in: "application/json;", want: MediaType{Type: "application", Subtype: "json", Q: 1}, str: "application/json"},
		{in: "*/*", want: MediaType{Type: "*", Subtype: "*", Q: 1}, str: "*/*"},
		{in: "application", wantErr: true},
		{in: "application/", wantErr: true},
		{in: "/json", wantErr: true},
		{in: "*/json", wantErr: true},
		{in: "application/json;q=2", wantErr: true},
		{in: "application/json;as", wantErr: true},
		{in: `application/json;x="open`, wantErr: true},
		{in: "application/json extra", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMediaType(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.String() != tt.str {
				t.Errorf("String() = %q, want %q", got.String(), tt.str)
			}
		})
	}
}

func TestParseAccept_OrdersByQualityThenSpecificity(t *testing.T) {
	got := ParseAccept("*/*;q=0.8, application/*, application/json;as=Table;v=v1;g=meta.k8s.io, application/json, text/html;q=0, bogus, application/yaml;q=0.9")
	var names []string
	for _, m := range got {
		names = append(names, m.String()+";q="+formatQ(m.Q))
	}
	want := []string{
		"application/json;as=Table;g=meta.k8s.io;v=v1;q=1",
		"application/json;q=1",
		"application/*;q=1",
		"application/yaml;q=0.9",
		"*/*;q=0.8",
		"text/html;q=0",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if empty := ParseAccept("  "); len(empty) != 1 || empty[0].Essence() != "*/*" {
		t.Errorf("empty header = %v, want */*", empty)
	}
}

func formatQ(q float64) string {
	switch q {
	case 1:
		return "1"
	case 0:
		return "0"
	}
	b, _ := MarshalUnstructured(q)
	return string(b)
}

func TestNegotiate(t *testing.T) {
	offered := []string{MediaTypeJSON, MediaTypeYAML, MediaTypeProtobuf}
	tests := []struct {
		name   string
		accept string
		want   string
		clause string
	}{
		{"empty accept takes the server's first", "", MediaTypeJSON, "*/*"},
		{"wildcard takes the server's first", "*/*", MediaTypeJSON, "*/*"},
		{"exact match", "application/yaml", MediaTypeYAML, MediaTypeYAML},
		{"case and spaces", " APPLICATION/YAML ; q=1 ", MediaTypeYAML, MediaTypeYAML},
		{"client order among equal q", "application/vnd.kubernetes.protobuf, application/json", MediaTypeProtobuf, MediaTypeProtobuf},
		{"higher q wins", "application/json;q=0.5, application/yaml", MediaTypeYAML, MediaTypeYAML},
		{"type wildcard", "text/html, application/*;q=0.9", MediaTypeJSON, "application/*"},
		{"q=0 on a specific type excludes it from a wildcard", "application/json;q=0, */*;q=0.1", MediaTypeYAML, "*/*"},
		{"kubectl table request keeps its parameters", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json", MediaTypeJSON,
			"application/json;as=Table;g=meta.k8s.io;v=v1"},
		{"malformed clauses are ignored", "???, application/yaml", MediaTypeYAML, MediaTypeYAML},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Negotiate(tt.accept, offered)
			if err != nil {
				t.Fatal(err)
			}
			if m.Offered != tt.want || m.Clause.String() != tt.clause {
				t.Errorf("got %q via %q, want %q via %q", m.Offered, m.Clause.String(), tt.want, tt.clause)
			}
		})
	}
	for _, accept := range []string{"text/html", "application/json;q=0", "image/*", "application/cbor"} {
		if _, err := Negotiate(accept, offered); !errors.Is(err, ErrNotAcceptable) {
			t.Errorf("%q: err = %v, want ErrNotAcceptable", accept, err)
		}
	}
}

func TestNegotiateFunc_FilterRejectsUnservableParameters(t *testing.T) {
	noTables := func(c MediaType, _ string) bool { return c.Params["as"] == "" }
	m, err := NegotiateFunc("application/json;as=Table;v=v1;g=meta.k8s.io, application/yaml;q=0.5", []string{MediaTypeJSON, MediaTypeYAML}, noTables)
	if err != nil || m.Offered != MediaTypeYAML {
		t.Fatalf("got %+v, %v; want yaml", m, err)
	}
	if _, err := NegotiateFunc("application/json;as=Table", []string{MediaTypeJSON}, noTables); !errors.Is(err, ErrNotAcceptable) {
		t.Errorf("err = %v, want ErrNotAcceptable", err)
	}
}
