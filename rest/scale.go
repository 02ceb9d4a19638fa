package rest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// ScaleGroupVersion is where Scale lives on the wire: autoscaling/v1.
var ScaleGroupVersion = scheme.GroupVersion{Group: "autoscaling", Version: "v1"}

// Scale is autoscaling/v1 Scale, what the scale subresource serves: the object's
// metadata with the desired and observed replica counts read from the paths of
// scheme.ScaleSubresource.
type Scale struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              ScaleSpec   `json:"spec,omitempty"`
	Status            ScaleStatus `json:"status,omitempty"`
}

// ScaleSpec is the desired replica count.
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// ScaleStatus is the observed replica count and the pods' label selector.
type ScaleStatus struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}

// scaleOf builds the Scale of an object (any version).
func (rq *request) scaleOf(obj scheme.Object) (*Scale, error) {
	ext, err := rq.h.reg.ReadAs(obj, rq.gv)
	if err != nil {
		return nil, err
	}
	m, err := conversion.ObjectMap(ext)
	if err != nil {
		return nil, err
	}
	sc := &Scale{
		TypeMeta: scheme.TypeMeta{APIVersion: ScaleGroupVersion.String(), Kind: "Scale"},
		ObjectMeta: scheme.ObjectMeta{
			Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(), CreationTimestamp: obj.GetCreationTimestamp(),
		},
	}
	paths := rq.res.Scale
	if v, ok := readPath(m, paths.SpecReplicasPath); ok {
		n, _ := toInt64(v)
		sc.Spec.Replicas = int32(n)
	}
	if v, ok := readPath(m, paths.StatusReplicasPath); ok {
		n, _ := toInt64(v)
		sc.Status.Replicas = int32(n)
	}
	if paths.LabelSelectorPath != "" {
		if v, ok := readPath(m, paths.LabelSelectorPath); ok {
			switch sel := v.(type) {
			case string:
				sc.Status.Selector = sel
			case map[string]any:
				if paths.SelectorIsLabelSet {
					sc.Status.Selector = labelSetString(sel)
					break
				}
				// A built-in kind's metav1.LabelSelector, served in its string form as
				// kube's scale subresources serve it; kube answers 400 when it does not convert.
				if sc.Status.Selector, err = labelSelectorString(sel); err != nil {
					return nil, apierrors.NewBadRequest(err.Error())
				}
			}
		}
	}
	return sc, nil
}

// labelSelectorString is the String of the labels.Selector that
// metav1.LabelSelectorAsSelector makes of a LabelSelector in its JSON form ("app=web,tier
// in (a,b)"), built by storage.NewLabelSelector as builtin.LabelSelectorAsSelector builds
// it from the typed form; "" for an empty selector. An unknown operator is kube's error.
func labelSelectorString(sel map[string]any) (string, error) {
	labels, _ := sel["matchLabels"].(map[string]any)
	exprs, _ := sel["matchExpressions"].([]any)
	reqs := make([]storage.LabelRequirement, 0, len(labels)+len(exprs))
	for k, v := range labels {
		s, _ := v.(string)
		reqs = append(reqs, storage.LabelRequirement{Key: k, Operator: storage.Equals, Values: []string{s}})
	}
	for _, e := range exprs {
		expr, _ := e.(map[string]any)
		key, _ := expr["key"].(string)
		op, _ := expr["operator"].(string)
		o, err := storage.MetaOperator(op)
		if err != nil {
			return "", err
		}
		r := storage.LabelRequirement{Key: key, Operator: o}
		list, _ := expr["values"].([]any)
		for _, v := range list {
			s, _ := v.(string)
			r.Values = append(r.Values, s)
		}
		reqs = append(reqs, r)
	}
	return storage.NewLabelSelector(reqs...).String(), nil
}

// labelSetString is the String of labels.SelectorFromSet of a label map in its JSON
// form ("app=web,tier=db"); "" for an empty map.
func labelSetString(set map[string]any) string {
	labels := make(map[string]string, len(set))
	for k, v := range set {
		labels[k], _ = v.(string)
	}
	return storage.LabelSelectorFromSet(labels).String()
}

// scaleKind is the kind a refused Scale is named by.
var scaleKind = scheme.GroupKind{Group: ScaleGroupVersion.Group, Kind: "Scale"}

// validateScale is kube's ValidateScale, which the scale subresources of the built-in
// kinds run on the new Scale before writing its replicas to the object: 422 for a
// negative count. The scale of a custom resource is checked by its schema instead.
func validateScale(sc *Scale, name string) error {
	if sc.Spec.Replicas < 0 {
		return validation.ErrorList{validation.Invalid(validation.NewPath("spec", "replicas"), int64(sc.Spec.Replicas), "must be greater than or equal to 0")}.ToStatus(scaleKind, name)
	}
	return nil
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	case int32:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}

func (rq *request) getScale() {
	obj, err := rq.h.store.Get(rq.ctx, rq.key(rq.info.Name), storage.GetOptions{ResourceVersion: rq.query.Get("resourceVersion")})
	if err != nil {
		rq.fail(err)
		return
	}
	sc, err := rq.scaleOf(obj)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respondScale(http.StatusOK, sc)
}

func (rq *request) respondScale(code int, sc *Scale) {
	out, st := rq.h.negotiate(rq.r, codec.ResponseOptions{GVK: ScaleGroupVersion.WithKind("Scale"), Object: sc})
	if st != nil {
		rq.fail(st)
		return
	}
	addWarnings(rq.w, rq.warnings)
	rq.h.writeEncoded(rq.w, rq.r, code, out, sc)
}

// writeScale serves PUT and PATCH on /scale: the new Scale's spec.replicas is written to
// the object's spec path through the update pipeline, with optimistic concurrency on
// the Scale's resourceVersion.
func (rq *request) writeScale() {
	dryRun, fv, data, ok := rq.updateRequest()
	if !ok {
		return
	}
	name := rq.info.Name
	var newScale func(old scheme.Object) (*Scale, error)
	scaleGVK := ScaleGroupVersion.WithKind("Scale")
	if rq.info.Verb == "patch" {
		apply, err := rq.patcher(data)
		if err != nil {
			rq.fail(err)
			return
		}
		newScale = func(old scheme.Object) (*Scale, error) {
			cur, err := rq.scaleOf(scheme.DeepCopy(old))
			if err != nil {
				return nil, err
			}
			doc, err := json.Marshal(cur)
			if err != nil {
				return nil, err
			}
			patched, err := apply(doc)
			if err != nil {
				return nil, err
			}
			ser, _ := rq.h.codecs.ForMediaType("application/json")
			sc := &Scale{}
			if _, _, err := rq.decodeInto(ser, patched, sc, scaleGVK, fv); err != nil {
				return nil, err
			}
			if err := rq.ensureNamespace(sc); err != nil {
				return nil, err
			}
			return sc, nil
		}
	} else {
		ser, err := rq.serializerFor(rq.r.Header.Get("Content-Type"))
		if err != nil {
			rq.fail(err)
			return
		}
		sc := &Scale{}
		if _, gvk, err := rq.decodeInto(ser, data, sc, scaleGVK, fv); err != nil {
			rq.fail(err)
			return
		} else if gvk.GroupVersion() != ScaleGroupVersion || gvk.Kind != "Scale" {
			rq.fail(apierrors.NewBadRequest("the API version in the data (" + gvk.GroupVersion().String() + ") does not match the expected API version (autoscaling/v1)"))
			return
		}
		if err := rq.ensureNamespace(sc); err != nil {
			rq.fail(err)
			return
		}
		if sc.Name != "" && sc.Name != name {
			rq.fail(apierrors.NewBadRequest("the name of the object (" + sc.Name + ") does not match the name on the URL (" + name + ")"))
			return
		}
		newScale = func(scheme.Object) (*Scale, error) { return sc, nil }
	}
	next := func(old scheme.Object) (scheme.Object, error) {
		if old == nil {
			return nil, apierrors.NewNotFound(rq.gr, name)
		}
		sc, err := newScale(old)
		if err != nil {
			return nil, err
		}
		if !rq.h.scheme.IsUnstructured(rq.gvk) {
			if err := validateScale(sc, name); err != nil {
				return nil, err
			}
			// A built-in kind's scale takes the Scale's uid as a precondition.
			if sc.UID != "" && sc.UID != old.GetUID() {
				gr := scheme.GroupResource{Group: rq.gr.Group, Resource: rq.gr.Resource + "/scale"}
				return nil, apierrors.NewConflict(gr, name, fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", sc.UID, old.GetUID()))
			}
		}
		if rv := sc.ResourceVersion; rv != "" && rv != old.GetResourceVersion() {
			return nil, apierrors.NewConflict(rq.gr, name, apierrors.OptimisticLockErrorMsg)
		}
		ext, err := conversion.ObjectToVersion(rq.h.scheme, scheme.DeepCopy(old), rq.gv)
		if err != nil {
			return nil, err
		}
		m, err := conversion.ObjectMap(ext)
		if err != nil {
			return nil, err
		}
		m = scheme.DeepCopyJSONValue(m).(map[string]any)
		if err := writePath(m, rq.res.Scale.SpecReplicasPath, int64(sc.Spec.Replicas)); err != nil {
			return nil, err
		}
		obj, err := conversion.ObjectFromMap(rq.h.scheme, rq.gvk, m)
		if err != nil {
			return nil, err
		}
		return conversion.ObjectToInternal(rq.h.scheme, obj, rq.gvk)
	}
	out, _, err := rq.updateObject(name, dryRun, false, next)
	if err != nil {
		rq.fail(err)
		return
	}
	sc, err := rq.scaleOf(out)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respondScale(http.StatusOK, sc)
}
