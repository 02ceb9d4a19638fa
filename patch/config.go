package patch

import (
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
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
	v, err := scheme.DecodeJSONValue(js)
	if err != nil {
		return nil, malformed("error decoding YAML: %v", err)
	}
	if v == nil {
		return nil, malformed("error decoding YAML: the apply configuration is empty; an object is expected")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, malformed("error decoding YAML: the apply configuration is a %T; an object is expected", v)
	}
	return m, nil
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
