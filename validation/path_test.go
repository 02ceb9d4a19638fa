package validation

import "testing"

func TestPath_StringRendersLikeKubernetes(t *testing.T) {
	var nilPath *Path
	tests := []struct {
		name string
		path *Path
		want string
	}{
		{"root alone", NewPath("spec"), "spec"},
		{"root with more names", NewPath("metadata", "name"), "metadata.name"},
		{"child chain", NewPath("spec").Child("template", "spec").Child("containers"), "spec.template.spec.containers"},
		{"index then child", NewPath("spec", "parts").Index(2).Child("name"), "spec.parts[2].name"},
		{"map key is not quoted", NewPath("metadata", "labels").Key("app"), "metadata.labels[app]"},
		{"key with dots and slashes", NewPath("metadata", "annotations").Key("example.com/a.b"), "metadata.annotations[example.com/a.b]"},
		{"nested subscripts", NewPath("m").Key("k").Index(0).Index(1), "m[k][0][1]"},
		{"subscript of nil path", nilPath.Index(3), "[3]"},
		{"child of nil path is a root", nilPath.Child("a", "b"), "a.b"},
		{"nil path", nilPath, "<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.path.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPath_ChildrenShareButDoNotAlterTheirParent(t *testing.T) {
	parent := NewPath("spec", "items")
	a := parent.Index(0).Child("name")
	b := parent.Index(1).Child("value")
	if got := a.String(); got != "spec.items[0].name" {
		t.Errorf("a = %q", got)
	}
	if got := b.String(); got != "spec.items[1].value" {
		t.Errorf("b = %q", got)
	}
	if got := parent.String(); got != "spec.items" {
		t.Errorf("parent changed to %q", got)
	}
	if got := b.Root().String(); got != "spec" {
		t.Errorf("Root() = %q, want spec", got)
	}
}
