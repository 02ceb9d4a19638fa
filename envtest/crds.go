package envtest

import (
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
// their common JSON form, which apiextensions.Decode reads strictly (and defaults) as it
// reads a manifest.
func convertCRD(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	c := crd.DeepCopy()
	c.APIVersion, c.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition" // often unset on Go literals
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("envtest: encoding CRD %s: %w", crd.Name, err)
	}
	crds, err := apiextensions.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("envtest: converting CRD %s: %w", crd.Name, err)
	}
	if len(crds) != 1 {
		return nil, fmt.Errorf("envtest: converting CRD %s: got %d CRDs, want 1", crd.Name, len(crds))
	}
	return crds[0], nil
}
