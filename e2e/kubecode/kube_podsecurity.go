package kubecode

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/informers"
	kubeschedulingv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/plugin/pkg/admission/priority"
	psadmission "k8s.io/pod-security-admission/admission"
	psload "k8s.io/pod-security-admission/admission/api/load"
	psapi "k8s.io/pod-security-admission/api"
	psmetrics "k8s.io/pod-security-admission/metrics"
	pspolicy "k8s.io/pod-security-admission/policy"
)

// PodSecurity is kube-apiserver's PodSecurity admission as plugin/pkg/admission/security/podsecurity
// runs it without an admission configuration file (k8s.io/pod-security-admission's
// defaults: privileged:latest in every mode, no exemptions), over the namespaces given
// (by name), which it reads as kube's namespace informer would.
type PodSecurity struct {
	adm        *psadmission.Admission
	namespaces map[string]*corev1.Namespace
}

// NewPodSecurity returns kube's PodSecurity admission over namespaces (name: labels).
func NewPodSecurity(namespaces map[string]map[string]string) (*PodSecurity, error) {
	config, err := psload.LoadFromData(nil)
	if err != nil {
		return nil, err
	}
	evaluator, err := pspolicy.NewEvaluator(pspolicy.DefaultChecks(), nil)
	if err != nil {
		return nil, err
	}
	p := &PodSecurity{namespaces: map[string]*corev1.Namespace{}}
	for name, labels := range namespaces {
		p.namespaces[name] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	p.adm = &psadmission.Admission{
		Configuration:    config,
		Evaluator:        evaluator,
		Metrics:          noMetrics{},
		PodSpecExtractor: psadmission.DefaultPodSpecExtractor{},
		NamespaceGetter:  p,
		PodLister:        p,
	}
	if err := p.adm.CompleteConfiguration(); err != nil {
		return nil, err
	}
	if err := p.adm.ValidateConfiguration(); err != nil {
		return nil, err
	}
	return p, nil
}

// GetNamespace implements the admission's NamespaceGetter.
func (p *PodSecurity) GetNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if ns, ok := p.namespaces[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
}

// ListPods implements the admission's PodLister: no namespace has pods here.
func (p *PodSecurity) ListPods(context.Context, string) ([]*corev1.Pod, error) { return nil, nil }

// noMetrics records nothing.
type noMetrics struct{}

func (noMetrics) RecordEvaluation(psmetrics.Decision, psapi.LevelVersion, psmetrics.Mode, psapi.Attributes) {
}
func (noMetrics) RecordExemption(psapi.Attributes)   {}
func (noMetrics) RecordError(bool, psapi.Attributes) {}

// PodSecurityAnswer is what kube-apiserver answers a write PodSecurity checks: the
// code (0 when allowed), the refusal's message and the warnings.
type PodSecurityAnswer struct {
	Code     int
	Message  string
	Warnings []string
}

// CreateAnswer is kube's PodSecurity answer to the create of stored (a v1 Pod or
// Deployment as kube's store returns it, defaulted) in namespace.
func (p *PodSecurity) CreateAnswer(kind, namespace string, stored []byte) (PodSecurityAnswer, error) {
	var obj runtime.Object
	var gvr schema.GroupVersionResource
	switch kind {
	case "Pod":
		obj, gvr = &corev1.Pod{}, corev1.SchemeGroupVersion.WithResource("pods")
	case "Deployment":
		obj, gvr = &appsv1.Deployment{}, appsv1.SchemeGroupVersion.WithResource("deployments")
	default:
		return PodSecurityAnswer{}, fmt.Errorf("kubecode: PodSecurity of %s is not covered", kind)
	}
	if err := json.Unmarshal(stored, obj); err != nil {
		return PodSecurityAnswer{}, err
	}
	name := obj.(metav1.Object).GetName()
	resp := p.adm.Validate(context.Background(), &psapi.AttributesRecord{
		Name: name, Namespace: namespace, Kind: gvr.GroupVersion().WithKind(kind), Resource: gvr,
		Operation: admissionv1.Create, Object: obj,
	})
	a := PodSecurityAnswer{Warnings: resp.Warnings}
	if !resp.Allowed {
		a.Code, a.Message = int(resp.Result.Code), resp.Result.Message
	}
	return a, nil
}

// NewKubePriority is kube-apiserver's Priority admission plugin (plugin/pkg/admission/priority)
// reading PriorityClasses from an informer that holds what kube-apiserver creates at
// start: the system classes system-node-critical and system-cluster-critical, defaulted
// as its storage keeps them (preemptionPolicy PreemptLowerPriority). The informer is
// never started: the plugin reads its cache only.
func NewKubePriority() (admission.MutationInterface, error) {
	p := priority.NewPlugin()
	f := informers.NewSharedInformerFactory(nil, 0)
	p.SetExternalKubeInformerFactory(f)
	indexer := f.Scheduling().V1().PriorityClasses().Informer().GetIndexer()
	for _, pc := range kubeschedulingv1.SystemPriorityClasses() {
		kubeschedulingv1.SetDefaults_PriorityClass(pc)
		if err := indexer.Add(pc); err != nil {
			return nil, err
		}
	}
	return p, nil
}
