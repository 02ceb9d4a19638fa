package patch

import (
	"encoding/json"
	"fmt"
	"math"

	"sigs.k8s.io/yaml"
)

// DecodeApplyConfig reads the body of an application/apply-patch+yaml request (YAML or
// JSON) into an unstructured object, numbers as int64 when integral and float64
// otherwise. A body that is not a YAML object is ErrMalformed with kube's message
// ("error decoding YAML: ...").
func DecodeApplyConfig(data []byte) (map[string]any, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, malformed("error decoding YAML: %v", err)
	}
	var m map[string]any
	if err := decodeJSON(js, &m); err != nil {
		return nil, malformed("error decoding YAML: %v", err)
	}
	if m == nil {
		return nil, malformed("error decoding YAML: the apply configuration is empty; an object is expected")
	}
	out, err := normalizeNumbers(m)
	if err != nil {
		return nil, malformed("error decoding YAML: %v", err)
	}
	return out.(map[string]any), nil
}

// StrictApplyConfigError reports duplicate fields in an apply body, as kube's
// fieldValidation=Strict|Warn check (yaml.UnmarshalStrict) finds them: nil when there
// are none.
func StrictApplyConfigError(data []byte) error {
	if _, err := yaml.YAMLToJSONStrict(data); err != nil {
		return fmt.Errorf("error strict decoding YAML: %w", err)
	}
	return nil
}

// normalizeNumbers replaces json.Number with int64 or float64 throughout v.
func normalizeNumbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number %s out of range", x)
		}
		return f, nil
	case map[string]any:
		for k, e := range x {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case []any:
		for i, e := range x {
			n, err := normalizeNumbers(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	}
	return v, nil
}
