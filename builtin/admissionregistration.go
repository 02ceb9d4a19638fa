package builtin

import (
	"fmt"
	"sort"
	"strings"

	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// admissionRegistrationCategories is the category every admissionregistration.k8s.io
// resource is in (kube's storage Categories()).
var admissionRegistrationCategories = []string{"api-extensions"}

// admissionRegistrationResources are the six admissionregistration.k8s.io/v1 resources as
// kube-apiserver v1.37.2 serves them: cluster-scoped, in the api-extensions category, no
// short names, validatingadmissionpolicies alone with /status (kube's v1 storage gives
// mutatingadmissionpolicies none), with the columns of kube's table printers.
var admissionRegistrationResources = []scheme.Resource{
	{Group: admissionregistrationv1.SchemeGroupVersion.Group, Kind: "ValidatingWebhookConfiguration", Plural: "validatingwebhookconfigurations",
		Categories: admissionRegistrationCategories,
		PrinterColumns: []scheme.PrinterColumn{
			webhooksColumn(func(c *admissionregistrationv1.ValidatingWebhookConfiguration) int { return len(c.Webhooks) }), ageColumn,
		}},
	{Group: admissionregistrationv1.SchemeGroupVersion.Group, Kind: "MutatingWebhookConfiguration", Plural: "mutatingwebhookconfigurations",
		Categories: admissionRegistrationCategories,
		PrinterColumns: []scheme.PrinterColumn{
			webhooksColumn(func(c *admissionregistrationv1.MutatingWebhookConfiguration) int { return len(c.Webhooks) }), ageColumn,
		}},
	{Group: admissionregistrationv1.SchemeGroupVersion.Group, Kind: "ValidatingAdmissionPolicy", Plural: "validatingadmissionpolicies",
		Categories: admissionRegistrationCategories, StatusSubresource: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Validations", Type: "integer", Description: "Validations indicates the number of validation rules defined in this configuration",
				Cell: cellOf(func(p *admissionregistrationv1.ValidatingAdmissionPolicy) any { return int64(len(p.Spec.Validations)) })},
			paramKindColumn(func(p *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ParamKind {
				return p.Spec.ParamKind
			}),
			ageColumn,
		}},
	{Group: admissionregistrationv1.SchemeGroupVersion.Group, Kind: "ValidatingAdmissionPolicyBinding", Plural: "validatingadmissionpolicybindings",
		Categories: admissionRegistrationCategories,
		PrinterColumns: bindingColumns(func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) (string, *admissionregistrationv1.ParamRef) {
			return b.Spec.PolicyName, b.Spec.ParamRef
		})},
	{Group: admissionregistrationv1.SchemeGroupVersion.Group, Kind: "MutatingAdmissionPolicy", Plural: "mutatingadmissionpolicies",
		Categories: admissionRegistrationCategories,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Mutations", Type: "integer", Description: "Mutation indicates the number of mutations rules defined in this configuration",
				Cell: cellOf(func(p *admissionregistrationv1.MutatingAdmissionPolicy) any { return int64(len(p.Spec.Mutations)) })},
			paramKindColumn(func(p *admissionregistrationv1.MutatingAdmissionPolicy) *admissionregistrationv1.ParamKind {
				return p.Spec.ParamKind
			}),
			ageColumn,
		}},
	{Group: admissionregistrationv1.SchemeGroupVersion.Group, Kind: "MutatingAdmissionPolicyBinding", Plural: "mutatingadmissionpolicybindings",
		Categories: admissionRegistrationCategories,
		PrinterColumns: bindingColumns(func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) (string, *admissionregistrationv1.ParamRef) {
			return b.Spec.PolicyName, b.Spec.ParamRef
		})},
}

// webhooksColumn is kube's Webhooks column of a webhook configuration: how many webhooks
// it registers.
func webhooksColumn[T scheme.Object](count func(T) int) scheme.PrinterColumn {
	return scheme.PrinterColumn{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration",
		Cell: cellOf(func(c T) any { return int64(count(c)) })}
}

// paramKindColumn is kube's ParamKind column of a policy: apiVersion/kind, "<unset>"
// without one.
func paramKindColumn[T scheme.Object](paramKind func(T) *admissionregistrationv1.ParamKind) scheme.PrinterColumn {
	return scheme.PrinterColumn{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy",
		Cell: cellOf(func(p T) any {
			k := paramKind(p)
			if k == nil {
				return "<unset>"
			}
			return k.APIVersion + "/" + k.Kind
		})}
}

// bindingColumns are kube's columns of a policy binding: PolicyName, ParamRef, Age.
func bindingColumns[T scheme.Object](spec func(T) (string, *admissionregistrationv1.ParamRef)) []scheme.PrinterColumn {
	return []scheme.PrinterColumn{
		{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to",
			Cell: cellOf(func(b T) any { name, _ := spec(b); return name })},
		{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configuration param",
			Cell: cellOf(func(b T) any { _, ref := spec(b); return paramRefCell(ref) })},
		ageColumn,
	}
}

// paramRefCell is kube's ParamRef cell: namespace/name, */name without a namespace, the
// selector as its protobuf String() prints it, "<unset>" without a reference.
func paramRefCell(ref *admissionregistrationv1.ParamRef) string {
	switch {
	case ref == nil:
		return "<unset>"
	case ref.Name != "" && ref.Namespace != "":
		return ref.Namespace + "/" + ref.Name
	case ref.Name != "":
		return "*/" + ref.Name
	case ref.Selector != nil:
		return labelSelectorGoString(ref.Selector)
	}
	return "<unset>"
}

// labelSelectorGoString is what apimachinery's generated (*LabelSelector).String returns,
// which kube's binding printer shows verbatim.
func labelSelectorGoString(s *metav1.LabelSelector) string {
	var b strings.Builder
	b.WriteString("&LabelSelector{MatchLabels:map[string]string{")
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%v: %v,", k, s.MatchLabels[k])
	}
	b.WriteString("},MatchExpressions:[]LabelSelectorRequirement{")
	for _, r := range s.MatchExpressions {
		fmt.Fprintf(&b, "LabelSelectorRequirement{Key:%v,Operator:%v,Values:%v,},", r.Key, r.Operator, r.Values)
	}
	b.WriteString("},}")
	return b.String()
}

// AddAdmissionRegistrationToScheme registers the admissionregistration.k8s.io/v1 kinds
// (webhook configurations, admission policies and their bindings, and their lists), their
// resources, their protobuf messages and their defaults
// (registerAdmissionRegistrationDefaults). AddToScheme calls it. The objects are only
// stored: calling the webhooks and evaluating the policies is admission's work.
func AddAdmissionRegistrationToScheme(s *scheme.Scheme) error {
	gv := admissionregistrationv1.SchemeGroupVersion
	kinds := []scheme.Kinded{
		&admissionregistrationv1.ValidatingWebhookConfiguration{}, &admissionregistrationv1.MutatingWebhookConfiguration{},
		&admissionregistrationv1.ValidatingAdmissionPolicy{}, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{},
		&admissionregistrationv1.MutatingAdmissionPolicy{}, &admissionregistrationv1.MutatingAdmissionPolicyBinding{},
	}
	s.AddKnownTypes(gv, append(kinds,
		&admissionregistrationv1.ValidatingWebhookConfigurationList{}, &admissionregistrationv1.MutatingWebhookConfigurationList{},
		&admissionregistrationv1.ValidatingAdmissionPolicyList{}, &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{},
		&admissionregistrationv1.MutatingAdmissionPolicyList{}, &admissionregistrationv1.MutatingAdmissionPolicyBindingList{})...)
	for _, r := range admissionRegistrationResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, gv, kinds...); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerAdmissionRegistrationDefaults(s)
	return nil
}
