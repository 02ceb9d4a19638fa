package patch

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"sigs.k8s.io/yaml"
)

// DecodeApplyConfig reads the body of an application/apply-patch+yaml request (YAML or
// JSON) into an unstructured object, numbers as int64 when integral and float64
// otherwise, within codec.DefaultYAMLJSONLimit; see [DecodeApplyConfigWithin].
func DecodeApplyConfig(data []byte) (map[string]any, error) {
	cfg, _, err := DecodeApplyConfigWithin(data, codec.DefaultYAMLJSONLimit)
	return cfg, err
}

// DecodeApplyConfigWithin reads an apply body as [DecodeApplyConfig] does, parsing it
// once. A body that is not a YAML object is ErrMalformed with kube's message ("error
// decoding YAML: ..."); one whose JSON would be over limit bytes (YAML's aliases
// repeat what they name) is ErrTooLarge with kube's body-limit message ("limit is
// 3145728"). duplicates is nil when no key is repeated, else the error kube's
// fieldValidation=Strict|Warn check (yaml.UnmarshalStrict) reports, word for word.
func DecodeApplyConfigWithin(data []byte, limit int64) (cfg map[string]any, duplicates error, err error) {
	js, issues, err := codec.YAMLToJSONWithin(data, limit)
	if err != nil {
		var tl *codec.TooLargeError
		if errors.As(err, &tl) {
			return nil, nil, &Error{Kind: ErrTooLarge, Message: "limit is " + strconv.FormatInt(limit, 10)}
		}
		return nil, nil, malformed("error decoding YAML: %v", err)
	}
	v, err := scheme.DecodeJSONValue(js)
	if err != nil {
		return nil, nil, malformed("error decoding YAML: %v", err)
	}
	if v == nil {
		return nil, nil, malformed("error decoding YAML: the apply configuration is empty; an object is expected")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, malformed("error decoding YAML: the apply configuration is a %T; an object is expected", v)
	}
	if len(issues) > 0 {
		// Kube's text names the lines of the repeated keys, which only go-yaml's strict
		// decoding tells: a second decoding, of a body with repeated keys only, whose
		// size is known to be within the limit.
		duplicates = StrictApplyConfigError(data)
	}
	return m, duplicates, nil
}

// StrictApplyConfigError reports duplicate fields in an apply body, as kube's
// fieldValidation=Strict|Warn check (yaml.UnmarshalStrict) finds them: nil when there
// are none. It decodes the body without a size limit: call it on a body
// [DecodeApplyConfigWithin] read (which calls it when there are duplicates).
func StrictApplyConfigError(data []byte) error {
	if _, err := yaml.YAMLToJSONStrict(data); err != nil {
		return fmt.Errorf("error strict decoding YAML: %w", err)
	}
	return nil
}
