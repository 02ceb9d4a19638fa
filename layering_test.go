package apikit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering_PackagesImportOnlyDownwards holds the package map of DESIGN.md where a
// mistake is easy to make and costly to undo: the leaves (who a user is, what they may
// do, audit events, metrics, kubeconfigs) stay importable without the HTTP handler,
// the patch engine, the codecs or structured-merge-diff, and the packages of built-in
// types import neither the handler nor the registry that serve them.
func TestLayering_PackagesImportOnlyDownwards(t *testing.T) {
	const module = "github.com/apikit-dev/apikit/"
	for _, tt := range []struct {
		pkgs      string
		forbidden []string
	}{
		{"./authn ./authz ./audit ./metrics ./kubeconfig", []string{"rest", "registry", "patch", "codec", "sigs.k8s.io/structured-merge-diff"}},
		{"./storage ./watch ./scheme", []string{"rest", "registry", "patch", "codec"}},
	} {
		for _, pkg := range strings.Fields(tt.pkgs) {
			out, err := exec.Command("go", "list", "-deps", pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", pkg, err)
			}
			for _, dep := range strings.Fields(string(out)) {
				for _, f := range tt.forbidden {
					if !strings.Contains(f, ".") {
						f = module + f
					}
					if dep == f || strings.HasPrefix(dep, f+"/") {
						t.Errorf("%s depends on %s", pkg, dep)
					}
				}
			}
		}
	}
}
