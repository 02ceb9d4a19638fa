package apikit_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeSection returns the first ```go block under the README heading.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	_, block, ok := strings.Cut(section, "```go\n")
	if !ok {
		t.Fatalf("README.md section %q has no go code block", heading)
	}
	block, _, _ = strings.Cut(block, "```\n")
	return block
}

// TestREADME_DefineYourOwnKindIsCompiled keeps the README's program honest: all of it
// but main is rest/example_test.go verbatim (where ExampleNew runs it and checks its
// output), and the whole program builds.
func TestREADME_DefineYourOwnKindIsCompiled(t *testing.T) {
	program := readmeSection(t, "## Define your own kind")
	_, decls, ok := strings.Cut(program, "\n)\n\n")
	if !ok {
		t.Fatal("README.md's program has no import block")
	}
	decls, _, ok = strings.Cut(decls, "\nfunc main() {")
	if !ok {
		t.Fatal("README.md's program has no func main")
	}
	example, err := os.ReadFile(filepath.Join("rest", "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(example), strings.TrimSpace(decls)) {
		t.Errorf("README.md's program (but main) is not in rest/example_test.go; copy the one to the other:\n%s", decls)
	}

	if testing.Short() {
		t.Skip("builds a program with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	// An overlay adds the program to a package directory that does not exist, so the
	// build sees this module (and its go.work) without writing into the source tree.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	mainFile, overlayFile := filepath.Join(tmp, "main.go"), filepath.Join(tmp, "overlay.json")
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(wd, "readme_define_your_own_kind", "main.go"): mainFile,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mainFile, []byte(program), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlayFile, overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goCmd, "build", "-overlay", overlayFile, "-o", filepath.Join(tmp, "book"), "./readme_define_your_own_kind")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("README.md's program does not build: %v\n%s", err, out)
	}
}

// repoPath matches what the README names as a path of this repository: a top-level
// directory of it (or ./ before one), then path elements, in or after code.
var repoPath = regexp.MustCompile("(?:^|[\\s`(\\[])\\.?/?((?:\\.ci|bench|codec|conversion|e2e|examples|patch|rest|scheme|storage|validation|watch)(?:/[\\w.-]*[\\w-])*)")

// TestREADME_PathsExist checks that every file and directory of this repository the
// README names (commands, manifests, packages, links) exists.
func TestREADME_PathsExist(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	matches := repoPath.FindAllStringSubmatch(string(readme), -1)
	if len(matches) < 20 {
		t.Fatalf("found %d paths in README.md, want the 20 or more it names", len(matches))
	}
	for _, m := range matches {
		path := strings.TrimSuffix(m[1], "/...")
		if _, err := os.Stat(filepath.FromSlash(path)); err != nil {
			t.Errorf("README.md names %s: %v", m[1], err)
		}
	}
}
