package storage

import (
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// CoreGroupSegment is the key segment that stands for the legacy core group "".
const CoreGroupSegment = "core"

func groupSegment(group string) string {
	if group == "" {
		return CoreGroupSegment
	}
	return group
}

// Key returns the key of one object: "/<group>/<resource>/<namespace>/<name>", or
// "/<group>/<resource>/<name>" when namespace is "" (a cluster-scoped object).
func Key(gr scheme.GroupResource, namespace, name string) string {
	var b strings.Builder
	b.Grow(4 + len(gr.Group) + len(gr.Resource) + len(namespace) + len(name))
	b.WriteByte('/')
	b.WriteString(groupSegment(gr.Group))
	b.WriteByte('/')
	b.WriteString(gr.Resource)
	b.WriteByte('/')
	if namespace != "" {
		b.WriteString(namespace)
		b.WriteByte('/')
	}
	b.WriteString(name)
	return b.String()
}

// Prefix returns the prefix of a collection: "/<group>/<resource>/" for every namespace
// (namespace "") or "/<group>/<resource>/<namespace>/" for one namespace.
func Prefix(gr scheme.GroupResource, namespace string) string {
	p := "/" + groupSegment(gr.Group) + "/" + gr.Resource + "/"
	if namespace != "" {
		p += namespace + "/"
	}
	return p
}

// EnsurePrefix returns key with a trailing "/" added if it lacks one.
func EnsurePrefix(key string) string {
	if strings.HasSuffix(key, "/") {
		return key
	}
	return key + "/"
}
