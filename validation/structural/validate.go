package structural

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// validator checks objects against a compiled schema the way kube-apiserver checks a
// custom resource: the value validation of k8s.io/kube-openapi's validate package
// (which apiextensions-apiserver runs on the whole object), converted to field errors
// as apiextensions-apiserver converts them, then the embedded resources' apiVersion,
// kind and metadata, then the uniqueness of list-type set and map items.
//
// kube-openapi's quirks are kept on purpose, because clients see them in 422 causes:
// every keyword applies by the kind of the value, not by the schema's type (a number
// against {type: string, minimum: 3} fails both); a failing string keyword hides the
// next ones; the same message is reported once; errors of allOf/anyOf/oneOf/not
// have the field "<nil>"; additional properties are named "parent.key".
type validator struct {
	root *node
}

// node is one compiled schema: the keywords as kube-openapi reads them after
// apiextensions-apiserver converted the CRD schema (int-or-string as the types
// integer and string, formats kube does not support removed).
type node struct {
	types    []string // nil, one type, or "integer","string" for int-or-string
	typeList string   // types joined by ",", as type errors name them
	nullable bool
	format   string            // the schema's format, "" when kube strips it
	checkFmt func(string) bool // the validator of format, nil when none is registered

	enum []any

	numType, numFormat string // what number range checks are against ("" when not one number type)
	minimum, maximum   *float64
	exclMin, exclMax   bool
	multipleOf         *float64

	minLength, maxLength *int64
	pattern              *regexp.Regexp

	items              *node
	minItems, maxItems *int64
	uniqueItems        bool

	props              map[string]*node
	propNames          []string // sorted, so that errors come in a stable order
	additional         *node
	minProps, maxProps *int64
	required           []string

	allOf, anyOf, oneOf []*node
	not                 *node

	embedded    bool
	listType    string
	listMapKeys []string
	// walkEmbedded and walkLists say whether this node or one below has an embedded
	// resource or a list of type set or map, so that valid objects skip those walks.
	walkEmbedded, walkLists bool
}

func newValidator(root *openapi.Schema, fldPath *validation.Path) (*validator, validation.ErrorList) {
	return &validator{root: compileNode(root, fldPath, compileOptions{})}, nil
}

// compileOptions tell how a schema's nodes are compiled.
type compileOptions struct {
	// untypedIntOrString leaves x-kubernetes-int-or-string without a type check (its
	// anyOf, if any, still applies), as the schema kube validates a default value with
	// has it; a custom resource's own validator checks "integer,string".
	untypedIntOrString bool
}

// compileNode compiles s; an invalid pattern is left out (checkStructural refuses it).
func compileNode(s *openapi.Schema, fldPath *validation.Path, c compileOptions) *node {
	if s == nil {
		return nil
	}
	n := &node{
		nullable:    s.Nullable,
		enum:        s.Enum,
		minimum:     s.Minimum,
		maximum:     s.Maximum,
		exclMin:     s.ExclusiveMinimum,
		exclMax:     s.ExclusiveMaximum,
		multipleOf:  s.MultipleOf,
		minLength:   s.MinLength,
		maxLength:   s.MaxLength,
		minItems:    s.MinItems,
		maxItems:    s.MaxItems,
		uniqueItems: s.UniqueItems,
		minProps:    s.MinProperties,
		maxProps:    s.MaxProperties,
		required:    s.Required,
		embedded:    s.EmbeddedResource,
		listType:    s.ListType,
		listMapKeys: s.ListMapKeys,
	}
	switch {
	case s.IntOrString && !c.untypedIntOrString:
		n.types = []string{"integer", "string"}
	case s.Type != "":
		n.types = []string{s.Type}
	}
	n.typeList = strings.Join(n.types, ",")
	n.format = supportedFormat(s.Format, n.types)
	n.checkFmt = formatCheckers[normalizeFormat(n.format)]
	if len(n.types) == 1 {
		switch n.types[0] {
		case "integer":
			n.numType = "integer"
			if n.format == "int32" || n.format == "int64" {
				n.numFormat = n.format
			}
		case "number":
			n.numType = "number"
			if n.format == "float" || n.format == "double" {
				n.numFormat = n.format
			}
		}
	}
	n.items = compileNode(s.Items, fldPath.Child("items"), c)
	if len(s.Properties) > 0 {
		n.props = make(map[string]*node, len(s.Properties))
		for _, name := range sortedKeys(s.Properties) {
			n.props[name] = compileNode(s.Properties[name], fldPath.Child("properties").Key(name), c)
			n.propNames = append(n.propNames, name)
		}
	}
	n.additional = compileNode(s.AdditionalProperties, fldPath.Child("additionalProperties"), c)
	n.anyOf = compileNodes(s.AnyOf, fldPath.Child("anyOf"), c)
	n.allOf = compileNodes(s.AllOf, fldPath.Child("allOf"), c)
	n.oneOf = compileNodes(s.OneOf, fldPath.Child("oneOf"), c)
	n.not = compileNode(s.Not, fldPath.Child("not"), c)
	if s.Pattern != "" {
		// An invalid pattern is refused by checkStructural, as kube refuses it with the
		// CRD; here it only goes uncompiled.
		if re, err := regexp.Compile(s.Pattern); err == nil {
			n.pattern = re
		}
	}
	n.walkEmbedded = n.embedded
	n.walkLists = n.listType == "set" || n.listType == "map"
	for _, c := range append([]*node{n.items, n.additional}, mapValues(n.props)...) {
		if c != nil {
			n.walkEmbedded = n.walkEmbedded || c.walkEmbedded
			n.walkLists = n.walkLists || c.walkLists
		}
	}
	return n
}

func compileNodes(ss []*openapi.Schema, fldPath *validation.Path, c compileOptions) []*node {
	var out []*node
	for i, s := range ss {
		out = append(out, compileNode(s, fldPath.Index(i), c))
	}
	return out
}

func mapValues(m map[string]*node) []*node {
	out := make([]*node, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// validate runs the three checks kube-apiserver's custom resource strategy runs on the
// schema, in its order: value validation, embedded resources, list sets and maps.
func (v *validator) validate(obj map[string]any) validation.ErrorList {
	var errs validation.ErrorList
	if found, _ := v.root.check(obj, nil, nil); len(found) > 0 {
		errs = toFieldErrors(found)
	}
	if v.root.walkEmbedded {
		errs = append(errs, validateEmbedded(nil, obj, v.root)...)
	}
	if v.root.walkLists {
		errs = append(errs, validateListsOfObject(nil, v.root, obj)...)
	}
	return errs
}

// validateValue validates any JSON value as the root of the schema, as kube validates a
// default value against its node's schema, with the errors' fields under base. It
// checks the value alone, not the embedded resources or list keys within it.
func (v *validator) validateValue(value any, base *validation.Path) validation.ErrorList {
	found, _ := v.root.check(value, nil, nil)
	errs := toFieldErrors(found)
	prefix := base.String()
	for _, e := range errs {
		switch {
		case e.Field == "<nil>":
			e.Field = prefix
		case strings.HasPrefix(e.Field, "["):
			e.Field = prefix + e.Field
		default:
			e.Field = prefix + "." + e.Field
		}
	}
	return errs
}

// vpath is a path as kube-openapi names it ("spec.items[0].name", an additional
// property "spec.labels.app", the root ""), rendered only when an error needs it.
type vpath struct {
	parent *vpath
	name   string
	index  int
	kind   pathKind
}

type pathKind uint8

const (
	pathProperty pathKind = iota
	pathAdditional
	pathIndex
)

// String renders the path in one pass over its elements, so that an error deep in an
// object costs the length of its path, not that length once per level.
func (p *vpath) String() string {
	n, size := 0, 0
	for e := p; e != nil; e = e.parent {
		n++
		size += len(e.name) + 1
		if e.kind == pathIndex {
			size += 2 + 20
		}
	}
	elems := make([]*vpath, n)
	for e := p; e != nil; e = e.parent {
		n--
		elems[n] = e
	}
	var b strings.Builder
	b.Grow(size)
	for _, e := range elems {
		switch {
		case e.kind == pathIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.index))
			b.WriteByte(']')
			continue
		case e.kind == pathAdditional || b.Len() > 0:
			// kube-openapi puts a dot before an additional property even at the root.
			b.WriteByte('.')
		}
		b.WriteString(e.name)
	}
	return b.String()
}

// errCode is the kind of a kube-openapi error, which decides the field error it
// becomes.
type errCode uint8

const (
	codeComposite errCode = iota // allOf/anyOf/oneOf/not and number range checks: no field
	codeInvalidType
	codeRequired
	codeTooLong
	codeTooShort
	codePattern
	codeEnum
	codeMultipleOf
	codeMaximum
	codeMinimum
	codeUnique
	codeMaxItems
	codeMinItems
	codeTooFewProperties
	codeTooManyProperties
	codeMultipleOfMustBePositive
)

// schemaError is one kube-openapi validation error: name is its path, msg its text
// (which also identifies it: kube-openapi reports a message once), value what it
// carries as the bad value, max the limit TooLong and TooMany report.
type schemaError struct {
	code  errCode
	name  string
	value any
	max   int64
	enum  []any
	msg   string
}

const in = " in body "

// toFieldErrors converts kube-openapi errors into field errors as
// apiextensions-apiserver does, dropping repeated messages as kube-openapi does.
func toFieldErrors(found []schemaError) validation.ErrorList {
	errs := make(validation.ErrorList, 0, len(found))
	seen := make(map[string]struct{}, len(found))
	for i := range found {
		e := &found[i]
		if _, dup := seen[e.msg]; dup {
			continue
		}
		seen[e.msg] = struct{}{}
		errs = append(errs, e.fieldError())
	}
	return errs
}

func (e *schemaError) fieldError() *validation.Error {
	const noField = "<nil>"
	if e.code == codeComposite {
		return &validation.Error{Type: validation.ErrorTypeInvalid, Field: noField, BadValue: "", Detail: e.msg}
	}
	field := noField
	if e.name != "" && e.name != "." {
		field = strings.TrimPrefix(e.name, ".")
	}
	var fe *validation.Error
	switch e.code {
	case codeRequired:
		fe = validation.Required(nil, "")
	case codeEnum:
		values := make([]string, len(e.enum))
		for i, v := range e.enum {
			if s, ok := v.(string); ok {
				values[i] = s
			} else {
				b, _ := json.Marshal(v)
				values[i] = string(b)
			}
		}
		fe = validation.NotSupported(nil, e.value, values)
	case codeTooLong:
		fe = validation.TooLong(nil, nil, int(e.max))
	case codeMaxItems, codeTooManyProperties:
		fe = validation.TooMany(nil, int(e.value.(int64)), int(e.max))
	case codeInvalidType:
		fe = validation.TypeInvalid(nil, orEmpty(e.value), e.msg)
	default:
		fe = validation.Invalid(nil, orEmpty(e.value), e.msg)
	}
	fe.Field = field
	return fe
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// check validates data against n as kube-openapi's SchemaValidator does and appends
// the errors to out. It also returns kube-openapi's match count, by which anyOf and
// oneOf pick the alternative whose errors they report.
func (n *node) check(data any, p *vpath, out []schemaError) ([]schemaError, int) {
	if data == nil {
		count := 0
		if len(n.types) > 0 && !n.nullable {
			out = append(out, n.typeError(p, n.typeList, "null"))
		} else {
			count = 1
		}
		return n.checkEnum(nil, p, out), count
	}
	kind := kindOf(data)
	count := 1
	if len(n.types) > 0 || n.format != "" {
		var ok bool
		out, ok = n.checkType(data, kind, p, out)
		count++
		if ok {
			count++
		}
	}
	var c int
	out, c = n.checkJunctors(data, p, out)
	count += 1 + c
	if kind == reflect.String {
		s := data.(string)
		out = n.checkString(s, p, out)
		count++
		if n.checkFmt != nil {
			if !n.checkFmt(s) {
				out = append(out, schemaError{code: codeInvalidType, name: p.String(), value: s,
					msg: p.String() + in + "must be of type " + n.format + ": " + strconv.Quote(s)})
			}
			count++
		}
	}
	if kind == reflect.Int64 || kind == reflect.Float64 {
		out = n.checkNumber(data, p, out)
		count += 2
	}
	if kind == reflect.Slice {
		out, c = n.checkArray(data.([]any), p, out)
		count += 2 + c
	}
	out = n.checkEnum(data, p, out)
	count++
	if kind == reflect.Map {
		out, c = n.checkObject(data.(map[string]any), p, out)
		count += 1 + c
	}
	return out, count
}

// kindOf reduces a JSON value to the kinds kube-openapi tells apart; Go integers and
// floats that did not come from a JSON decoder count as int64 and float64.
func kindOf(data any) reflect.Kind {
	switch data.(type) {
	case string:
		return reflect.String
	case bool:
		return reflect.Bool
	case int64, int, int32:
		return reflect.Int64
	case float64, float32:
		return reflect.Float64
	case []any:
		return reflect.Slice
	case map[string]any:
		return reflect.Map
	}
	return reflect.Invalid
}

func asInt64(data any) (int64, bool) {
	switch d := data.(type) {
	case int64:
		return d, true
	case int:
		return int64(d), true
	case int32:
		return int64(d), true
	}
	return 0, false
}

func asFloat64(data any) float64 {
	switch d := data.(type) {
	case float64:
		return d
	case float32:
		return float64(d)
	}
	i, _ := asInt64(data)
	return float64(i)
}

func (n *node) hasType(t string) bool {
	return slices.Contains(n.types, t)
}

func (n *node) typeError(p *vpath, want, got string) schemaError {
	name := p.String()
	return schemaError{code: codeInvalidType, name: name, value: got,
		msg: name + in + "must be of type " + want + ": " + strconv.Quote(got)}
}

// checkType is kube-openapi's type check: the JSON type must be one of the types,
// an integral number passes as integer and an integer as number; a format makes
// non-string values of another type fail with the format as the expected type.
func (n *node) checkType(data any, kind reflect.Kind, p *vpath, out []schemaError) ([]schemaError, bool) {
	var schType, format string
	switch kind {
	case reflect.Bool:
		schType = "boolean"
	case reflect.String:
		schType = "string"
	case reflect.Int64:
		schType, format = "integer", "int64"
		if _, is32 := data.(int32); is32 {
			format = "int32"
		}
	case reflect.Float64:
		schType, format = "number", "float64"
		if _, is32 := data.(float32); is32 {
			format = "float32"
		}
	case reflect.Slice:
		schType = "array"
	case reflect.Map:
		schType = "object"
	}
	isFloatInt := schType == "number" && isFloat64AJSONInteger(asFloat64(data)) && n.hasType("integer")
	isIntFloat := schType == "integer" && n.hasType("number")
	isLowerInt := n.format == "int64" && format == "int32"
	if kind != reflect.String && kind != reflect.Slice && n.format != "" &&
		!(n.hasType(schType) || format == n.format || isFloatInt || isIntFloat || isLowerInt) {
		return append(out, n.typeError(p, n.format, format)), false
	}
	if !n.hasType("number") && !n.hasType("integer") && n.format != "" && (kind == reflect.String || kind == reflect.Slice) {
		return out, true
	}
	if !(n.hasType(schType) || isFloatInt || isIntFloat) {
		return append(out, n.typeError(p, n.typeList, schType)), false
	}
	return out, true
}

// isFloat64AJSONInteger is go-openapi's test for a float that JSON would carry as an
// integer: within ±(2^53-1) and integral up to a relative error of 1e-9.
func isFloat64AJSONInteger(f float64) bool {
	const maxJSONFloat = float64(1<<53 - 1)
	if math.IsNaN(f) || f < -maxJSONFloat || f > maxJSONFloat {
		return false
	}
	rounded := math.Round(f)
	if f == rounded {
		return true
	}
	if rounded == 0 {
		return false
	}
	return math.Abs(f-rounded) < 1e-9*math.Abs(rounded)
}

// checkJunctors evaluates allOf, anyOf, oneOf and not at the same path. It returns
// the match count of the alternatives it reports plus its own.
func (n *node) checkJunctors(data any, p *vpath, out []schemaError) ([]schemaError, int) {
	count := 1
	if len(n.anyOf) > 0 {
		var best []schemaError
		bestCount, hasBest, succeeded := 0, false, false
		for _, alt := range n.anyOf {
			errs, c := alt.check(data, p, nil)
			if len(errs) == 0 {
				succeeded, hasBest = true, false
				count += c
				break
			}
			if !hasBest || c > bestCount {
				best, bestCount, hasBest = errs, c, true
			}
		}
		if !succeeded {
			out = append(out, composite(strconv.Quote(p.String())+" must validate at least one schema (anyOf)"))
		}
		if hasBest {
			out = append(out, best...)
			count += bestCount
		}
	}
	if len(n.oneOf) > 0 {
		var best []schemaError
		bestCount, hasBest, validated, firstCount := 0, false, 0, -1
		for _, alt := range n.oneOf {
			errs, c := alt.check(data, p, nil)
			if len(errs) == 0 {
				validated++
				best, hasBest = nil, false
				if firstCount < 0 {
					firstCount = c
				}
				continue
			}
			if validated == 0 && (!hasBest || c > bestCount) {
				best, bestCount, hasBest = errs, c, true
			}
		}
		if validated != 1 {
			found := "Found none valid"
			if validated > 1 {
				found = fmt.Sprintf("Found %d valid alternatives", validated)
			}
			out = append(out, composite(strconv.Quote(p.String())+" must validate one and only one schema (oneOf). "+found))
			if hasBest {
				out = append(out, best...)
				count += bestCount
			}
		} else {
			count += firstCount
		}
	}
	if len(n.allOf) > 0 {
		validated := 0
		for _, alt := range n.allOf {
			before := len(out)
			var c int
			out, c = alt.check(data, p, out)
			count += c
			if len(out) == before {
				validated++
			}
		}
		if validated != len(n.allOf) {
			none := ""
			if validated == 0 {
				none = ". None validated"
			}
			out = append(out, composite(strconv.Quote(p.String())+" must validate all the schemas (allOf)"+none))
		}
	}
	if n.not != nil {
		if errs, _ := n.not.check(data, p, nil); len(errs) == 0 {
			out = append(out, composite(strconv.Quote(p.String())+" must not validate the schema (not)"))
		}
	}
	return out, count
}

func composite(msg string) schemaError {
	return schemaError{code: codeComposite, msg: msg}
}

// checkString checks maxLength, minLength (in characters) and pattern; the first
// failure hides the others, as in kube-openapi.
func (n *node) checkString(s string, p *vpath, out []schemaError) []schemaError {
	if n.maxLength != nil || n.minLength != nil {
		length := int64(utf8.RuneCountInString(s))
		if n.maxLength != nil && length > *n.maxLength {
			name := p.String()
			return append(out, schemaError{code: codeTooLong, name: name, value: s, max: *n.maxLength,
				msg: name + in + "should be at most " + strconv.FormatInt(*n.maxLength, 10) + " chars long"})
		}
		if n.minLength != nil && length < *n.minLength {
			name := p.String()
			return append(out, schemaError{code: codeTooShort, name: name, value: s,
				msg: name + in + "should be at least " + strconv.FormatInt(*n.minLength, 10) + " chars long"})
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		name := p.String()
		return append(out, schemaError{code: codePattern, name: name, value: s,
			msg: name + in + "should match '" + n.pattern.String() + "'"})
	}
	return out
}

// checkNumber checks multipleOf, minimum and maximum as kube-openapi does: the value
// and each bound must fit the schema's type and format (else an error without field,
// and the comparison falls back to float64); integers compare with the bound
// truncated to an integer.
func (n *node) checkNumber(data any, p *vpath, out []schemaError) []schemaError {
	if n.minimum == nil && n.maximum == nil && n.multipleOf == nil && n.numType == "" {
		return out
	}
	iv, isInt := asInt64(data)
	fv := asFloat64(data)
	if msg := n.rangeError(data, "Checked", p); msg != "" {
		out = append(out, composite(msg))
	}
	if n.multipleOf != nil {
		factor := *n.multipleOf
		if msg := n.rangeError(factor, "MultipleOf", p); msg != "" {
			out = append(out, composite(msg))
			out = appendErr(out, multipleOfFloat(p, fv, factor))
		} else if isInt {
			out = appendErr(out, multipleOfInt(p, iv, int64(factor)))
		} else {
			out = appendErr(out, multipleOfFloat(p, fv, factor))
		}
	}
	if n.minimum != nil {
		out = n.checkBound(out, p, data, *n.minimum, n.exclMin, codeMinimum)
	}
	if n.maximum != nil {
		out = n.checkBound(out, p, data, *n.maximum, n.exclMax, codeMaximum)
	}
	return out
}

func appendErr(out []schemaError, e *schemaError) []schemaError {
	if e == nil {
		return out
	}
	return append(out, *e)
}

// rangeError is kube-openapi's check that a number (the value or a bound) is
// representable in the schema's type and format: an integer for type integer
// (32 bits with format int32), a float32 for format float.
func (n *node) rangeError(v any, prefix string, p *vpath) string {
	var rep string
	if i, ok := asInt64(v); ok {
		rep = strconv.FormatInt(i, 10)
	} else {
		rep = strconv.FormatFloat(asFloat64(v), 'f', -1, 64)
	}
	var err error
	switch n.numType {
	case "integer":
		bits := 64
		if n.numFormat == "int32" {
			bits = 32
		}
		_, err = strconv.ParseInt(rep, 10, bits)
	default:
		if n.numFormat == "float" {
			_, err = strconv.ParseFloat(rep, 32)
		}
	}
	if err == nil {
		return ""
	}
	if n.numFormat != "" {
		return prefix + " value must be of type " + n.numType + " with format " + n.numFormat + " in " + p.String()
	}
	return prefix + " value must be of type " + n.numType + " (default format) in " + p.String()
}

func multipleOfInt(p *vpath, v, factor int64) *schemaError {
	if factor <= 0 {
		return mustBePositive(p, factor)
	}
	if v/factor*factor != v {
		name := p.String()
		return &schemaError{code: codeMultipleOf, name: name, value: v, msg: name + in + "should be a multiple of " + fmt.Sprint(factor)}
	}
	return nil
}

func multipleOfFloat(p *vpath, v, factor float64) *schemaError {
	if factor <= 0 {
		return mustBePositive(p, factor)
	}
	var mult float64
	if factor < 1 {
		mult = 1 / factor * v
	} else {
		mult = v / factor
	}
	if !isFloat64AJSONInteger(mult) {
		name := p.String()
		return &schemaError{code: codeMultipleOf, name: name, value: v, msg: name + in + "should be a multiple of " + fmt.Sprint(factor)}
	}
	return nil
}

func mustBePositive(p *vpath, factor any) *schemaError {
	name := p.String()
	return &schemaError{code: codeMultipleOfMustBePositive, name: name, value: factor,
		msg: "factor MultipleOf declared for " + name + " must be positive: " + fmt.Sprint(factor)}
}

// checkBound checks a minimum (code codeMinimum) or a maximum (codeMaximum). A bound
// that does not fit the schema's type is reported and compared as a float; otherwise
// an integer value is compared with the bound truncated to an integer.
func (n *node) checkBound(out []schemaError, p *vpath, data any, bound float64, exclusive bool, code errCode) []schemaError {
	prefix := "Maximum boundary"
	if code == codeMinimum {
		prefix = "Minimum boundary"
	}
	iv, isInt := asInt64(data)
	if msg := n.rangeError(bound, prefix, p); msg != "" {
		out = append(out, composite(msg))
		isInt = false
	}
	if isInt {
		if m := int64(bound); beyond(code, cmp.Compare(iv, m), exclusive) {
			out = append(out, boundError(code, p, iv, m, exclusive))
		}
		return out
	}
	if fv := asFloat64(data); beyond(code, cmp.Compare(fv, bound), exclusive) {
		out = append(out, boundError(code, p, fv, bound, exclusive))
	}
	return out
}

// beyond reports whether a value that compares c to a bound violates it.
func beyond(code errCode, c int, exclusive bool) bool {
	if code == codeMinimum {
		c = -c
	}
	return c > 0 || (exclusive && c == 0)
}

func boundError(code errCode, p *vpath, value, bound any, exclusive bool) schemaError {
	name := p.String()
	var rel string
	switch {
	case code == codeMaximum && exclusive:
		rel = "should be less than "
	case code == codeMaximum:
		rel = "should be less than or equal to "
	case exclusive:
		rel = "should be greater than "
	default:
		rel = "should be greater than or equal to "
	}
	return schemaError{code: code, name: name, value: value, msg: name + in + rel + fmt.Sprint(bound)}
}

// checkArray validates the items, then minItems, maxItems and uniqueItems.
func (n *node) checkArray(arr []any, p *vpath, out []schemaError) ([]schemaError, int) {
	count := 0
	if n.items != nil {
		for i, v := range arr {
			var c int
			out, c = n.items.check(v, &vpath{parent: p, index: i, kind: pathIndex}, out)
			count += c
		}
	}
	out = appendSizeErrors(out, p, int64(len(arr)), n.minItems, n.maxItems, codeMinItems, codeMaxItems, " items")
	if n.uniqueItems && hasDuplicate(arr) {
		name := p.String()
		out = append(out, schemaError{code: codeUnique, name: name, msg: name + in + "shouldn't contain duplicates"})
	}
	return out, count
}

// hasDuplicate compares items as reflect.DeepEqual does: 1 and 1.0 differ.
func hasDuplicate(arr []any) bool {
	for i := 1; i < len(arr); i++ {
		for j := 0; j < i; j++ {
			if reflect.DeepEqual(arr[i], arr[j]) {
				return true
			}
		}
	}
	return false
}

// checkEnum is kube-openapi's enum check: a value matches an enum value it equals
// after conversion to the enum value's Go type (so 3.5 matches 3, and the integer 65
// matches "A"); null matches nothing.
func (n *node) checkEnum(data any, p *vpath, out []schemaError) []schemaError {
	if len(n.enum) == 0 || enumContains(n.enum, data) {
		return out
	}
	name := p.String()
	return append(out, schemaError{code: codeEnum, name: name, value: data, enum: n.enum,
		msg: name + in + "should be one of " + fmt.Sprintf("%v", n.enum)})
}

func enumContains(enum []any, data any) bool {
	if data == nil {
		return false
	}
	dv := reflect.ValueOf(data)
	for _, e := range enum {
		switch ev := e.(type) {
		case nil:
			continue
		case string:
			if d, ok := data.(string); ok {
				if d == ev {
					return true
				}
				continue
			}
		case int64:
			if d, ok := data.(int64); ok {
				if d == ev {
					return true
				}
				continue
			}
		case bool:
			if d, ok := data.(bool); ok {
				if d == ev {
					return true
				}
				continue
			}
		}
		et := reflect.TypeOf(e)
		if dv.Type().ConvertibleTo(et) && reflect.DeepEqual(dv.Convert(et).Interface(), e) {
			return true
		}
	}
	return false
}

// checkObject checks minProperties and maxProperties, validates additional
// properties and properties, then reports missing required properties.
func (n *node) checkObject(obj map[string]any, p *vpath, out []schemaError) ([]schemaError, int) {
	count := 0
	out = appendSizeErrors(out, p, int64(len(obj)), n.minProps, n.maxProps, codeTooFewProperties, codeTooManyProperties, " properties")
	if n.additional != nil {
		for _, k := range sortedKeys(obj) {
			if _, known := n.props[k]; known {
				continue
			}
			var c int
			out, c = n.additional.check(obj[k], &vpath{parent: p, name: k, kind: pathAdditional}, out)
			count += c
		}
	}
	for _, name := range n.propNames {
		v, ok := obj[name]
		if !ok {
			continue
		}
		var c int
		out, c = n.props[name].check(v, &vpath{parent: p, name: name, kind: pathProperty}, out)
		count += c
	}
	for _, k := range n.required {
		if _, ok := obj[k]; !ok {
			name := p.String() + "." + k
			out = append(out, schemaError{code: codeRequired, name: name, msg: name + in + "is required"})
		}
	}
	return out, count
}

// appendSizeErrors checks the size of an array (minItems, maxItems) or an object
// (minProperties, maxProperties); unit names what is counted in the message.
func appendSizeErrors(out []schemaError, p *vpath, size int64, least, most *int64, tooFew, tooMany errCode, unit string) []schemaError {
	if least != nil && size < *least {
		name := p.String()
		out = append(out, schemaError{code: tooFew, name: name, value: size,
			msg: name + in + "should have at least " + strconv.FormatInt(*least, 10) + unit})
	}
	if most != nil && size > *most {
		name := p.String()
		out = append(out, schemaError{code: tooMany, name: name, value: size, max: *most,
			msg: name + in + "should have at most " + strconv.FormatInt(*most, 10) + unit})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m))
	slices.Sort(keys)
	return keys
}
