package apiextensions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/codec"
)

// manifestExtensions are the file names a directory is read for, as kubectl apply -f DIR
// reads them.
var manifestExtensions = []string{".yaml", ".yml", ".json"}

// Load reads CustomResourceDefinitions from files and directories. A file holds one or
// more YAML documents separated by "---" lines, or JSON; a directory is read like
// kubectl apply -f DIR reads it: its .yaml, .yml and .json files in name order, not
// descending into subdirectories (kubebuilder's config/crd/bases is such a directory;
// config/crd itself also holds kustomize files, which are not CRDs). Every CRD gets
// kube's defaults (SetDefaults); none is validated (Install does that). Errors name
// the file and, within it, the document.
func Load(paths ...string) ([]*CustomResourceDefinition, error) {
	var out []*CustomResourceDefinition
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("apiextensions: %s: %w", p, err)
		}
		crds, err := load(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), func(name string) string {
			return filepath.Join(filepath.Dir(p), filepath.FromSlash(name))
		})
		if err != nil {
			return nil, err
		}
		out = append(out, crds...)
	}
	return out, nil
}

// LoadFS reads CustomResourceDefinitions from root in fsys, a file or a directory, as
// Load does (an embed.FS of manifests, for example). Errors name files by their path in
// fsys.
func LoadFS(fsys fs.FS, root string) ([]*CustomResourceDefinition, error) {
	return load(fsys, root, func(name string) string { return name })
}

func load(fsys fs.FS, root string, display func(string) string) ([]*CustomResourceDefinition, error) {
	info, err := fs.Stat(fsys, root)
	if err != nil {
		return nil, fmt.Errorf("apiextensions: %s: %w", display(root), err)
	}
	files := []string{root}
	if info.IsDir() {
		entries, err := fs.ReadDir(fsys, root)
		if err != nil {
			return nil, fmt.Errorf("apiextensions: %s: %w", display(root), err)
		}
		files = files[:0]
		for _, e := range entries {
			if !e.IsDir() && slices.Contains(manifestExtensions, strings.ToLower(path.Ext(e.Name()))) {
				files = append(files, path.Join(root, e.Name()))
			}
		}
	}
	var out []*CustomResourceDefinition
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("apiextensions: %s: %w", display(f), err)
		}
		crds, err := Decode(data)
		if err != nil {
			return nil, fmt.Errorf("apiextensions: %s: %w", display(f), err)
		}
		out = append(out, crds...)
	}
	return out, nil
}

// Decode reads the CustomResourceDefinitions of one manifest: YAML documents separated
// by "---" lines, or JSON. A document may also be a CustomResourceDefinitionList or a
// v1 List of CRDs (what kubectl get crd -o yaml writes). Empty documents are skipped;
// any other kind, and unknown or repeated fields, are errors naming the document
// (counted from 1) and the field, so that a typo never drops part of a schema silently.
// Every CRD gets kube's defaults (SetDefaults).
func Decode(data []byte) ([]*CustomResourceDefinition, error) {
	r := codec.NewYAMLReader(bytes.NewReader(data))
	var out []*CustomResourceDefinition
	for n := 1; ; n++ {
		doc, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		crds, err := decodeDocument(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		out = append(out, crds...)
	}
}

func decodeDocument(doc []byte) ([]*CustomResourceDefinition, error) {
	j, issues, err := codec.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	if err := issues.Err(); err != nil {
		return nil, err
	}
	if bytes.Equal(bytes.TrimSpace(j), []byte("null")) {
		return nil, nil
	}
	var head struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(j, &head); err != nil {
		return nil, fmt.Errorf("not a Kubernetes object: %w", err)
	}
	switch {
	case head.APIVersion == GroupVersion.String() && head.Kind == "CustomResourceDefinition":
		crd, err := decodeCRD(j)
		if err != nil {
			return nil, err
		}
		return []*CustomResourceDefinition{crd}, nil
	case head.APIVersion == GroupVersion.String() && head.Kind == "CustomResourceDefinitionList",
		head.APIVersion == "v1" && head.Kind == "List":
		var out []*CustomResourceDefinition
		for i, item := range head.Items {
			crds, err := decodeDocument(item)
			if err != nil {
				return nil, fmt.Errorf("items[%d]: %w", i, err)
			}
			out = append(out, crds...)
		}
		return out, nil
	case head.APIVersion == "apiextensions.k8s.io/v1beta1" && head.Kind == "CustomResourceDefinition":
		return nil, fmt.Errorf("apiextensions.k8s.io/v1beta1 CustomResourceDefinitions are not supported (Kubernetes removed them in 1.22); convert it to apiextensions.k8s.io/v1")
	}
	return nil, fmt.Errorf("%s %s is not an apiextensions.k8s.io/v1 CustomResourceDefinition", orUnset(head.APIVersion), orUnset(head.Kind))
}

func orUnset(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func decodeCRD(j []byte) (*CustomResourceDefinition, error) {
	crd := &CustomResourceDefinition{}
	issues, err := codec.Unmarshal(j, crd)
	if err != nil {
		return nil, err
	}
	if err := issues.Err(); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %q: %w", crd.Name, err)
	}
	SetDefaults(crd)
	return crd, nil
}
