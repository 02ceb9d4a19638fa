package apiextensions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/webhook"
)

// conversionReview is a ConversionReview of apiextensions.k8s.io/v1 or v1beta1, whose
// wire shapes are the same: what is sent to a conversion webhook and what it answers.
type conversionReview struct {
	APIVersion string              `json:"apiVersion,omitempty"`
	Kind       string              `json:"kind,omitempty"`
	Request    *conversionRequest  `json:"request,omitempty"`
	Response   *conversionResponse `json:"response,omitempty"`
}

type conversionRequest struct {
	UID               scheme.UID `json:"uid"`
	DesiredAPIVersion string     `json:"desiredAPIVersion"`
	Objects           []any      `json:"objects"`
}

type conversionResponse struct {
	UID              scheme.UID        `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           conversionResult  `json:"result"`
}

// conversionResult is the part of the response's Status a conversion reads; Metadata
// is there for the empty response kube-apiserver sends along with each request.
type conversionResult struct {
	Metadata struct{} `json:"metadata"`
	Status   string   `json:"status,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// NewWebhookConverter returns the converter that calls the conversion webhook of crd
// (spec.conversion.strategy Webhook) as kube-apiserver's apiextensions does: one
// ConversionReview per conversion, in the first of the CRD's conversionReviewVersions
// that apikit speaks (v1, v1beta1), with a new request uid; the answer is checked for
// its kind and uid (v1), its result, the number, apiVersion and kind of the converted
// objects and their name, namespace and uid, and only their labels and annotations
// are kept of their metadata.
//
// A failure is a 500 Status with kube's message (`conversion webhook for
// stable.example.com/v1, Kind=CronTab failed: Post "https://...": ...`), the answer
// kube-apiserver gives a read or a write that needed the conversion; nothing is stored.
// The webhook client is built here (a bad caBundle is an error now); opts bound each
// call and resolve a Service.
func NewWebhookConverter(crd *CustomResourceDefinition, opts webhook.Options) (conversion.UnstructuredConverter, error) {
	wh := crd.Spec.Conversion.Webhook
	if wh == nil || wh.ClientConfig == nil {
		return nil, fmt.Errorf("apiextensions: CustomResourceDefinition %q has no spec.conversion.webhook.clientConfig", crd.Name)
	}
	cc := webhook.ClientConfig{CABundle: wh.ClientConfig.CABundle}
	if wh.ClientConfig.URL != nil {
		cc.URL = *wh.ClientConfig.URL
	}
	if svc := wh.ClientConfig.Service; svc != nil {
		cc.Service = &webhook.ServiceReference{Namespace: svc.Namespace, Name: svc.Name}
		if svc.Path != nil {
			cc.Service.Path = *svc.Path
		}
		if svc.Port != nil {
			cc.Service.Port = *svc.Port
		}
	}
	client, err := webhook.New("conversion_webhook_for_"+crd.Name, cc, opts)
	if err != nil {
		return nil, fmt.Errorf("apiextensions: CustomResourceDefinition %q: %w", crd.Name, err)
	}
	c := &webhookConverter{client: client}
	for _, v := range wh.ConversionReviewVersions {
		if v == "v1" || v == "v1beta1" {
			c.reviewVersion = v
			break
		}
	}
	return c.convert, nil
}

type webhookConverter struct {
	client        *webhook.Client
	reviewVersion string // "" when the CRD names none apikit speaks
}

// convert asks the webhook to convert the objects of c, in one ConversionReview, and
// puts its answers in them. A failure is worded as kube's webhookConverter words it,
// for a list (c.List set) by the list's kind and the item's index.
func (c *webhookConverter) convert(cv conversion.UnstructuredConversion) error {
	if len(cv.Objects) == 0 {
		return nil
	}
	first := cv.Objects[0]
	if cv.List.Empty() && len(first.Object) == 2 && first.Object["kind"] != nil && first.Object["apiVersion"] != nil {
		return nil // kube's nopConverter takes an object with nothing but its kind
	}
	of := first.GroupVersionKind() // what kube's messages name: the object's kind, or the list's
	if !cv.List.Empty() {
		of = cv.List
	}
	desired := cv.To.String()
	fail := func(format string, args ...any) error {
		return apierrors.New(500, "", fmt.Sprintf(format, args...), nil)
	}
	if c.reviewVersion == "" {
		return fail("no supported conversion review versions")
	}
	reviewAPIVersion := GroupVersion.Group + "/" + c.reviewVersion
	uid := scheme.NewUID()
	objects := make([]any, len(cv.Objects))
	for i, obj := range cv.Objects {
		objects[i] = obj.Object
	}
	request := conversionReview{
		APIVersion: reviewAPIVersion, Kind: "ConversionReview",
		Request:  &conversionRequest{UID: uid, DesiredAPIVersion: desired, Objects: objects},
		Response: &conversionResponse{},
	}
	var answer conversionReview
	if err := c.client.Call(context.Background(), request, &answer); err != nil {
		var ce *webhook.CallError
		if errors.As(err, &ce) {
			err = ce.Err
		}
		return fail("conversion webhook for %v failed: %v", of, err)
	}
	converted, err := convertedObjectsOf(c.reviewVersion, uid, &answer)
	if err != nil {
		return fail("conversion webhook for %v failed: %v", of, err)
	}
	if len(converted) != len(cv.Objects) {
		return fail("conversion webhook for %v returned %d objects, expected %d", of, len(converted), len(cv.Objects))
	}
	// A list's failures name the item (kube's "invalid converted object at index i"),
	// a single object's are worded apart.
	invalidAt := "invalid converted object at index %d"
	if cv.List.Empty() {
		invalidAt = "invalid object at index %d"
	}
	outs := make([]*scheme.Unstructured, len(converted))
	for i, raw := range converted {
		in := cv.Objects[i]
		out, err := decodeConverted(raw)
		if err != nil {
			if cv.List.Empty() {
				return fail("%v", err)
			}
			return fail("conversion webhook for %v returned "+invalidAt+": %v", of, i, err)
		}
		if got := out.GetAPIVersion(); got != desired {
			return fail("conversion webhook for %v returned "+invalidAt+": invalid groupVersion (expected %v, received %v)", of, i, desired, scheme.FromAPIVersionAndKind(got, "").GroupVersion())
		}
		if got, want := out.GetKind(), in.GetKind(); got != want {
			return fail("conversion webhook for %v returned "+invalidAt+": invalid kind (expected %v, received %v)", of, i, want, got)
		}
		if err := sameIdentity(in, out); err != nil {
			if cv.List.Empty() {
				return fail("conversion webhook for %v returned invalid object: %v", of, err)
			}
			return fail("conversion webhook for %v returned "+invalidAt+": %v", of, i, err)
		}
		if err := keepLabelsAndAnnotations(in, out); err != nil {
			if cv.List.Empty() {
				return fail("conversion webhook for %v returned invalid metadata: %v", of, err)
			}
			return fail("conversion webhook for %v returned invalid metadata in object at index %d: %v", of, i, err)
		}
		outs[i] = out
	}
	for i, out := range outs {
		cv.Objects[i].Object = out.Object
	}
	return nil
}

// convertedObjectsOf checks the answer as kube does for the review version sent: a v1
// answer must be a v1 ConversionReview of the request's uid; either must succeed.
func convertedObjectsOf(version string, uid scheme.UID, answer *conversionReview) ([]json.RawMessage, error) {
	if version == "v1" {
		if answer.APIVersion != GroupVersion.String() || answer.Kind != "ConversionReview" {
			return nil, fmt.Errorf("expected webhook response of %s, Kind=ConversionReview, got %s", GroupVersion.String(), scheme.FromAPIVersionAndKind(answer.APIVersion, answer.Kind))
		}
	}
	if answer.Response == nil {
		return nil, errors.New("no response provided")
	}
	if version == "v1" && answer.Response.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, answer.Response.UID)
	}
	if r := answer.Response.Result; r.Status != "Success" {
		if r.Message != "" {
			return nil, errors.New(r.Message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", r.Status)
	}
	return answer.Response.ConvertedObjects, nil
}

// decodeConverted reads a converted object as an unstructured object, which must be
// a JSON object with a kind.
func decodeConverted(raw json.RawMessage) (*scheme.Unstructured, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if kind, _ := m["kind"].(string); kind == "" {
		return nil, fmt.Errorf("Object 'Kind' is missing in '%s'", raw)
	}
	return &scheme.Unstructured{Object: m}, nil
}

// sameIdentity is kube's validateConvertedObject: a conversion keeps what the object is.
func sameIdentity(in, out *scheme.Unstructured) error {
	if e, a := in.GetKind(), out.GetKind(); e != a {
		return fmt.Errorf("must have the same kind: %v != %v", e, a)
	}
	if e, a := in.GetName(), out.GetName(); e != a {
		return fmt.Errorf("must have the same name: %v != %v", e, a)
	}
	if e, a := in.GetNamespace(), out.GetNamespace(); e != a {
		return fmt.Errorf("must have the same namespace: %v != %v", e, a)
	}
	if e, a := in.GetUID(), out.GetUID(); e != a {
		return fmt.Errorf("must have the same UID: %v != %v", e, a)
	}
	return nil
}

// keepLabelsAndAnnotations is kube's restoreObjectMeta: out gets the metadata of in,
// except its labels and annotations, which are the webhook's when they are valid.
func keepLabelsAndAnnotations(in, out *scheme.Unstructured) error {
	raw, found := out.Object["metadata"]
	if !found {
		return errors.New("missing metadata in converted object")
	}
	answered, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata of type %s in converted object", jsonTypeName(raw))
	}
	restored := map[string]any{}
	if original, ok := in.Object["metadata"].(map[string]any); ok {
		restored, _ = scheme.DeepCopyJSONValue(original).(map[string]any)
	}
	for _, field := range []string{"labels", "annotations"} {
		value, found := answered[field]
		if !found || value == nil {
			delete(restored, field)
			continue
		}
		got, ok := value.(map[string]any)
		if !ok {
			return fmt.Errorf("invalid metadata.%s of type %s in converted object", field, jsonTypeName(value))
		}
		had, _ := restored[field].(map[string]any)
		changed := len(had) != len(got)
		strs := make(map[string]string, len(got))
		for k, v := range got {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("metadata.%s[%s] must be a string, but is %s in converted object", field, k, jsonTypeName(v))
			}
			if old, ok := had[k].(string); !ok || old != s {
				changed = true
			}
			strs[k] = s
		}
		if changed {
			var errs validation.ErrorList
			if field == "labels" {
				errs = validation.ValidateLabels(strs, validation.NewPath("metadata", "labels"))
			} else {
				// kube's path says "annotation" here.
				errs = validation.ValidateAnnotations(strs, validation.NewPath("metadata", "annotation"))
			}
			if len(errs) > 0 {
				return errors.New(errs.Error())
			}
		}
		restored[field] = got
	}
	out.Object["metadata"] = restored
	return nil
}

// jsonTypeName names a decoded JSON value's type as kube's %T of the same value does.
func jsonTypeName(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case float64:
		if v == math.Trunc(v) {
			return "int64" // kube's JSON decoding makes integers int64
		}
		return "float64"
	case bool:
		return "bool"
	case []any:
		return "[]interface {}"
	case map[string]any:
		return "map[string]interface {}"
	}
	return fmt.Sprintf("%T", v)
}
