package envtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

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
