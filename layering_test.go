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
		// The lifecycle and the write rules of the built-in kinds are below HTTP; kube's
		// Status errors are below both.
		{"./registry/...", []string{"rest"}},
		{"./apierrors", []string{"rest", "registry", "patch", "codec"}},
		// builtin registers the built-in kinds; their write rules are registry/strategies.
		{"./builtin", []string{"rest", "registry", "patch", "authz"}},
		// The packages of types (every package under builtin/) hold kinds and names only.
		{"./builtin/.../v...", []string{"rest", "registry", "patch", "codec", "conversion", "authn", "authz"}},
		// CEL is plugged in through a hook from the cel module (its own go.mod), so a
		// program that imports apikit without it links no cel-go; the commands that check
		// rules (examples/testenv, examples/widgets) are modules of their own.
		{"./...", []string{"cel", "github.com/google/cel-go", "cel.dev/expr"}},
	} {
		for _, pkg := range expand(t, tt.pkgs) {
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

// expand lists the packages of patterns, one go list pattern each, so that a group
// version added under builtin/ is held without a change here.
func expand(t *testing.T, patterns string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, strings.Fields(patterns)...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", patterns, err)
	}
	return strings.Fields(string(out))
}
