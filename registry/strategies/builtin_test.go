package strategies

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/authn"
	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/validation"
)

func causes(errs validation.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestPrepareSecret_MergesStringDataIntoDataAndDefaultsType(t *testing.T) {
	s := &corev1.Secret{Data: map[string][]byte{"a": []byte("old"), "b": []byte("keep")}, StringData: map[string]string{"a": "new", "c": "added"}}
	Builtin()[corev1.Secrets].(rest.StrategyFor[*corev1.Secret]).PrepareForCreate(context.Background(), s)
	want := &corev1.Secret{Data: map[string][]byte{"a": []byte("new"), "b": []byte("keep"), "c": []byte("added")}, Type: "Opaque"}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("prepared secret (-want +got):\n%s", d)
	}
}

func TestValidateConfigMap_KeysAsKubeIsConfigMapKey(t *testing.T) {
	tests := []struct {
		name string
		cm   corev1.ConfigMap
		want []string
	}{
		{"good keys pass", corev1.ConfigMap{Data: map[string]string{"a.b_c-D": "x"}, BinaryData: map[string][]byte{"bin": nil}}, nil},
		{"a slash is refused", corev1.ConfigMap{Data: map[string]string{"a/b": "x"}}, []string{
			`data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`}},
		{"dot-dot prefix is refused", corev1.ConfigMap{BinaryData: map[string][]byte{"..x": nil}}, []string{`binaryData[..x]: Invalid value: "..x": must not start with '..'`}},
		{"a key in both maps is a duplicate", corev1.ConfigMap{Data: map[string]string{"k": ""}, BinaryData: map[string][]byte{"k": nil}}, []string{
			`binaryData[k]: Invalid value: "k": duplicate of key present in data`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(validateConfigMap(&tt.cm))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestValidateUpdate_ImmutableConfigMapsAndSecretsRefuseChanges(t *testing.T) {
	forbidden := func(f string) string { return f + ": Forbidden: field is immutable when `immutable` is set" }
	tests := []struct {
		name string
		got  validation.ErrorList
		want []string
	}{
		{"mutable configmap may change", validateConfigMapUpdate(&corev1.ConfigMap{Data: map[string]string{"a": "2"}}, &corev1.ConfigMap{Data: map[string]string{"a": "1"}}), nil},
		{"immutable configmap keeps data and binaryData", validateConfigMapUpdate(
			&corev1.ConfigMap{Immutable: ptr(true), Data: map[string]string{"a": "2"}, BinaryData: map[string][]byte{"b": {1}}},
			&corev1.ConfigMap{Immutable: ptr(true), Data: map[string]string{"a": "1"}}), []string{forbidden("binaryData"), forbidden("data")}},
		{"immutable cannot be turned off", validateConfigMapUpdate(&corev1.ConfigMap{Immutable: ptr(false)}, &corev1.ConfigMap{Immutable: ptr(true)}), []string{forbidden("immutable")}},
		{"immutable configmap may change labels", validateConfigMapUpdate(&corev1.ConfigMap{Immutable: ptr(true)}, &corev1.ConfigMap{Immutable: ptr(true)}), nil},
		{"immutable secret keeps data", validateSecretUpdate(
			&corev1.Secret{Immutable: ptr(true), Type: "Opaque", Data: map[string][]byte{"a": {2}}},
			&corev1.Secret{Immutable: ptr(true), Type: "Opaque", Data: map[string][]byte{"a": {1}}}), []string{forbidden("data")}},
		{"secret type never changes", validateSecretUpdate(&corev1.Secret{Type: "kubernetes.io/tls"}, &corev1.Secret{Type: "Opaque"}), []string{
			`type: Invalid value: "kubernetes.io/tls": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(tt.got)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestSelfSubjectReview_AnswersWithTheRequestingUser(t *testing.T) {
	user := &authn.User{Name: "alice", UID: "42", Groups: []string{"dev"}, Extra: map[string][]string{"scopes": {"a"}}}
	got, err := selfSubjectReviewStrategy{}.RespondToCreate(context.Background(), user, &authenticationv1.SelfSubjectReview{})
	if err != nil {
		t.Fatal(err)
	}
	want := authenticationv1.UserInfo{Username: "alice", UID: "42", Groups: []string{"dev"}, Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a"}}}
	if d := cmp.Diff(want, got.(*authenticationv1.SelfSubjectReview).Status.UserInfo); d != "" {
		t.Errorf("userInfo (-want +got):\n%s", d)
	}
}
