package storage

import (
	"errors"
	"strings"
	"testing"
)

func TestParseLabelSelector_AcceptsEveryOperator(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", ""},
		{"a=b", "a=b"},
		{"a==b", "a==b"},
		{"a!=b", "a!=b"},
		{"a in (c,b,b)", "a in (b,c)"},
		{"a notin (b)", "a notin (b)"},
		{"a", "a"},
		{"!a", "!a"},
		{" x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()"},
		{"a=", "a="},
		{"a>5", "a>5"},
		{"a<5", "a<5"},
		{"example.com/app=web,tier", "example.com/app=web,tier"},
		{"b=1,a=2", "a=2,b=1"},
		{"in in (in)", "in in (in)"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			sel, err := ParseLabelSelector(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := sel.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseLabelSelector_RejectsWithKubernetesMessages(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"=a", "found '=', expected: !, identifier, or 'end of string'"},
		{"a=b,", "found '', expected: identifier after ','"},
		{"a=b c", "found 'c', expected: ',' or 'end of string'"},
		{"!", "unable to parse requirement: found '', expected: identifier"},
		{"a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
		{"a in b", "unable to parse requirement: found 'b' expected: '('"},
		{"a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"},
		{"!a=b", "found '=', expected: ',' or 'end of string'"},
		{"@=b", `unable to parse requirement: <nil>: Invalid value: "@": name part must consist of alphanumeric characters`},
		{"/a=b", `prefix part must be non-empty`},
		{"a=@", `unable to parse requirement: values[0][a]: Invalid value: "@": a valid label must be an empty string or consist of alphanumeric characters`},
		{"a>b", "for 'Gt', 'Lt' operators, the value must be an integer"},
		{strings.Repeat("a", 64), "name part must be no more than 63 bytes"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseLabelSelector(tc.in)
			if !errors.Is(err, ErrInvalidSelector) {
				t.Fatalf("error = %v, want ErrInvalidSelector", err)
			}
			if !strings.Contains(clientMessage(err), tc.want) {
				t.Errorf("error = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLabelSelector_MatchesLikeKubernetes(t *testing.T) {
	labels := map[string]string{"env": "prod", "n": "7", "empty": ""}
	for _, tc := range []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"env=prod", true},
		{"env=dev", false},
		{"env!=dev", true},
		{"missing!=x", true},
		{"env in (dev,prod)", true},
		{"env notin (dev,prod)", false},
		{"missing notin (x)", true},
		{"env", true},
		{"missing", false},
		{"!missing", true},
		{"!env", false},
		{"empty=", true},
		{"n>5", true},
		{"n<5", false},
		{"env>5", false},
		{"env=prod,n=8", false},
	} {
		sel, err := ParseLabelSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := sel.Matches(labels); got != tc.want {
			t.Errorf("%q.Matches = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestLabelSelector_RequiresExactMatch(t *testing.T) {
	sel, _ := ParseLabelSelector("a=1,b in (2),c!=3,e!=4,e=5,f in (6,7)")
	for _, tc := range []struct {
		key, want string
		ok        bool
	}{
		{"a", "1", true}, {"b", "2", true}, {"c", "", false}, {"d", "", false},
		{"e", "", false}, // the first requirement on a key decides, as in apimachinery
		{"f", "", false},
	} {
		if v, ok := sel.RequiresExactMatch(tc.key); v != tc.want || ok != tc.ok {
			t.Errorf("RequiresExactMatch(%q) = %q, %v", tc.key, v, ok)
		}
	}
	if got := LabelSelectorFromSet(map[string]string{"b": "2", "a": "1"}).String(); got != "a=1,b=2" {
		t.Errorf("LabelSelectorFromSet = %q", got)
	}
}

func TestParseFieldSelector_ParsesAndMatches(t *testing.T) {
	fields := map[string]string{"metadata.name": "a,b", "status.phase": "Running"}
	for _, tc := range []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"status.phase=Running", true},
		{"status.phase==Running", true},
		{"status.phase!=Running", false},
		{`metadata.name=a\,b`, true},
		{"spec.missing=", true},
		{"spec.missing!=x", true},
		{"status.phase=Running,metadata.name=x", false},
	} {
		sel, err := ParseFieldSelector(tc.sel)
		if err != nil {
			t.Fatalf("%q: %v", tc.sel, err)
		}
		if got := sel.Matches(fields); got != tc.want {
			t.Errorf("%q.Matches = %v, want %v", tc.sel, got, tc.want)
		}
	}
}

func TestParseFieldSelector_RejectsWithKubernetesMessages(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"a", "invalid selector: 'a'; can't understand 'a'"},
		{"a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"},
		{`a=b\x`, `invalid field selector: invalid escape sequence: \x`},
		{`a=b=c`, "invalid field selector: unescaped character in value: 61"},
	} {
		_, err := ParseFieldSelector(tc.in)
		if !errors.Is(err, ErrInvalidSelector) || !strings.Contains(clientMessage(err), tc.want) {
			t.Errorf("%q: error = %v, want ErrInvalidSelector with %q", tc.in, err, tc.want)
		}
	}
}

func TestFieldSelector_RoundTripsThroughString(t *testing.T) {
	sel := FieldSelectorFromSet(map[string]string{"metadata.name": `a,b=c\d`, "a": "1"})
	back, err := ParseFieldSelector(sel.String())
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != sel.String() {
		t.Errorf("%q became %q", sel.String(), back.String())
	}
	if v, ok := back.RequiresExactMatch("metadata.name"); !ok || v != `a,b=c\d` {
		t.Errorf("RequiresExactMatch = %q, %v", v, ok)
	}
}

func TestParseSelectors_ErrorTextIsApimachinerysAlone(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		parse          func(string) error
	}{
		{"label", "a in b", "unable to parse requirement: found 'b' expected: '('", parseLabels},
		{"label after comma", "a,", "found '', expected: identifier after ','", parseLabels},
		{"label values aggregated", "a>x@", `unable to parse requirement: [values[0]: Invalid value: "x@": for 'Gt', 'Lt' operators, ` +
			`the value must be an integer, values[0][a]: Invalid value: "x@": a valid label must be an empty string or consist of ` +
			`alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  ` +
			`or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]`, parseLabels},
		{"field term", "a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'", parseFields},
		{"field escape", `a=b\x`, `invalid field selector: invalid escape sequence: \x`, parseFields},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse(tc.in)
			if !errors.Is(err, ErrInvalidSelector) {
				t.Fatalf("error = %v, want ErrInvalidSelector", err)
			}
			if clientMessage(err) != tc.want {
				t.Errorf("error = %q\nwant      %q", err, tc.want)
			}
		})
	}
}

// clientMessage is the text of a selector error that the REST layer sends as the 400
// Status's message, which must be k8s.io/apimachinery's.
func clientMessage(err error) string {
	var se *Error
	if errors.As(err, &se) {
		return se.Detail
	}
	return err.Error()
}

func parseLabels(s string) error { _, err := ParseLabelSelector(s); return err }
func parseFields(s string) error { _, err := ParseFieldSelector(s); return err }

// apimachinery's lexer reads a 0 byte as the end of input: a NUL where a token would
// start ends the selector; one right after a token is skipped.
func TestParseLabelSelector_NULBytesAsApimachineryReadsThem(t *testing.T) {
	for _, tc := range []struct{ in, want, wantErr string }{
		{in: "\x00a=b", want: ""},
		{in: "a=b \x00,c=d", want: "a=b"},
		{in: "a\x00\x00b", want: "a"},
		{in: "a,\x00b=c", want: "a,b=c"},
		{in: "a=b\x00,c=d", want: "a=b,c=d"},
		{in: "a, \x00b=c", wantErr: "found '', expected: identifier after ','"},
		{in: "a\x00b", wantErr: "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
	} {
		sel, err := ParseLabelSelector(tc.in)
		switch {
		case tc.wantErr != "":
			if err == nil || clientMessage(err) != tc.wantErr {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case sel.String() != tc.want:
			t.Errorf("%q parsed as %q, want %q", tc.in, sel.String(), tc.want)
		}
	}
}

func TestParseFieldSelector_NormalizesLikeApimachinery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a==b", "a=b"},
		{"=", ""},
		{"!=,a!=b", "a!=b"},
		{"b=1,a=2", "a=2,b=1"},
		{`a=\,`, `a=\,`},
	} {
		sel, err := ParseFieldSelector(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got := sel.String(); got != tc.want {
			t.Errorf("%q renders as %q, want %q", tc.in, got, tc.want)
		}
	}
	// A term with neither field nor value selects everything, so "!=" is no restriction.
	if sel, _ := ParseFieldSelector("!="); !sel.Empty() || !sel.Matches(map[string]string{"": "x"}) {
		t.Error(`"!=" should select everything`)
	}
}
