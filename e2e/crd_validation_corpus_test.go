package e2e

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/scheme/openapi"
)

// The schemas and objects of the CRD validation differential (and benchmark).

type jsonObj = map[string]any

// rootSchema wraps spec (and status) into a custom resource's root schema.
func rootSchema(spec, status jsonObj, metadata jsonObj) jsonObj {
	props := jsonObj{
		"apiVersion": jsonObj{"type": "string"},
		"kind":       jsonObj{"type": "string"},
		"spec":       spec,
	}
	if metadata != nil {
		props["metadata"] = metadata
	} else {
		props["metadata"] = jsonObj{"type": "object"}
	}
	if status != nil {
		props["status"] = status
	}
	return jsonObj{"type": "object", "properties": props}
}

// kubebuilderCRDSchema is a typical operator's schema: about 30 fields with the
// markers kubebuilder generates (enums, bounds, patterns, formats, list maps,
// int-or-string, maps of strings, conditions).
func kubebuilderCRDSchema() jsonObj {
	condition := jsonObj{"type": "object", "required": []any{"type", "status", "lastTransitionTime", "reason", "message"},
		"properties": jsonObj{
			"type":               jsonObj{"type": "string", "maxLength": 316, "pattern": `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`},
			"status":             jsonObj{"type": "string", "enum": []any{"True", "False", "Unknown"}},
			"observedGeneration": jsonObj{"type": "integer", "format": "int64", "minimum": 0},
			"lastTransitionTime": jsonObj{"type": "string", "format": "date-time"},
			"reason":             jsonObj{"type": "string", "minLength": 1, "maxLength": 1024, "pattern": `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`},
			"message":            jsonObj{"type": "string", "maxLength": 32768},
		}}
	spec := jsonObj{"type": "object", "required": []any{"image", "replicas"}, "properties": jsonObj{
		"image":           jsonObj{"type": "string", "minLength": 1},
		"replicas":        jsonObj{"type": "integer", "format": "int32", "minimum": 0, "maximum": 100},
		"paused":          jsonObj{"type": "boolean"},
		"logLevel":        jsonObj{"type": "string", "enum": []any{"debug", "info", "warn", "error"}},
		"serviceAccount":  jsonObj{"type": "string", "maxLength": 253, "pattern": `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`},
		"port":            jsonObj{"x-kubernetes-int-or-string": true},
		"cpuLimit":        jsonObj{"type": "number", "minimum": 0.1, "maximum": 64, "exclusiveMaximum": true},
		"timeout":         jsonObj{"type": "string", "format": "duration"},
		"owner":           jsonObj{"type": "string", "format": "email"},
		"id":              jsonObj{"type": "string", "format": "uuid"},
		"nodeSelector":    jsonObj{"type": "object", "additionalProperties": jsonObj{"type": "string"}},
		"tolerationCount": jsonObj{"type": "integer", "multipleOf": 2},
		"env": jsonObj{"type": "array", "maxItems": 8, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
			"items": jsonObj{"type": "object", "required": []any{"name"}, "properties": jsonObj{
				"name":  jsonObj{"type": "string", "minLength": 1},
				"value": jsonObj{"type": "string"},
			}}},
		"args": jsonObj{"type": "array", "items": jsonObj{"type": "string"}, "x-kubernetes-list-type": "set"},
		"storage": jsonObj{"type": "object", "properties": jsonObj{
			"size":         jsonObj{"x-kubernetes-int-or-string": true, "pattern": `^[0-9]+(Mi|Gi)?$`},
			"storageClass": jsonObj{"type": "string", "nullable": true},
			"accessModes": jsonObj{"type": "array", "minItems": 1, "x-kubernetes-list-type": "set",
				"items": jsonObj{"type": "string", "enum": []any{"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"}}},
		}},
		"endpoints": jsonObj{"type": "array", "items": jsonObj{"type": "object", "properties": jsonObj{
			"host":   jsonObj{"type": "string", "format": "hostname"},
			"ip":     jsonObj{"type": "string", "format": "ipv4"},
			"scheme": jsonObj{"type": "string", "enum": []any{"http", "https"}},
		}}},
	}}
	status := jsonObj{"type": "object", "properties": jsonObj{
		"phase":              jsonObj{"type": "string"},
		"readyReplicas":      jsonObj{"type": "integer", "format": "int32"},
		"observedGeneration": jsonObj{"type": "integer", "format": "int64"},
		"conditions": jsonObj{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"type"},
			"items": condition},
	}}
	return rootSchema(spec, status, nil)
}

// handWrittenCRDSchemas cover what generated schemas rarely combine.
func handWrittenCRDSchemas() map[string]jsonObj {
	return map[string]jsonObj{
		"kubebuilder": kubebuilderCRDSchema(),
		"formats":     rootSchema(jsonObj{"type": "object", "properties": formatProperties()}, nil, nil),
		"metadata-name": rootSchema(jsonObj{"type": "object", "properties": jsonObj{"x": jsonObj{"type": "string"}}}, nil,
			jsonObj{"type": "object", "properties": jsonObj{
				"name":         jsonObj{"type": "string", "maxLength": 10, "pattern": "^[a-z-]+$"},
				"generateName": jsonObj{"type": "string", "maxLength": 5},
			}}),
		"embedded": rootSchema(jsonObj{"type": "object", "properties": jsonObj{
			"template": jsonObj{"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
			"typed": jsonObj{"type": "object", "x-kubernetes-embedded-resource": true, "properties": jsonObj{
				"apiVersion": jsonObj{"type": "string"},
				"kind":       jsonObj{"type": "string"},
				"metadata":   jsonObj{"type": "object"},
				"spec":       jsonObj{"type": "object", "properties": jsonObj{"size": jsonObj{"type": "integer", "minimum": 1}}},
			}},
			"list": jsonObj{"type": "array", "items": jsonObj{"type": "object", "x-kubernetes-embedded-resource": true,
				"x-kubernetes-preserve-unknown-fields": true, "nullable": true}},
			"free": jsonObj{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
		}}, nil, nil),
		"junctors": rootSchema(jsonObj{"type": "object",
			"anyOf": []any{jsonObj{"required": []any{"a"}}, jsonObj{"required": []any{"b"}}},
			"not":   jsonObj{"required": []any{"forbidden"}},
			"properties": jsonObj{
				"a":         jsonObj{"type": "string", "allOf": []any{jsonObj{"minLength": 2}, jsonObj{"pattern": "^[a-z]+$"}}},
				"b":         jsonObj{"type": "integer", "oneOf": []any{jsonObj{"minimum": 10}, jsonObj{"multipleOf": 3}}},
				"c":         jsonObj{"x-kubernetes-int-or-string": true, "anyOf": []any{jsonObj{"type": "integer"}, jsonObj{"type": "string"}}},
				"d":         jsonObj{"type": "number", "not": jsonObj{"enum": []any{0, 1.5}}},
				"e":         jsonObj{"type": "array", "items": jsonObj{"type": "string"}, "anyOf": []any{jsonObj{"maxItems": 1}, jsonObj{"items": jsonObj{"enum": []any{"x", "y"}}}}},
				"forbidden": jsonObj{"type": "string"},
				"f": jsonObj{"type": "object", "properties": jsonObj{"p": jsonObj{"type": "string"}, "q": jsonObj{"type": "integer"}},
					"oneOf": []any{jsonObj{"properties": jsonObj{"p": jsonObj{"enum": []any{"one"}}}}, jsonObj{"properties": jsonObj{"q": jsonObj{"maximum": 5}}}}},
			}}, nil, nil),
		"numbers": rootSchema(jsonObj{"type": "object", "properties": jsonObj{
			"i32":    jsonObj{"type": "integer", "format": "int32"},
			"i64":    jsonObj{"type": "integer", "format": "int64", "minimum": -5, "exclusiveMinimum": true},
			"f":      jsonObj{"type": "number", "format": "float", "maximum": 1e3},
			"d":      jsonObj{"type": "number", "format": "double", "multipleOf": 0.5},
			"frac":   jsonObj{"type": "integer", "minimum": 2.5, "maximum": 7.5},
			"nmul":   jsonObj{"type": "number", "multipleOf": 2.5, "minimum": -1.5},
			"imul":   jsonObj{"type": "integer", "multipleOf": 2.5},
			"anyNum": jsonObj{"type": "number", "enum": []any{1, 2.5, 3}},
			"str":    jsonObj{"type": "string", "minimum": 3, "format": "int32"},
			"ios":    jsonObj{"x-kubernetes-int-or-string": true, "maximum": 10, "maxLength": 3, "enum": []any{"a", 1, "A"}},
			"nb":     jsonObj{"type": "boolean", "nullable": true, "enum": []any{true}},
		}}, nil, nil),
	}
}

func formatProperties() jsonObj {
	props := jsonObj{}
	for _, f := range crdFormats {
		props["f_"+strings.ReplaceAll(f, "-", "_")] = jsonObj{"type": "string", "format": f}
	}
	props["unsupported"] = jsonObj{"type": "string", "format": "int32"}
	props["intfmt"] = jsonObj{"type": "integer", "format": "uuid"}
	return props
}

var crdFormats = []string{"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid",
	"uuid3", "uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte",
	"password", "date", "duration", "date-time", "datetime", "k8s-short-name", "k8s-long-name", "not-a-format"}

// formatSamples are valid and invalid values of every format, and corner cases of
// the sloppy IP parsers, Scala durations and date-time's digit comparisons.
var formatSamples = []string{
	"", "x", "507f1f77bcf86cd799439011", "507f1f77bcf86cd79943901z", "http://example.com/a?b=c", "/relative/path",
	"mailto:a@b.c", "not a uri", "a@b.c", "John <john@example.com>", "a@", "example.com", "-bad-.com", "ünïcode.de",
	"a.b.c.d.e", strings.Repeat("a", 64) + ".com", "1.2.3.4", "010.001.1.1", "256.1.1.1", "1.2.3", "::1",
	"::ffff:1.2.3.4", "::ffff:01.2.3.4", "2001:db8::1", "1.2.3.4/24", "10.0.0.0/033", "::/0", "1.2.3.4/33",
	"2001:db8::/129", "01:23:45:67:89:ab", "01-23-45-67-89-AB", "0123.4567.89ab", "01:23:45",
	"123e4567-e89b-12d3-a456-426614174000", "123E4567E89B32D3A456426614174000", "a987fbc9-4bed-4078-8f07-9141ba07c9f3",
	"a987fbc9-4bed-5078-af07-9141ba07c9f3", "0321751043", "978-0321751041", "0-321-75104-3", "9780321751040",
	"4111111111111111", "4111 1111 1111 1111", "4111111111111112", "123-45-6789", "123 45 6789", "123456789",
	"#fff", "ABCDEF", "#abcd", "rgb(255, 0, 10)", "rgb(256,0,0)", "aGVsbG8=", "aGVsbG8", "aGk=", "====",
	"2024-02-29", "2023-02-29", "2024-13-01", "2024-01-01T10:00:00Z", "2024-01-01t23:59:59.123+02:00",
	"2024-01-01T24:00:00Z", "2024-01-01T10:00:00", "2024-01-01 10:00:00Z", "1h30m", "3 days", "5 hours",
	"2 fortnights", "10", "1.5h", "1 µs", "99999999999999999999 ns", "my-name", "My-Name", "a.b-c.d",
	strings.Repeat("a", 64), "a..b",
}

// generatedCRDSchema returns a random structural schema under a root.
func generatedCRDSchema(rng *rand.Rand) jsonObj {
	g := &crdSchemaGen{rng: rng}
	return rootSchema(g.object(0), nil, nil)
}

type crdSchemaGen struct {
	rng *rand.Rand
	n   int
}

func (g *crdSchemaGen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *crdSchemaGen) object(depth int) jsonObj {
	s := jsonObj{"type": "object"}
	props := jsonObj{}
	var names []any
	for i := range 1 + g.rng.IntN(5) {
		name := fmt.Sprintf("f%d", i)
		names = append(names, name)
		props[name] = g.any(depth + 1)
	}
	switch {
	case depth > 0 && g.chance(0.15):
		s["additionalProperties"] = g.any(depth + 1)
		g.objectLimits(s)
		return g.common(s)
	case depth > 0 && g.chance(0.08):
		s["x-kubernetes-preserve-unknown-fields"] = true
	case depth > 0 && g.chance(0.05):
		s["x-kubernetes-embedded-resource"] = true
		s["x-kubernetes-preserve-unknown-fields"] = true
	}
	s["properties"] = props
	if g.chance(0.5) {
		s["required"] = []any{names[g.rng.IntN(len(names))]}
		if g.chance(0.3) {
			s["required"] = append(s["required"].([]any), "missing")
		}
	}
	g.objectLimits(s)
	if g.chance(0.1) {
		s["anyOf"] = []any{jsonObj{"required": []any{names[0]}}, jsonObj{"minProperties": 2}}
	}
	if g.chance(0.08) {
		s["oneOf"] = []any{jsonObj{"required": []any{names[0]}}, jsonObj{"maxProperties": 1}}
	}
	return g.common(s)
}

func (g *crdSchemaGen) objectLimits(s jsonObj) {
	if g.chance(0.15) {
		s["minProperties"] = g.rng.IntN(3)
	}
	if g.chance(0.15) {
		s["maxProperties"] = 1 + g.rng.IntN(3)
	}
}

func (g *crdSchemaGen) any(depth int) jsonObj {
	r := g.rng.IntN(10)
	switch {
	case r < 2 && depth < 4:
		return g.object(depth)
	case r < 4 && depth < 4:
		return g.array(depth)
	case r < 6:
		return g.str()
	case r < 7:
		return g.integer()
	case r < 8:
		return g.number()
	case r < 9:
		return g.common(jsonObj{"type": "boolean"})
	}
	s := jsonObj{"x-kubernetes-int-or-string": true}
	if g.chance(0.3) {
		s["maxLength"] = 3
	}
	if g.chance(0.3) {
		s["maximum"] = 10
	}
	return g.common(s)
}

func (g *crdSchemaGen) array(depth int) jsonObj {
	s := jsonObj{"type": "array"}
	switch r := g.rng.IntN(5); {
	case r == 0:
		item := g.object(depth + 1)
		if _, ok := item["properties"]; !ok {
			delete(item, "additionalProperties")
			item["properties"] = jsonObj{}
		}
		item["required"] = []any{"f0"}
		s["items"] = item
		s["x-kubernetes-list-type"] = "map"
		s["x-kubernetes-list-map-keys"] = []any{"f0"}
		if props := item["properties"].(jsonObj); len(props) > 1 && g.chance(0.5) {
			s["x-kubernetes-list-map-keys"] = []any{"f0", "f1"}
			item["required"] = []any{"f0", "f1"}
			props["f1"] = jsonObj{"type": "string"}
		}
		props := item["properties"].(jsonObj)
		props["f0"] = jsonObj{"type": "string", "maxLength": 4}
		delete(item, "nullable")
	case r == 1:
		s["items"] = g.str()
		s["x-kubernetes-list-type"] = "set"
		delete(s["items"].(jsonObj), "nullable")
	default:
		s["items"] = g.any(depth + 1)
	}
	if g.chance(0.3) {
		s["minItems"] = g.rng.IntN(3)
	}
	if g.chance(0.3) {
		s["maxItems"] = 1 + g.rng.IntN(3)
	}
	// No uniqueItems: a CRD's structural check refuses it (quadratic), so no served
	// schema has it.
	return g.common(s)
}

func (g *crdSchemaGen) str() jsonObj {
	s := jsonObj{"type": "string"}
	if g.chance(0.3) {
		s["minLength"] = g.rng.IntN(4)
	}
	if g.chance(0.3) {
		s["maxLength"] = 1 + g.rng.IntN(6)
	}
	if g.chance(0.25) {
		s["pattern"] = []string{"^[a-z]+$", "^a", "b$", "^[0-9]{2,}$", `^\p{L}+$`, "é"}[g.rng.IntN(6)]
	}
	if g.chance(0.2) {
		s["format"] = crdFormats[g.rng.IntN(len(crdFormats))]
	}
	if g.chance(0.2) {
		s["enum"] = []any{"a", "ab", "é"}
	}
	if g.chance(0.08) {
		s["not"] = jsonObj{"pattern": "^x"}
	}
	return g.common(s)
}

func (g *crdSchemaGen) integer() jsonObj {
	s := jsonObj{"type": "integer"}
	if g.chance(0.3) {
		s["format"] = []string{"int32", "int64", "float"}[g.rng.IntN(3)]
	}
	g.numberLimits(s, []any{-3, 0, 5, 2.5, 1e10})
	return g.common(s)
}

func (g *crdSchemaGen) number() jsonObj {
	s := jsonObj{"type": "number"}
	if g.chance(0.3) {
		s["format"] = []string{"float", "double", "int32"}[g.rng.IntN(3)]
	}
	g.numberLimits(s, []any{-1.5, 0, 5, 0.1, 1e40})
	return g.common(s)
}

func (g *crdSchemaGen) numberLimits(s jsonObj, bounds []any) {
	if g.chance(0.35) {
		s["minimum"] = bounds[g.rng.IntN(len(bounds))]
		s["exclusiveMinimum"] = g.chance(0.3)
	}
	if g.chance(0.35) {
		s["maximum"] = bounds[g.rng.IntN(len(bounds))]
		s["exclusiveMaximum"] = g.chance(0.3)
	}
	if g.chance(0.25) {
		s["multipleOf"] = []any{2, 3, 0.5, 0.1, 2.5}[g.rng.IntN(5)]
	}
	if g.chance(0.15) {
		s["enum"] = []any{1, 2, 3.5}
	}
	if g.chance(0.08) {
		s["allOf"] = []any{jsonObj{"minimum": 1}, jsonObj{"maximum": 4}}
	}
}

func (g *crdSchemaGen) common(s jsonObj) jsonObj {
	if g.chance(0.12) {
		s["nullable"] = true
	}
	return s
}

// crdValueGen generates objects for a schema: mostly close to valid, with values at
// and beyond every bound, wrong types, nulls, duplicates and unknown fields.
type crdValueGen struct {
	rng *rand.Rand
}

func (g *crdValueGen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *crdValueGen) object(s *openapi.Schema) map[string]any {
	obj := g.value(s, 0).(map[string]any)
	obj["apiVersion"] = "example.com/v1"
	obj["kind"] = "Widget"
	if _, ok := obj["metadata"]; !ok || g.chance(0.5) {
		obj["metadata"] = map[string]any{"name": g.pick("widget", "w", "too-long-name-here", "Bad_Name", "ok-name"),
			"namespace": "default", "labels": map[string]any{"app": "x"}}
	}
	return obj
}

func (g *crdValueGen) pick(vs ...string) string { return vs[g.rng.IntN(len(vs))] }

func (g *crdValueGen) junk() any {
	return []any{true, "x", int64(7), 2.5, []any{}, map[string]any{}, int64(-1), "", 1e300}[g.rng.IntN(9)]
}

func (g *crdValueGen) value(s *openapi.Schema, depth int) any {
	if depth > 0 {
		if g.chance(0.03) {
			return nil
		}
		if g.chance(0.05) {
			return g.junk()
		}
	}
	if len(s.Enum) > 0 && g.chance(0.5) {
		return s.Enum[g.rng.IntN(len(s.Enum))]
	}
	switch {
	case s.IntOrString:
		if g.chance(0.5) {
			return g.integer(s)
		}
		return g.str(s)
	case s.Type == "object" || (s.Type == "" && len(s.Properties) > 0):
		return g.obj(s, depth)
	case s.Type == "array":
		return g.array(s, depth)
	case s.Type == "string":
		return g.str(s)
	case s.Type == "integer":
		return g.integer(s)
	case s.Type == "number":
		if g.chance(0.3) {
			return g.integer(s)
		}
		return g.number(s)
	case s.Type == "boolean":
		return g.chance(0.5)
	}
	return g.free(depth)
}

func (g *crdValueGen) free(depth int) any {
	if depth > 3 || g.chance(0.5) {
		return g.junk()
	}
	return map[string]any{"any": g.junk(), "nested": []any{g.junk(), g.junk()}}
}

func (g *crdValueGen) obj(s *openapi.Schema, depth int) map[string]any {
	obj := map[string]any{}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if g.chance(0.8) {
			obj[name] = g.value(s.Properties[name], depth+1)
		}
	}
	if s.AdditionalProperties != nil {
		for i := range g.rng.IntN(4) {
			obj[fmt.Sprintf("k%d.x", i)] = g.value(s.AdditionalProperties, depth+1)
		}
	}
	if s.EmbeddedResource {
		g.embedded(obj)
	}
	if (s.PreserveUnknownFields || len(s.Properties) == 0) && g.chance(0.3) {
		obj["extra"] = g.free(depth + 1)
	}
	return obj
}

func (g *crdValueGen) embedded(obj map[string]any) {
	if g.chance(0.85) {
		obj["apiVersion"] = []any{"v1", "apps/v1", "", "a/b/c", int64(1), "/"}[g.rng.IntN(6)]
	}
	if g.chance(0.85) {
		obj["kind"] = []any{"Pod", "ConfigMap", "", "1Bad", "My_Kind", true, strings.Repeat("K", 70)}[g.rng.IntN(7)]
	}
	if g.chance(0.8) {
		meta := map[string]any{}
		if g.chance(0.7) {
			meta["name"] = g.pick("pod", "", "a/b", "..", "x%y")
		}
		if g.chance(0.3) {
			meta["namespace"] = g.pick("default", "Bad_NS")
		}
		if g.chance(0.3) {
			meta["generateName"] = g.pick("gen-", "a/")
		}
		if g.chance(0.3) {
			meta["labels"] = map[string]any{g.pick("app", "bad key!"): g.pick("v", "-bad-")}
		}
		if g.chance(0.2) {
			meta["annotations"] = map[string]any{"a": "b"}
		}
		if g.chance(0.05) {
			meta["generation"] = g.pick("x", "1")
		}
		obj["metadata"] = meta
		if g.chance(0.03) {
			obj["metadata"] = g.junk()
		}
	}
}

func (g *crdValueGen) array(s *openapi.Schema, depth int) []any {
	bounds := []int{0, 1, 2, 3}
	if s.MinItems != nil {
		bounds = append(bounds, int(*s.MinItems), max(0, int(*s.MinItems)-1))
	}
	if s.MaxItems != nil {
		bounds = append(bounds, int(*s.MaxItems), int(*s.MaxItems)+1)
	}
	n := bounds[g.rng.IntN(len(bounds))]
	arr := make([]any, 0, n)
	for range n {
		if s.Items == nil {
			arr = append(arr, g.junk())
			continue
		}
		if len(arr) > 0 && g.chance(0.2) {
			arr = append(arr, arr[g.rng.IntN(len(arr))])
			continue
		}
		arr = append(arr, g.value(s.Items, depth+1))
	}
	return arr
}

func (g *crdValueGen) str(s *openapi.Schema) string {
	if s.Format != "" && g.chance(0.6) {
		return formatSamples[g.rng.IntN(len(formatSamples))]
	}
	if s.Pattern != "" && g.chance(0.5) {
		return g.pick("abc", "a", "xb", "12", "1", "éé", "b", "x", "Zed")
	}
	lengths := []int{0, 1, 2, 3, 5}
	if s.MinLength != nil {
		lengths = append(lengths, int(*s.MinLength), max(0, int(*s.MinLength)-1))
	}
	if s.MaxLength != nil {
		lengths = append(lengths, int(*s.MaxLength), int(*s.MaxLength)+1)
	}
	n := lengths[g.rng.IntN(len(lengths))]
	var b strings.Builder
	for range n {
		b.WriteString(g.pick("a", "b", "z", "é", "0", "-", "A"))
	}
	return b.String()
}

func (g *crdValueGen) integer(s *openapi.Schema) any {
	var cands []any
	for _, b := range []*float64{s.Minimum, s.Maximum, s.MultipleOf} {
		if b != nil {
			v := int64(*b)
			cands = append(cands, v-1, v, v+1, 3*v)
		}
	}
	cands = append(cands, int64(0), int64(4), int64(-7), int64(1)<<31, int64(1)<<40, 3.0, 2.5, int64(65))
	return cands[g.rng.IntN(len(cands))]
}

func (g *crdValueGen) number(s *openapi.Schema) any {
	var cands []any
	for _, b := range []*float64{s.Minimum, s.Maximum, s.MultipleOf} {
		if b != nil {
			cands = append(cands, *b-0.5, *b, *b+0.25, 3**b)
		}
	}
	cands = append(cands, 0.0, 0.1, 0.3, -1.5, 1e39, 3.5, 1e300)
	return cands[g.rng.IntN(len(cands))]
}
