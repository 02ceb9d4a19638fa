package testapi_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// examplesPath is the import path prefix of the examples, which sit on top of every
// other package: users copy them, and only they and the e2e module may import them.
const examplesPath = "github.com/apikit-dev/apikit/examples"

// examplesImports returns "file: import" for every import of the examples by a Go file
// (test or not) under root, outside root's examples/ and e2e/ and hidden directories.
func examplesImports(root string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == "examples" || rel == "e2e" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if p == examplesPath || strings.HasPrefix(p, examplesPath+"/") {
				found = append(found, filepath.ToSlash(rel)+": "+p)
			}
		}
		return nil
	})
	return found, err
}

// The core packages and their tests build on internal/testapi, never on the examples,
// so that nothing below the top of the house depends on it.
func TestCorePackages_ImportNoExamples(t *testing.T) {
	found, err := examplesImports(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: only examples/ and e2e/ may import the examples; use internal/testapi", f)
	}
}

func TestExamplesImports_NamesTheFileAndSkipsExamplesAndE2E(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                   "module github.com/apikit-dev/apikit\n",
		"rest/a_test.go":           "package rest_test\n\nimport api \"" + examplesPath + "/widgets/api\"\n",
		"rest/b.go":                "package rest\n\nimport _ \"" + examplesPath + "\"\n",
		"rest/c.go":                "package rest\n\nimport _ \"" + examplesPath + "fake/x\"\n",
		"examples/widgets/main.go": "package main\n\nimport _ \"" + examplesPath + "/widgets/api\"\n",
		"e2e/x_test.go":            "package e2e\n\nimport _ \"" + examplesPath + "/widgets/api\"\n",
		".git/hooks/h.go":          "package h\n\nimport _ \"" + examplesPath + "/widgets/api\"\n",
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	found, err := examplesImports(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"rest/a_test.go: " + examplesPath + "/widgets/api", "rest/b.go: " + examplesPath}
	if !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
	}
}
