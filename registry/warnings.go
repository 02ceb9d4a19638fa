package registry

import "context"

// AddWarning adds warnings to the answer of the write whose strategy hook or admission
// plugin ctx belongs to, as kube-apiserver's warning.AddWarning does for its admission
// plugins (PodSecurity's "would violate PodSecurity ..."): they go where the
// strategies' WarningsOnCreate and WarningsOnUpdate go (Request.Warnings, which rest
// sends as Warning headers), and a retried update drops those of its earlier tries.
// Outside a call of a Store it does nothing.
func AddWarning(ctx context.Context, texts ...string) {
	if c, ok := ctx.Value(callKey{}).(*call); ok && c != nil && c.warn != nil {
		c.warn(texts...)
	}
}
