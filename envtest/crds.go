package envtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"github.com/apikit-dev/apikit/apiextensions"
)

// loadCRDs returns the CRDs of the environment in apikit's types: those of the paths
// (CRDDirectoryPaths and CRDInstallOptions.Paths), then those given as objects.
func (te *Environment) loadCRDs() ([]*apiextensions.CustomResourceDefinition, error) {
	errorIfMissing := te.ErrorIfCRDPathMissing || te.CRDInstallOptions.ErrorIfPathMissing
	var out []*apiextensions.CustomResourceDefinition
	for _, p := range append(append([]string(nil), te.CRDDirectoryPaths...), te.CRDInstallOptions.Paths...) {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) && !errorIfMissing {
			continue // controller-runtime skips missing paths unless told otherwise
		}
		crds, err := apiextensions.Load(p)
		if err != nil {
			return nil, fmt.Errorf("envtest: loading CRDs: %w", err)
		}
		out = append(out, crds...)
	}
	for _, crd := range append(append([]*apiextensionsv1.CustomResourceDefinition(nil), te.CRDs...), te.CRDInstallOptions.CRDs...) {
		c, err := convertCRD(crd)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// convertCRD turns a CRD of k8s.io/apiextensions-apiserver into apikit's type through
// their common JSON form. Unknown fields are errors, as in a manifest, so that a field
// apikit does not know is never dropped silently; the result gets kube's defaults.
func convertCRD(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	data, err := json.Marshal(crd)
	if err != nil {
		return nil, fmt.Errorf("envtest: encoding CRD %s: %w", crd.Name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var out apiextensions.CustomResourceDefinition
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("envtest: converting CRD %s: %w", crd.Name, err)
	}
	out.APIVersion, out.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition" // often unset on Go literals
	apiextensions.SetDefaults(&out)
	return &out, nil
}

// pointConversionAtWebhookServer gives the CRDs the conversion controller-runtime's
// envtest gives them once the webhook options are prepared: a CRD whose kind is
// convertible in s (a Hub and its spokes, controller-runtime's conversion.IsConvertible),
// or every CRD with IgnoreSchemeConvertible, converts through the webhook server at
// https://<host>:<port>/convert (ConversionReview v1 or v1beta1) trusting
// LocalServingCAData; any other CRD loses its conversion webhook (strategy None), so
// that a manifest pointing at a Service the test does not run still serves. CRDs that
// preserve unknown fields are left as they are.
func pointConversionAtWebhookServer(crds []*apiextensions.CustomResourceDefinition, s *runtime.Scheme, o *WebhookInstallOptions) error {
	if len(o.LocalServingCAData) == 0 || len(crds) == 0 {
		return nil
	}
	hostPort, err := o.generateHostPort()
	if err != nil {
		return err
	}
	url := "https://" + hostPort + "/convert"
	for _, crd := range crds {
		if crd.Spec.PreserveUnknownFields {
			continue
		}
		if !o.IgnoreSchemeConvertible && !convertibleIn(s, schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}) {
			crd.Spec.Conversion = &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter}
			continue
		}
		crd.Spec.Conversion = &apiextensions.CustomResourceConversion{
			Strategy: apiextensions.WebhookConverter,
			Webhook: &apiextensions.WebhookConversion{
				ClientConfig:             &apiextensions.WebhookClientConfig{URL: &url, CABundle: o.LocalServingCAData},
				ConversionReviewVersions: []string{"v1", "v1beta1"},
			},
		}
	}
	return nil
}

// convertibleIn tells whether gk's versions in s convert through a hub.
func convertibleIn(s *runtime.Scheme, gk schema.GroupKind) bool {
	for gvk := range s.AllKnownTypes() {
		if gvk.GroupKind() != gk {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			return false
		}
		ok, err := conversion.IsConvertible(s, obj)
		return ok && err == nil
	}
	return false
}
