// Package rbacfile reads RBAC policy manifests (YAML or JSON, as kubectl writes them)
// into an authz.RBAC. It is apart from package authz so that authz, a leaf every server
// imports, needs no YAML or JSON codec.
package rbacfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apikit-dev/apikit/authz"

	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// Load returns an RBAC authorizer with the rules of a manifest: multi-document YAML
// (or JSON) of rbac.authorization.k8s.io/v1 Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings, their list kinds, or a v1 List of those kinds (what kubectl get
// -o yaml writes). Empty documents are skipped. Any other kind, and unknown or repeated
// fields, are errors naming the document (counted from 1): a misspelt resourceNames
// must not silently widen a rule.
func Load(r io.Reader) (*authz.RBAC, error) {
	docs := codec.NewYAMLReader(r)
	var objs []scheme.Object
	for n := 1; ; n++ {
		doc, err := docs.Next()
		if errors.Is(err, io.EOF) {
			return authz.NewRBAC(objs...)
		}
		if err != nil {
			return nil, fmt.Errorf("rbacfile: reading RBAC objects: %w", err)
		}
		j, issues, err := codec.YAMLToJSON(doc)
		if err == nil {
			err = issues.Err()
		}
		if err == nil {
			objs, err = appendRBACObjects(objs, j, "")
		}
		if err != nil {
			return nil, fmt.Errorf("rbacfile: RBAC document %d: %w", n, err)
		}
	}
}

// rbacKinds are the kinds Load reads, with a new value of each; the list kinds
// hold their items in the same way as a v1 List.
var rbacKinds = map[string]func() scheme.Object{
	"Role":               func() scheme.Object { return &rbacv1.Role{} },
	"ClusterRole":        func() scheme.Object { return &rbacv1.ClusterRole{} },
	"RoleBinding":        func() scheme.Object { return &rbacv1.RoleBinding{} },
	"ClusterRoleBinding": func() scheme.Object { return &rbacv1.ClusterRoleBinding{} },
}

// appendRBACObjects appends the RBAC objects of one JSON document to objs. itemKind is
// the kind of an item of a typed list, whose items may leave out apiVersion and kind.
func appendRBACObjects(objs []scheme.Object, j []byte, itemKind string) ([]scheme.Object, error) {
	if bytes.Equal(bytes.TrimSpace(j), []byte("null")) {
		return objs, nil
	}
	var head struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(j, &head); err != nil {
		return nil, fmt.Errorf("not a Kubernetes object: %w", err)
	}
	if head.APIVersion == "" && head.Kind == "" && itemKind != "" {
		head.APIVersion, head.Kind = rbacv1.SchemeGroupVersion.String(), itemKind
	}
	rbac := head.APIVersion == rbacv1.SchemeGroupVersion.String()
	if newObj, ok := rbacKinds[head.Kind]; ok && rbac {
		obj := newObj()
		issues, err := codec.Unmarshal(j, obj)
		if err == nil {
			err = issues.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", head.Kind, obj.GetName(), err)
		}
		return append(objs, obj), nil
	}
	listOf, _ := strings.CutSuffix(head.Kind, "List")
	if _, typedList := rbacKinds[listOf]; head.APIVersion == "v1" && head.Kind == "List" || rbac && typedList {
		if !rbac {
			listOf = ""
		}
		for i, item := range head.Items {
			var err error
			if objs, err = appendRBACObjects(objs, item, listOf); err != nil {
				return nil, fmt.Errorf("items[%d]: %w", i, err)
			}
		}
		return objs, nil
	}
	return nil, fmt.Errorf("%s %q is not an rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding or ClusterRoleBinding", head.APIVersion, head.Kind)
}
