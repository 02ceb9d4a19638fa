package e2e

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/storage"
)

// The differential tests below feed one seeded corpus of selectors to k8s.io/apimachinery
// (what kube-apiserver runs on labelSelector and fieldSelector) and to apikit's storage
// parsers, and demand the same verdict, the same error text (kube's 400 message) and, for
// selectors that parse, the same rendering, requirements and matches.

var selectorSeed = flag.Uint64("selector-seed", 11, "seed of the generated selector corpora")

const (
	selectorCorpusSize = 12_000
	minSelectorInputs  = 10_000
)

// selectorDiff counts a corpus run and reports the first differences in detail.
type selectorDiff struct {
	t                             *testing.T
	inputs, valid, invalid, diffs int
}

func (d *selectorDiff) mismatch(input, format string, args ...any) {
	d.t.Helper()
	d.diffs++
	if d.diffs <= 20 {
		d.t.Errorf("selector %q: %s", input, fmt.Sprintf(format, args...))
	}
}

// verdict compares whether both parsers rejected the input and how; it returns whether
// the input parsed, so the caller goes on comparing the selectors.
func (d *selectorDiff) verdict(input string, kubeErr, ourErr error) bool {
	d.t.Helper()
	d.inputs++
	switch {
	case kubeErr == nil && ourErr == nil:
		d.valid++
		return true
	case kubeErr != nil && ourErr != nil:
		d.invalid++
		if msg := clientMessage(ourErr); kubeErr.Error() != msg {
			d.mismatch(input, "error texts differ:\n kube:   %s\n apikit: %s", kubeErr, msg)
		}
		if !errors.Is(ourErr, storage.ErrInvalidSelector) {
			d.mismatch(input, "apikit's error %v is not ErrInvalidSelector", ourErr)
		}
	default:
		d.mismatch(input, "verdicts differ: kube error %v, apikit error %v", kubeErr, ourErr)
	}
	return false
}

// clientMessage is the text of a selector error that rest sends as the 400 Status's
// message: the parser's error text.
func clientMessage(err error) string {
	var se *storage.Error
	if errors.As(err, &se) {
		return se.Detail
	}
	return err.Error()
}

// done checks that the corpus was big and varied enough to mean something.
func (d *selectorDiff) done() {
	d.t.Helper()
	d.t.Logf("seed %d: %d inputs compared (%d valid in both, %d invalid in both), %d differences",
		*selectorSeed, d.inputs, d.valid, d.invalid, d.diffs)
	if d.inputs < minSelectorInputs {
		d.t.Errorf("only %d inputs compared, want at least %d", d.inputs, minSelectorInputs)
	}
	if d.valid < d.inputs/4 || d.invalid < d.inputs/4 {
		d.t.Errorf("corpus is lopsided: %d valid, %d invalid of %d; want a quarter of each at least", d.valid, d.invalid, d.inputs)
	}
}

// parsedSelector is what the comparison reads of a label or field selector parsed by
// either side.
type parsedSelector struct {
	str          string
	empty        bool
	requirements []string // "key operator [values]", in the selector's order
	keys         []string // the requirements' keys
	exactMatch   func(key string) (string, bool)
	matches      func(set map[string]string) bool
}

// selectorBasics is what label and field selectors of both sides have in common.
type selectorBasics interface {
	String() string
	Empty() bool
	RequiresExactMatch(key string) (string, bool)
}

func viewOf(sel selectorBasics, matches func(set map[string]string) bool) parsedSelector {
	return parsedSelector{str: sel.String(), empty: sel.Empty(), exactMatch: sel.RequiresExactMatch, matches: matches}
}

func (p *parsedSelector) add(key, op string, values []string) {
	p.requirements = append(p.requirements, fmt.Sprintf("%s %s %q", key, op, values))
	p.keys = append(p.keys, key)
}

// compareSelectors parses selectorCorpusSize inputs (the edge cases, then generated ones)
// with both parsers and compares the verdicts, error texts, renderings, requirements,
// exact matches (of the requirements' keys and keys) and matches against every set.
func compareSelectors(t *testing.T, edgeCases []string, generate func() string, sets []map[string]string, keys []string,
	kube, ours func(string) (parsedSelector, error)) {
	d := &selectorDiff{t: t}
	for i := range selectorCorpusSize {
		var in string
		if i < len(edgeCases) {
			in = edgeCases[i]
		} else {
			in = generate()
		}
		k, kubeErr := kube(in)
		o, ourErr := ours(in)
		if !d.verdict(in, kubeErr, ourErr) {
			continue
		}
		if k.str != o.str || k.empty != o.empty {
			d.mismatch(in, "String(), Empty(): kube %q %v, apikit %q %v", k.str, k.empty, o.str, o.empty)
		}
		if !slices.Equal(k.requirements, o.requirements) {
			d.mismatch(in, "requirements: kube %q, apikit %q", k.requirements, o.requirements)
		}
		for _, key := range slices.Concat(k.keys, keys) {
			kv, kok := k.exactMatch(key)
			ov, ook := o.exactMatch(key)
			if kv != ov || kok != ook {
				d.mismatch(in, "RequiresExactMatch(%q): kube %q %v, apikit %q %v", key, kv, kok, ov, ook)
			}
		}
		for _, set := range sets {
			if km, om := k.matches(set), o.matches(set); km != om {
				d.mismatch(in, "Matches(%v): kube %v, apikit %v", set, km, om)
			}
		}
	}
	d.done()
}

// corpus draws the parts of generated selectors. A clean corpus draws only well-formed
// parts (with any spacing), so that enough selectors parse to compare their matches.
type corpus struct {
	r     *rand.Rand
	clean bool
}

func newCorpus(salt uint64) *corpus {
	return &corpus{r: rand.New(rand.NewPCG(*selectorSeed, salt))}
}

func (c *corpus) pick(from []string) string { return from[c.r.IntN(len(from))] }

// chance reports true with probability n/100.
func (c *corpus) chance(n int) bool { return c.r.IntN(100) < n }

// flaw reports true with probability n/100 unless the corpus is clean.
func (c *corpus) flaw(n int) bool { return !c.clean && c.chance(n) }

// space is usually nothing, sometimes the whitespace selectors allow between tokens.
func (c *corpus) space() string {
	if c.chance(75) {
		return ""
	}
	return c.pick([]string{" ", "  ", "\t", "\n", "\r", " \t "})
}

// mutate applies a few random single-byte edits drawn from alphabet.
func (c *corpus) mutate(s, alphabet string) string {
	b := []byte(s)
	for range 1 + c.r.IntN(2) {
		ch := alphabet[c.r.IntN(len(alphabet))]
		i := 0
		if len(b) > 0 {
			i = c.r.IntN(len(b) + 1)
		}
		switch {
		case c.chance(40) || len(b) == 0 || i == len(b):
			b = slices.Insert(b, i, ch)
		case c.chance(50):
			b = slices.Delete(b, i, i+1)
		default:
			b[i] = ch
		}
	}
	return string(b)
}

var (
	goodLabelKeys = []string{
		"a", "app", "tier", "env", "in", "notin", "x1", "A-b_c.d", "a..b", "9",
		"example.com/app", "k8s.io/name", "a.b-c/d_e", "x/y", strings.Repeat("k", 63),
		strings.Repeat("p", 63) + "." + strings.Repeat("q", 63) + "/n",
	}
	badLabelKeys = []string{
		"-a", "a-", "_a", "a_", ".a", "a/b/c", "/a", "a/", "/", "Example.com/a", "-x.com/a",
		"x_y.com/a", "é", "a@b", "a%b", "a+b", "a\\b", strings.Repeat("k", 64),
		strings.Repeat("p", 254) + "/a", strings.Repeat("P", 254) + "/-", "x/" + strings.Repeat("n", 64),
	}
	goodLabelValues = []string{
		"", "b", "web", "1", "0", "42", "007", "5", "10", "9223372036854775807", "a.b", "A_b-c",
		"in", "notin", "x1", strings.Repeat("v", 63),
	}
	badLabelValues = []string{
		"-5", "+5", "-b", "b-", "_b", "é", "a@b", "1.5e", strings.Repeat("v", 64), "-" + strings.Repeat("v", 64),
		"99999999999999999999", "9223372036854775808", "0x10", "a\\b",
	}
	exactOperators = []string{"=", "==", "!=", ">", "<"}
	junkOperators  = []string{"=>", "=!", "<=", ">=", "!!", "===", "!==", "in", "notin", "(", ")", " ", " x ", "", "=(", "<>"}
	labelAlphabet  = "=!(),<> \t\nabcin-_./159\x00\\@"
)

// labelKey is a valid key nineteen times in twenty.
func (c *corpus) labelKey() string {
	if !c.flaw(5) {
		return c.pick(goodLabelKeys)
	}
	return c.pick(badLabelKeys)
}

// labelValue is a valid value (possibly empty) nineteen times in twenty.
func (c *corpus) labelValue() string {
	if !c.flaw(5) {
		return c.pick(goodLabelValues)
	}
	return c.pick(badLabelValues)
}

// labelValueSet is a parenthesized value list, mostly well formed, with empty members,
// stray commas and missing or doubled parentheses now and then.
func (c *corpus) labelValueSet() string {
	var b strings.Builder
	switch {
	case !c.flaw(8):
		b.WriteString("(")
	case c.chance(50):
		b.WriteString("((")
	}
	n := c.r.IntN(5)
	for i := range n {
		if i > 0 {
			b.WriteString(c.space() + c.pick([]string{",", ",", ",", ",", ",", ",,"}) + c.space())
		}
		b.WriteString(c.labelValue())
	}
	if c.flaw(8) {
		b.WriteString(c.pick([]string{",", ", ", "=", "!", " x"}))
	}
	if !c.flaw(7) {
		b.WriteString(c.space() + ")")
	}
	return b.String()
}

// labelComparison is an operator and value: for > and < mostly an integer.
func (c *corpus) labelComparison() string {
	op := c.pick(exactOperators)
	value := c.labelValue()
	if (op == ">" || op == "<") && !c.flaw(20) {
		value = c.pick([]string{"0", "5", "10", "-3", "007", "9223372036854775807"})
	}
	return op + c.space() + value
}

func (c *corpus) labelRequirement() string {
	n := 24
	if c.clean {
		n = 19 // the well-formed cases
	}
	switch c.r.IntN(n) {
	case 0, 1, 2, 3:
		return c.labelKey()
	case 4, 5:
		return "!" + c.space() + c.labelKey()
	case 6, 7, 8, 9, 10, 11, 12, 13:
		return c.labelKey() + c.space() + c.labelComparison()
	case 14, 15, 16, 17, 18:
		op := c.pick([]string{"in", "notin"})
		if c.flaw(10) {
			op = c.pick([]string{"In", "not in", "NotIn"})
		}
		return c.labelKey() + " " + op + c.space() + c.labelValueSet()
	case 19:
		return c.labelKey() + c.pick(junkOperators) + c.labelValue()
	case 20:
		return "!" + c.labelKey() + c.pick(exactOperators) + c.labelValue()
	}
	return c.mutate(c.labelKey(), labelAlphabet)
}

func (c *corpus) labelSelector() string {
	c.clean = c.chance(40)
	var b strings.Builder
	if c.flaw(3) {
		b.WriteString(c.pick([]string{",", "(", "=", "!", ")"}))
	}
	n := 1 + c.r.IntN(4)
	switch {
	case c.chance(3):
		n = 0
	case c.chance(3):
		n = 13 + c.r.IntN(8) // past insertion sort: the order of equal keys shows
	}
	for i := range n {
		if i > 0 {
			sep := ","
			if c.flaw(8) {
				sep = c.pick([]string{",,", " ", ";", ", ,"})
			}
			b.WriteString(c.space() + sep + c.space())
		}
		b.WriteString(c.space() + c.labelRequirement() + c.space())
	}
	if c.flaw(3) {
		b.WriteString(c.pick([]string{",", ", ", ")", "\x00junk", "!"}))
	}
	s := b.String()
	if c.flaw(12) {
		s = c.mutate(s, labelAlphabet)
	}
	return s
}

// labelSets are the label maps every parsed selector is matched against: drawn from the
// keys and values the selectors use, plus numbers around the ones they compare with.
func (c *corpus) labelSets(n int) []map[string]string {
	values := append(slices.Clone(goodLabelValues), "4", "6", "11", "-3", "abc", "a@b", "99999999999999999999")
	return c.sets(n, goodLabelKeys, values)
}

// sets draws n maps (the first nil, the second empty) of up to five keys and values.
func (c *corpus) sets(n int, keys, values []string) []map[string]string {
	sets := []map[string]string{nil, {}}
	for len(sets) < n {
		set := map[string]string{}
		for range c.r.IntN(6) {
			set[c.pick(keys)] = c.pick(values)
		}
		sets = append(sets, set)
	}
	return sets
}

// labelEdgeCases lead the generated label corpus: NUL bytes (apimachinery's lexer reads 0
// as the end of input), operators that glue, and many requirements on one key.
var labelEdgeCases = []string{
	"", " ", "\x00", "\x00a", "a\x00", "a\x00b", "a\x00\x00b", "a=\x00=b", "a!=\x00b", "a in (b\x00,c)", "!\x00a",
	"a>=1", "a=>1", "a<>1", "a!==1", "a===1", "a=!1", "a!!", "!!a", "a in(b)(c)", "a in ()", "a notin (,)",
	"in in (in)", "notin notin (notin)", "a,b", "a,,b", ",a", "a,", "a in (b", "a in b)", "(a)",
	strings.Repeat("a=1,", 20) + "a=2", strings.Repeat("b=1,a=2,a!=3,", 6) + "a",
}

func TestLabelSelector_AgreesWithApimachinery(t *testing.T) {
	c := newCorpus(1)
	compareSelectors(t, labelEdgeCases, c.labelSelector, c.labelSets(40), nil, kubeLabelSelector, apikitLabelSelector)
}

func kubeLabelSelector(s string) (parsedSelector, error) {
	sel, err := labels.Parse(s)
	if err != nil {
		return parsedSelector{}, err
	}
	p := viewOf(sel, func(set map[string]string) bool { return sel.Matches(labels.Set(set)) })
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		p.add(r.Key(), string(r.Operator()), r.Values().List())
	}
	return p, nil
}

func apikitLabelSelector(s string) (parsedSelector, error) {
	sel, err := storage.ParseLabelSelector(s)
	if err != nil {
		return parsedSelector{}, err
	}
	p := viewOf(sel, sel.Matches)
	for _, r := range sel.Requirements() {
		p.add(r.Key, string(r.Operator), r.Values)
	}
	return p, nil
}

var (
	fieldNames      = []string{"metadata.name", "metadata.namespace", "status.phase", "spec.nodeName", "a", "x.y.z", "é"}
	badFieldNames   = []string{"", " ", "a b", "!x", "<", "a\\,b"}
	goodFieldValues = []string{"", "x", "Running", "a\\,b", "a\\=b", "a\\\\b", "\\\\", "é", "a b", "!", "<", "with space", "=\\="[1:]}
	badFieldValues  = []string{"a\\x", "tail\\", "a=b", "a\\é", "\\n", "=", "a\\"}
	fieldOperators  = []string{"=", "==", "!="}
	junkFieldOps    = []string{"", "!", "<", ">", "=!", "!==", "===", "=="}
	fieldAlphabet   = "=!,\\ab. \x00é"
)

func (c *corpus) fieldTerm() string {
	name := c.pick(fieldNames)
	if c.chance(10) {
		name = c.pick(badFieldNames)
	}
	value := c.pick(goodFieldValues)
	if c.chance(12) {
		value = c.pick(badFieldValues)
	}
	op := c.pick(fieldOperators)
	if c.chance(10) {
		op = c.pick(junkFieldOps)
	}
	return name + op + value
}

func (c *corpus) fieldSelector() string {
	var b strings.Builder
	n := 1 + c.r.IntN(4)
	if c.chance(3) {
		n = 0
	}
	for i := range n {
		if i > 0 {
			b.WriteString(c.pick([]string{",", ",", ",", ",", ",,", "\\,"}))
		}
		b.WriteString(c.fieldTerm())
	}
	if c.chance(4) {
		b.WriteString(c.pick([]string{",", "\\", "=", "!="}))
	}
	s := b.String()
	if c.chance(12) {
		s = c.mutate(s, fieldAlphabet)
	}
	return s
}

// fieldSets are the field maps every parsed field selector is matched against.
func (c *corpus) fieldSets(n int) []map[string]string {
	names := append(slices.Clone(fieldNames), "", "a b")
	return c.sets(n, names, []string{"", "x", "Running", "a,b", "a=b", "a\\b", "\\", "é", "a b", "!"})
}

// fieldEdgeCases lead the generated field corpus: empty terms, terms with neither field
// nor value (which select everything), escapes at the end and before multibyte runes.
var fieldEdgeCases = []string{
	"", ",", ",,", "=", "==", "!=", "=,!=", "a", "a=", "=a", "!=a", "a!", "a\\", "a=\\", "a=b\\", "a=b\\\\",
	"a=\\é", "a=é\\", "a=\\,b", "a=b,a=c", "a==b", "a=b=c", "a!=b!=c", "a=\xff", "\xff=\xff",
}

func TestFieldSelector_AgreesWithApimachinery(t *testing.T) {
	c := newCorpus(2)
	compareSelectors(t, fieldEdgeCases, c.fieldSelector, c.fieldSets(40), fieldNames, kubeFieldSelector, apikitFieldSelector)
}

func kubeFieldSelector(s string) (parsedSelector, error) {
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return parsedSelector{}, err
	}
	p := viewOf(sel, func(set map[string]string) bool { return sel.Matches(fields.Set(set)) })
	for _, r := range sel.Requirements() {
		p.add(r.Field, string(r.Operator), []string{r.Value})
	}
	return p, nil
}

func apikitFieldSelector(s string) (parsedSelector, error) {
	sel, err := storage.ParseFieldSelector(s)
	if err != nil {
		return parsedSelector{}, err
	}
	p := viewOf(sel, sel.Matches)
	for _, r := range sel.Requirements() {
		p.add(r.Field, string(r.Operator), []string{r.Value})
	}
	return p, nil
}

// TestRawHTTP_SelectorErrorsCarryKubesMessage sends invalid selectors of the corpora as
// query parameters: kube-apiserver answers 400 BadRequest with the parser's error text as
// the message, and so must apikit.
func TestRawHTTP_SelectorErrorsCarryKubesMessage(t *testing.T) {
	const coll = "/apis/toys.example.com/v1/namespaces/sel/widgets"
	es := startExampleServer(t, server.StorageMemory)
	for _, param := range []struct {
		name     string
		generate func(*corpus) string
		parse    func(string) error
	}{
		{name: "labelSelector", generate: (*corpus).labelSelector,
			parse: func(s string) error { _, err := labels.Parse(s); return err }},
		{name: "fieldSelector", generate: (*corpus).fieldSelector,
			parse: func(s string) error { _, err := fields.ParseSelector(s); return err }},
	} {
		t.Run(param.name, func(t *testing.T) {
			c := newCorpus(3)
			for sent := 0; sent < 40; {
				input := param.generate(c)
				kubeErr := param.parse(input)
				if kubeErr == nil {
					continue
				}
				sent++
				code, _, body := es.do(t, "GET", coll+"?"+url.Values{param.name: {input}}.Encode(), nil, nil)
				st := decodeStatus(t, body)
				if code != http.StatusBadRequest || st.Reason != metav1.StatusReasonBadRequest || st.Message != kubeErr.Error() {
					t.Errorf("%s=%q: %d %s %q, want 400 BadRequest %q", param.name, input, code, st.Reason, st.Message, kubeErr)
				}
			}
		})
	}
}
