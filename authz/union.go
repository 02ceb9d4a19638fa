package authz

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// Union asks each in order; the first that allows wins; when none allows, the
// reasons are joined with ", " (kube's union authorizer wording) and errors joined.
// An authorizer's error does not stop the others from being asked, as in kube, so a
// failing webhook behind an allowing RBAC costs nothing.
func Union(as ...Authorizer) Authorizer {
	return union(slices.Clone(as))
}

type union []Authorizer

// Authorize implements Authorizer.
func (u union) Authorize(ctx context.Context, a Attributes) (bool, string, error) {
	var (
		reasons []string
		errs    []error
	)
	for _, az := range u {
		allowed, reason, err := az.Authorize(ctx, a)
		if allowed {
			return true, reason, nil
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return false, strings.Join(reasons, ", "), errors.Join(errs...)
}

// AlwaysAllowPaths allows non-resource requests to these paths (kube's
// --authorization-always-allow-paths: exact, or prefix when ending in "*"). Like kube it
// compares paths without their leading "/", so "/" allows only the root. A "*" anywhere
// but at the end, which kube refuses, is an ordinary character here and matches
// nothing a client would send. Resource requests are never allowed by it.
func AlwaysAllowPaths(paths ...string) Authorizer {
	p := pathAllower{exact: map[string]bool{}}
	for _, path := range paths {
		path = strings.TrimPrefix(path, "/")
		if prefix, ok := strings.CutSuffix(path, "*"); ok && path != "" {
			p.prefixes = append(p.prefixes, prefix)
			continue
		}
		p.exact[path] = true
	}
	return p
}

type pathAllower struct {
	exact    map[string]bool
	prefixes []string
}

// Authorize implements Authorizer.
func (p pathAllower) Authorize(_ context.Context, a Attributes) (bool, string, error) {
	if a.ResourceRequest {
		return false, "", nil
	}
	path := strings.TrimPrefix(a.Path, "/")
	if p.exact[path] {
		return true, "", nil
	}
	for _, prefix := range p.prefixes {
		if strings.HasPrefix(path, prefix) {
			return true, "", nil
		}
	}
	return false, "", nil
}

// PrivilegedGroups allows every request of a member of one of groups (kube's
// system:masters authorizer).
func PrivilegedGroups(groups ...string) Authorizer {
	return privilegedGroups(slices.Clone(groups))
}

type privilegedGroups []string

// Authorize implements Authorizer.
func (g privilegedGroups) Authorize(_ context.Context, a Attributes) (bool, string, error) {
	if a.User == nil {
		return false, "", nil
	}
	for _, group := range a.User.Groups {
		if slices.Contains(g, group) {
			return true, "", nil
		}
	}
	return false, "", nil
}
