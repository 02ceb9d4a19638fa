package strategies

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// podPolicyWebhooks is a valid validating configuration as kube's defaults leave it.
func podPolicyWebhooks(change func(c *admissionregistrationv1.ValidatingWebhookConfiguration)) *admissionregistrationv1.ValidatingWebhookConfiguration {
	fail, equivalent, none := admissionregistrationv1.Fail, admissionregistrationv1.Equivalent, admissionregistrationv1.SideEffectClassNone
	all := admissionregistrationv1.AllScopes
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: scheme.ObjectMeta{Name: "pod-policy"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "pods.policy.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Namespace: "policy", Name: "webhook", Path: ptr("/validate"), Port: ptr(int32(443))}},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"CREATE"},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &all}}},
			FailurePolicy: &fail, MatchPolicy: &equivalent, SideEffects: &none, TimeoutSeconds: ptr(int32(10)),
			NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
			AdmissionReviewVersions: []string{"v1"},
			MatchConditions:         []admissionregistrationv1.MatchCondition{{Name: "not-system", Expression: "true"}},
		}}}
	if change != nil {
		change(c)
	}
	return c
}

func TestValidateWebhookConfiguration_KubesMessagesAndPaths(t *testing.T) {
	type config = admissionregistrationv1.ValidatingWebhookConfiguration
	hook := func(c *config) *admissionregistrationv1.ValidatingWebhook { return &c.Webhooks[0] }
	tests := []struct {
		name   string
		change func(c *config)
		want   []string
	}{
		{"a webhook behind a service is valid", nil, nil},
		{"a webhook name has three segments", func(c *config) { hook(c).Name = "pods.example" }, []string{
			`webhooks[0].name: Invalid value: "pods.example": should be a domain with at least three segments separated by dots`}},
		{"webhook names are unique", func(c *config) { c.Webhooks = append(c.Webhooks, c.Webhooks[0]) }, []string{
			`webhooks[1].name: Duplicate value: "pods.policy.example.com"`}},
		{"sideEffects is required", func(c *config) { hook(c).SideEffects = nil }, []string{
			"webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"}},
		{"a new webhook has no side effects", func(c *config) { some := admissionregistrationv1.SideEffectClassSome; hook(c).SideEffects = &some }, []string{
			`webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`}},
		{"admissionReviewVersions is required", func(c *config) { hook(c).AdmissionReviewVersions = nil }, []string{
			"webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"}},
		{"admissionReviewVersions has a known one", func(c *config) { hook(c).AdmissionReviewVersions = []string{"v2", "v2"} }, []string{
			`webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version`,
			`webhooks[0].admissionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1`}},
		{"url and service exclude each other", func(c *config) { hook(c).ClientConfig.URL = ptr("https://a.example.com") }, []string{
			"webhooks[0].clientConfig: Required value: exactly one of url or service is required"}},
		{"a url is https without query", func(c *config) {
			hook(c).ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr("http://a.example.com/x?y=1")}
		}, []string{
			`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
			`webhooks[0].clientConfig.url: Invalid value: "y=1": query parameters are not permitted in the URL`}},
		{"a service path has non-empty segments", func(c *config) { hook(c).ClientConfig.Service.Path = ptr("/a//b") }, []string{
			`webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty`}},
		{"a service port is a port", func(c *config) { hook(c).ClientConfig.Service.Port = ptr(int32(0)) }, []string{
			"webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive"}},
		{"the timeout is 1 to 30 seconds", func(c *config) { hook(c).TimeoutSeconds = ptr(int32(31)) }, []string{
			"webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"}},
		{"a rule's '*' stands alone", func(c *config) {
			r := &hook(c).Rules[0]
			r.Operations = []admissionregistrationv1.OperationType{"*", "PATCH"}
			r.Resources = []string{"*/*", "pods"}
		}, []string{
			`webhooks[0].rules[0].operations: Invalid value: ["*","PATCH"]: if '*' is present, must not specify other operations`,
			`webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`,
			`webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`}},
		{"match conditions have names", func(c *config) {
			hook(c).MatchConditions = append(hook(c).MatchConditions, admissionregistrationv1.MatchCondition{Name: "not-system", Expression: " "})
		}, []string{
			"webhooks[0].matchConditions[1].expression: Required value",
			`webhooks[0].matchConditions[1].name: Duplicate value: "not-system"`}},
		{"static names are reserved", func(c *config) { c.Name = "p.static.k8s.io" }, []string{
			`metadata.name: Invalid value: "p.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`}},
	}
	s := validatingWebhookConfigurationStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(s.Validate(context.Background(), podPolicyWebhooks(tt.change)))); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}

func TestWebhookConfigurationUpdate_KeepsWhatTheStoredOneAlreadyBroke(t *testing.T) {
	some := admissionregistrationv1.SideEffectClassSome
	old := podPolicyWebhooks(func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
		c.Webhooks[0].SideEffects = &some
		c.Webhooks = append(c.Webhooks, c.Webhooks[0])
	})
	next := podPolicyWebhooks(func(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
		c.Webhooks[0].SideEffects = &some
		c.Webhooks[0].TimeoutSeconds = ptr(int32(20))
		c.Webhooks = append(c.Webhooks, c.Webhooks[0])
	})
	s := validatingWebhookConfigurationStrategy()
	if errs := s.ValidateUpdate(context.Background(), next, old); len(errs) != 0 {
		t.Errorf("update of a configuration stored with side effects and duplicate names: %v", causes(errs))
	}
	if errs := s.Validate(context.Background(), next); len(errs) != 3 {
		t.Errorf("create of it: %v, want both side effects and the duplicate name refused", causes(errs))
	}
}

func TestWebhookConfiguration_GenerationBumpsWhenWebhooksChange(t *testing.T) {
	s := mutatingWebhookConfigurationStrategy()
	c := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: scheme.ObjectMeta{Name: "m", Generation: 7}}
	s.PrepareForCreate(context.Background(), c)
	if c.Generation != 1 {
		t.Fatalf("generation on create = %d, want 1", c.Generation)
	}
	same := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: scheme.ObjectMeta{Name: "m", Labels: map[string]string{"a": "b"}}}
	s.PrepareForUpdate(context.Background(), same, c)
	changed := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: scheme.ObjectMeta{Name: "m"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a.b.c"}}}
	s.PrepareForUpdate(context.Background(), changed, c)
	if same.Generation != 1 || changed.Generation != 2 {
		t.Errorf("generation after a label change = %d (want 1), after a webhook change = %d (want 2)", same.Generation, changed.Generation)
	}
	if w := s.WarningsOnUpdate(context.Background(), &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: scheme.ObjectMeta{Name: "x.static.k8s.io"}}, c); len(w) != 1 || !strings.HasPrefix(w[0], "metadata.name: ") {
		t.Errorf("warnings on updating a static name = %q", w)
	}
}
