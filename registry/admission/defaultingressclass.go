package admission

import (
	"context"
	"fmt"
	"sort"

	"github.com/apikit-dev/apikit/apierrors"
	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// isDefaultIngressClassAnnotation marks the IngressClass that Ingresses without a class
// get (k8s.io/api networking/v1 AnnotationIsDefaultIngressClass).
const isDefaultIngressClassAnnotation = "ingressclass.kubernetes.io/is-default-class"

// ingressClassAnnotation is the deprecated annotation that names an Ingress's class; an
// Ingress that has it is not defaulted.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

// DefaultIngressClass is kube-apiserver v1.37.2's DefaultIngressClass admission plugin
// (plugin/pkg/admission/network/defaultingressclass): an Ingress created without
// spec.ingressClassName and without the kubernetes.io/ingress.class annotation gets
// the name of the IngressClass annotated ingressclass.kubernetes.io/is-default-class:
// "true"; of several, the newest by creationTimestamp (the first name on a tie). It
// reads the IngressClasses with registry.List. Updates and subresources pass, as do
// servers that do not serve IngressClasses.
type DefaultIngressClass struct{}

var _ registry.MutatingAdmission = DefaultIngressClass{}

// Admit sets the default class on a new Ingress.
func (DefaultIngressClass) Admit(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Operation != registry.OperationCreate || a.APIGroup != networkingv1.Ingresses.Group || a.Resource != networkingv1.Ingresses.Resource || a.Subresource != "" {
		return nil
	}
	ing, ok := obj.(*networkingv1.Ingress)
	if !ok {
		// kube's answer to an object of another type.
		return apierrors.NewInternalError(fmt.Errorf("Expected Ingress resource, got: %v", a.Kind))
	}
	if ing.Spec.IngressClassName != nil {
		return nil
	}
	if _, set := ing.Annotations[ingressClassAnnotation]; set {
		return nil
	}
	class, err := defaultIngressClass(ctx)
	if err != nil {
		// registry's answer to a plain error: kube's 403 Forbidden of the Ingress.
		return err
	}
	if class != "" {
		ing.Spec.IngressClassName = &class
	}
	return nil
}

// defaultIngressClass is kube's getDefaultClass: the name of the newest IngressClass
// marked default, "" when none is.
func defaultIngressClass(ctx context.Context) (string, error) {
	objs, err := registry.List(ctx, networkingv1.IngressClasses, "")
	if err != nil {
		return "", err
	}
	var defaults []scheme.Object
	for _, o := range objs {
		if o.GetAnnotations()[isDefaultIngressClassAnnotation] == "true" {
			defaults = append(defaults, o)
		}
	}
	if len(defaults) == 0 {
		return "", nil
	}
	sort.Slice(defaults, func(i, j int) bool {
		ti, tj := defaults[i].GetCreationTimestamp().UnixNano(), defaults[j].GetCreationTimestamp().UnixNano()
		if ti == tj {
			return defaults[i].GetName() < defaults[j].GetName()
		}
		return ti > tj
	})
	return defaults[0].GetName(), nil
}
