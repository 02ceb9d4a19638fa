package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	kubeext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	kubev1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	kubevalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/storage/memory"
)

// The end-to-end differential below serves CRDs with apikit over HTTP (rest.New on a
// scheme with the CRDs installed, cel.New() for their rules, memory storage) and hands
// the same request bodies to k8s.io/apiextensions-apiserver's own code the way
// kube-apiserver's custom resource handler does: the decoder's schema coercion
// (object meta, pruning with unknown-field paths, nulls dropped), the structural
// defaulter, then the custom resource strategy (PrepareForCreate/Update and
// Validate/ValidateUpdate: type meta, object meta, the schema validator, embedded
// resources, list types, CEL with transition rules). For every create and update it
// demands the same accept/reject decision; for accepted objects the same stored object
// (without metadata, which the servers set); for rejected ones the same 422 causes
// (type, field, message); and under fieldValidation=Strict the same 400 message.
//
// Intended differences, left out of the comparison:
//   - metadata of accepted objects (uid, timestamps, resourceVersion, managedFields are
//     the server's);
//   - a 400 for an embedded resource with several malformed fields names the first in
//     key order at apikit, the first in Go map order at kube-apiserver: any of kube's
//     possible messages is accepted;
//   - kube-apiserver's rest.BeforeCreate validates ObjectMeta a second time only when the
//     strategy found nothing, and the strategy already validates it: the corpus keeps
//     metadata well-formed apart from the name, so only the strategy's errors count.

var crdHTTPSeed = flag.Uint64("crd-http-seed", 12, "seed of the end-to-end CRD differential corpus")

const minCRDHTTPObjects = 2000

// gadgetsCRD exercises what the robots testdata CRD leaves out: nested objects
// defaulted to {} whose fields have defaults, an atomic array of objects with
// defaults, int-or-string, a preserve-unknown-fields object with declared fields, an
// embedded resource that is pruned, nullable fields with and without defaults, a map
// of numbers, a set, no status subresource (status is validated on create) and a
// transition rule.
const gadgetsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.lab.example.com
spec:
  group: lab.example.com
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            x-kubernetes-validations:
            - rule: '!has(oldSelf.owner) || (has(self.owner) && self.owner == oldSelf.owner)'
              message: owner cannot change once set
            - rule: '!has(self.ports) || self.ports.size() <= 3 || self.settings.mode == ''manual'''
              messageExpression: '''more than 3 ports need manual mode, not '' + self.settings.mode'
            properties:
              owner: {type: string, maxLength: 12}
              settings:
                type: object
                default: {}
                properties:
                  mode: {type: string, enum: [auto, manual], default: auto}
                  limits:
                    type: object
                    default: {}
                    properties:
                      cpu: {x-kubernetes-int-or-string: true, default: "1"}
                      retries: {type: integer, minimum: 0, maximum: 10, default: 3}
                      burst: {type: boolean}
              ports:
                type: array
                maxItems: 5
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, minLength: 1, maxLength: 8}
                    port: {type: integer, minimum: 1, maximum: 65535, default: 80}
                    protocol: {type: string, enum: [TCP, UDP], default: TCP}
              selectors:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              size:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  level: {type: integer, default: 1}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                properties:
                  spec:
                    type: object
                    properties:
                      image: {type: string, default: busybox}
              note: {type: string, nullable: true}
              count: {type: integer, nullable: true, default: 5}
              ratio: {type: number, default: 0.5}
              weights:
                type: object
                additionalProperties: {type: number, minimum: 0}
          status:
            type: object
            properties:
              phase: {type: string, enum: [Idle, Busy]}
              seen: {type: integer, format: int64}
`

// kubeCRDHandler is what kube-apiserver runs for one served version of a CRD.
type kubeCRDHandler struct {
	gvk        schema.GroupVersionKind
	structural *structuralschema.Structural
	strategy   interface {
		PrepareForCreate(context.Context, runtime.Object)
		PrepareForUpdate(context.Context, runtime.Object, runtime.Object)
		Validate(context.Context, runtime.Object) field.ErrorList
		ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList
	}
}

// newKubeCRDHandlers builds apiextensions-apiserver's strategy for every served version
// of the CRD manifest, as its customresource_handler does.
func newKubeCRDHandlers(t testing.TB, manifest []byte) map[string]*kubeCRDHandler {
	t.Helper()
	var v1 kubev1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(manifest, &v1); err != nil {
		t.Fatalf("kube CRD: %v", err)
	}
	kubev1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var crd kubeext.CustomResourceDefinition
	if err := kubev1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &crd, nil); err != nil {
		t.Fatal(err)
	}
	out := map[string]*kubeCRDHandler{}
	for _, v := range crd.Spec.Versions {
		val, err := kubeext.GetSchemaForVersion(&crd, v.Name)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := kubeext.GetSubresourcesForVersion(&crd, v.Name)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := structuralschema.NewStructural(val.OpenAPIV3Schema)
		if err != nil {
			t.Fatal(err)
		}
		values, _, err := kubevalidation.NewSchemaValidator(val.OpenAPIV3Schema)
		if err != nil {
			t.Fatal(err)
		}
		var status *kubeext.CustomResourceSubresourceStatus
		var scale *kubeext.CustomResourceSubresourceScale
		if sub != nil {
			status, scale = sub.Status, sub.Scale
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		st := customresource.NewStrategy(nil, crd.Spec.Scope == kubeext.NamespaceScoped, gvk, values, values, ss, status, scale, nil)
		out[v.Name] = &kubeCRDHandler{gvk: gvk, structural: ss, strategy: st}
	}
	return out
}

// kubeOutcome is kube-apiserver's answer to a write: the stored object, the causes of
// a 422, or the messages of a 400 (a body the decoder refuses; with several malformed
// fields in one embedded resource, Go map order picks the one reported, so every
// message kube may give).
type kubeOutcome struct {
	stored      *unstructured.Unstructured
	causes      []string
	badRequests []string
}

// decode is the custom resource decoder of a request body: JSON into unstructured,
// then the schema coercion, returning the unknown field paths as kube's strict
// decoding error lists them; an error is the 400 message of a body the coercion
// refuses (an embedded resource's malformed type or object meta).
func (k *kubeCRDHandler) decode(t *testing.T, body []byte) (*unstructured.Unstructured, []string, error) {
	t.Helper()
	obj, err := runtime.Decode(unstructured.UnstructuredJSONScheme, body)
	if err != nil {
		t.Fatalf("kube decode: %v\n%s", err, body)
	}
	u := obj.(*unstructured.Unstructured)
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	meta, _, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		t.Fatalf("kube object meta: %v\n%s", err, body)
	}
	unknown = append(unknown, pruning.PruneWithOptions(u.Object, k.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, k.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, k.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		return nil, nil, fmt.Errorf("%s in version %q cannot be handled as a %s: %w", k.gvk.Kind, k.gvk.Version, k.gvk.Kind, ferr)
	}
	unknown = append(unknown, paths...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if err := schemaobjectmeta.SetObjectMeta(u.Object, meta); err != nil {
		t.Fatal(err)
	}
	structuraldefaulting.Default(u.Object, k.structural)
	return u, unknown, nil
}

// write is kube-apiserver's create (old nil) or update of old by body.
func (k *kubeCRDHandler) write(t *testing.T, body []byte, old *unstructured.Unstructured) kubeOutcome {
	u, _, err := k.decode(t, body)
	if err != nil {
		msgs := []string{err.Error()}
		for range 50 {
			if _, _, err := k.decode(t, body); !slices.Contains(msgs, err.Error()) {
				msgs = append(msgs, err.Error())
			}
		}
		return kubeOutcome{badRequests: msgs}
	}
	var errs field.ErrorList
	if old == nil {
		k.strategy.PrepareForCreate(context.Background(), u)
		errs = k.strategy.Validate(context.Background(), u)
	} else {
		u.SetGeneration(old.GetGeneration())
		k.strategy.PrepareForUpdate(context.Background(), u, old)
		errs = k.strategy.ValidateUpdate(context.Background(), u, old)
	}
	if len(errs) > 0 {
		return kubeOutcome{causes: kubeCauses(errs)}
	}
	return kubeOutcome{stored: u}
}

// kubeCauses renders errors as the causes of kube's 422 (errors.NewInvalid), sorted.
func kubeCauses(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = string(e.Type) + " | " + e.Field + " | " + e.ErrorBody()
	}
	slices.Sort(out)
	return out
}

// apikitAnswer is an HTTP answer of apikit's handler.
type apikitAnswer struct {
	code   int
	object map[string]any // the body of a 2xx
	status struct {
		Message string `json:"message"`
		Details struct {
			Causes []struct {
				Reason  string `json:"reason"`
				Message string `json:"message"`
				Field   string `json:"field"`
			} `json:"causes"`
		} `json:"details"`
	}
}

func (a *apikitAnswer) causes() []string {
	var out []string
	for _, c := range a.status.Details.Causes {
		out = append(out, c.Reason+" | "+c.Field+" | "+c.Message)
	}
	slices.Sort(out)
	return out
}

func apikitDo(t *testing.T, method, url string, body []byte) *apikitAnswer {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := &apikitAnswer{code: resp.StatusCode}
	target := any(&a.status)
	if resp.StatusCode < 300 {
		target = &a.object
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(target); err != nil {
		t.Fatalf("%s %s: %d %v\n%s", method, url, resp.StatusCode, err, data)
	}
	return a
}

// withoutMetadata renders an object without its metadata, for comparing stored objects.
func withoutMetadata(obj map[string]any) string {
	c := maps.Clone(obj)
	delete(c, "metadata")
	return canonicalJSON(c)
}

// crdHTTPCase is one served version under test, on both sides.
type crdHTTPCase struct {
	name   string
	url    string // the collection URL at apikit
	schema *openapi.Schema
	kube   *kubeCRDHandler
}

func newCRDHTTPCases(t *testing.T) ([]crdHTTPCase, func()) {
	robots, err := os.ReadFile("../apiextensions/testdata/crd/fleet.example.com_robots.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := scheme.New()
	var cases []crdHTTPCase
	var base []crdHTTPCase
	for _, manifest := range [][]byte{robots, []byte(gadgetsCRD)} {
		crds, err := apiextensions.Decode(manifest)
		if err != nil {
			t.Fatal(err)
		}
		crd := crds[0]
		if err := apiextensions.Install(s, crd, apiextensions.InstallOptions{}); err != nil {
			t.Fatal(err)
		}
		kube := newKubeCRDHandlers(t, manifest)
		for _, v := range crd.Spec.Versions {
			base = append(base, crdHTTPCase{
				name:   crd.Spec.Names.Plural + "/" + v.Name,
				url:    "/apis/" + crd.Spec.Group + "/" + v.Name + "/namespaces/default/" + crd.Spec.Names.Plural,
				schema: v.Schema.OpenAPIV3Schema,
				kube:   kube[v.Name],
			})
		}
	}
	store := memory.New(memory.Options{})
	h, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: store, Rules: cel.New()})
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	for _, c := range base {
		c.url = srv.URL + c.url
		cases = append(cases, c)
	}
	return cases, func() { srv.Close(); store.Close() }
}

func TestCRDHTTPDiff(t *testing.T) {
	cases, stop := newCRDHTTPCases(t)
	defer stop()
	rng := rand.New(rand.NewPCG(*crdHTTPSeed, 0x17e2))
	g := &crdValueGen{rng: rng}

	var creates, updates, accepted, rejected, strict, transitions, diffs int
	report := func(format string, args ...any) {
		diffs++
		if diffs <= 20 {
			t.Errorf(format, args...)
		}
	}
	body := func(c crdHTTPCase, obj map[string]any, name string) []byte {
		obj["apiVersion"] = c.kube.gvk.GroupVersion().String()
		obj["kind"] = c.kube.gvk.Kind
		meta := map[string]any{"name": name, "namespace": "default"}
		if g.chance(0.3) {
			meta["labels"] = map[string]any{"app": "x"}
		}
		obj["metadata"] = meta
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i := range 2400 {
		c := cases[rng.IntN(len(cases))]
		name := fmt.Sprintf("o-%d", i)
		if g.chance(0.03) {
			name = "Bad_Name"
		}
		sent := g.object(c.schema)
		if base, ok := validCRDSpecs[c.name]; ok && g.chance(0.4) {
			sent = map[string]any{"spec": scheme.DeepCopyJSONValue(map[string]any(base))}
			if g.chance(0.6) {
				regenerateSpecField(g, c.schema, sent)
			}
		}
		addUnknownFields(g, sent)
		b := body(c, sent, name)
		creates++
		// Unknown fields under fieldValidation=Strict: the 400 message.
		if _, unknown, err := c.kube.decode(t, b); err == nil && len(unknown) > 0 {
			strict++
			var msgs []string
			for _, p := range unknown {
				msgs = append(msgs, fmt.Sprintf("unknown field %q", p))
			}
			wantMsg := "strict decoding error: " + strings.Join(msgs, ", ")
			sb := body(c, scheme.DeepCopyJSONValue(sent).(map[string]any), name+"-strict")
			ans := apikitDo(t, "POST", c.url+"?fieldValidation=Strict", sb)
			if ans.code != http.StatusBadRequest || ans.status.Message != wantMsg {
				report("strict create %s: %s\n kube:   400 %s\n apikit: %d %s", c.name, sb, wantMsg, ans.code, ans.status.Message)
			}
		}

		want := c.kube.write(t, b, nil)
		got := apikitDo(t, "POST", c.url+"?fieldValidation=Ignore", b)
		if !compareAnswers(report, "create "+c.name, b, want, got) || want.stored == nil {
			if want.stored == nil {
				rejected++
			}
			continue
		}
		accepted++

		// Updates, for transition rules: a fresh object, or the sent one with one
		// spec field regenerated.
		for range 2 {
			if !g.chance(0.6) {
				break
			}
			next := g.object(c.schema)
			if g.chance(0.5) {
				next = scheme.DeepCopyJSONValue(sent).(map[string]any)
				regenerateSpecField(g, c.schema, next)
			}
			ub := body(c, next, name)
			var m map[string]any
			_ = json.Unmarshal(ub, &m)
			m["metadata"].(map[string]any)["resourceVersion"] = got.object["metadata"].(map[string]any)["resourceVersion"]
			ub, _ = json.Marshal(m)
			updates++
			wantU := c.kube.write(t, ub, want.stored)
			if slices.ContainsFunc(wantU.causes, func(c string) bool {
				return strings.Contains(c, "model is immutable") || strings.Contains(c, "owner cannot change once set")
			}) {
				transitions++
			}
			gotU := apikitDo(t, "PUT", c.url+"/"+name+"?fieldValidation=Ignore", ub)
			if !compareAnswers(report, "update "+c.name, ub, wantU, gotU) || wantU.stored == nil {
				if wantU.stored == nil {
					rejected++
				}
				continue
			}
			accepted++
			want, got, sent = wantU, gotU, next
		}
	}
	t.Logf("CRD HTTP differential: %d creates, %d updates (%d refused by a transition rule): %d accepted, %d rejected by both, %d strict-mode unknown-field checks, %d mismatches",
		creates, updates, transitions, accepted, rejected, strict, diffs)
	if creates+updates < minCRDHTTPObjects {
		t.Fatalf("corpus has %d objects, want at least %d", creates+updates, minCRDHTTPObjects)
	}
	if accepted < (creates+updates)/5 || rejected < (creates+updates)/5 || updates < 300 || strict < 100 || transitions < 30 {
		t.Errorf("corpus is lopsided: %d accepted, %d rejected, %d updates (%d transition refusals), %d strict checks", accepted, rejected, updates, transitions, strict)
	}
}

// validCRDSpecs are valid specs of the CRDs under test, by case, which the corpus
// varies one field at a time: generated objects alone are rarely valid, and updates
// reach the transition rules only from a stored spec.
var validCRDSpecs = map[string]map[string]any{
	"robots/v1": {"model": "T100", "replicas": int64(2), "serial": "RB-12", "minReplicas": int64(1), "maxReplicas": int64(3),
		"arms":        []any{map[string]any{"name": "left", "length": int64(50), "tool": "gripper"}, map[string]any{"name": "right"}},
		"battery":     map[string]any{"capacityMah": int64(1000)},
		"podTemplate": map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}, "spec": map[string]any{}},
		"memory":      "512Mi", "maxUnavailable": "25%", "nickname": nil, "config": map[string]any{"a": map[string]any{"b": int64(1)}}},
	"robots/v1beta1": {"model": "T800", "color": "red"},
	"gadgets/v1": {"owner": "alice", "settings": map[string]any{"mode": "auto"}, "ports": []any{map[string]any{"name": "http", "port": int64(8080)}},
		"size": "2", "extra": map[string]any{"free": true}, "template": map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": map[string]any{}},
		"count": nil, "note": nil, "selectors": []any{"a", "b"}, "weights": map[string]any{"x": 0.5}},
}

// regenerateSpecField replaces one spec field of obj by a generated value, often one
// a transition rule guards (model, owner).
func regenerateSpecField(g *crdValueGen, s *openapi.Schema, obj map[string]any) {
	spec, ok := obj["spec"].(map[string]any)
	sp := s.Properties["spec"]
	if !ok || sp == nil || len(sp.Properties) == 0 {
		return
	}
	keys := slices.Sorted(maps.Keys(sp.Properties))
	k := keys[g.rng.IntN(len(keys))]
	if guarded := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k != "model" && k != "owner" }); len(guarded) > 0 && g.chance(0.4) {
		k = guarded[g.rng.IntN(len(guarded))]
	}
	spec[k] = g.value(sp.Properties[k], 1)
}

// addUnknownFields adds, now and then, fields no schema declares to the spec and to
// an object or list of objects in it, for pruning and fieldValidation=Strict.
func addUnknownFields(g *crdValueGen, obj map[string]any) {
	spec, ok := obj["spec"].(map[string]any)
	if !ok || !g.chance(0.3) {
		return
	}
	spec["bogus"] = g.junk()
	for _, k := range slices.Sorted(maps.Keys(spec)) {
		switch v := spec[k].(type) {
		case map[string]any:
			if g.chance(0.3) {
				v["zz"] = int64(1)
			}
		case []any:
			if m, ok := firstObject(v); ok && g.chance(0.5) {
				m["unknownToo"] = "x"
			}
		}
	}
}

func firstObject(l []any) (map[string]any, bool) {
	if len(l) == 0 {
		return nil, false
	}
	m, ok := l[0].(map[string]any)
	return m, ok
}

// compareAnswers reports a difference between kube's outcome and apikit's answer; it
// returns whether they agree.
func compareAnswers(report func(string, ...any), what string, body []byte, want kubeOutcome, got *apikitAnswer) bool {
	var apikitSays string
	if got.code < 300 {
		apikitSays = fmt.Sprintf("%d %s", got.code, withoutMetadata(got.object))
	} else {
		apikitSays = fmt.Sprintf("%d %s %q", got.code, got.status.Message, got.causes())
	}
	switch {
	case want.stored != nil:
		if w := withoutMetadata(want.stored.Object); got.code >= 300 || w != withoutMetadata(got.object) {
			report("%s %s:\n kube:   accepted %s\n apikit: %s", what, body, w, apikitSays)
			return false
		}
	case len(want.badRequests) > 0:
		// Intended difference: apikit reports the first malformed field in key order.
		if got.code != http.StatusBadRequest || !slices.Contains(want.badRequests, got.status.Message) {
			report("%s %s:\n kube:   400 %q\n apikit: %s", what, body, want.badRequests, apikitSays)
			return false
		}
	default:
		if got.code != http.StatusUnprocessableEntity || !slices.Equal(want.causes, got.causes()) {
			report("%s %s:\n kube:   422 %q\n apikit: %s", what, body, want.causes, apikitSays)
			return false
		}
	}
	return true
}
