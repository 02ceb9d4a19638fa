package cel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubeadmission "k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	apikitcel "github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/registry/admission"
)

// TestCompileConditions_KubesValidationErrors holds the errors of conditions that do
// not compile: kube's validation error of the first, naming its index.
func TestCompileConditions_KubesValidationErrors(t *testing.T) {
	c := apikitcel.NewConditionCompiler()
	for _, tc := range []struct {
		conds []admission.MatchCondition
		want  string
	}{
		{[]admission.MatchCondition{{Name: "a", Expression: "true"}, {Name: "b", Expression: "nope"}},
			`matchConditions[1].expression: Invalid value: "nope": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')`},
		{[]admission.MatchCondition{{Name: "a", Expression: "'x'"}},
			`matchConditions[0].expression: Invalid value: "'x'": must evaluate to bool but got string`},
		{[]admission.MatchCondition{{Name: "a", Expression: "params.x"}},
			`matchConditions[0].expression: Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')`},
	} {
		_, err := c.CompileConditions(tc.conds)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.conds, err, tc.want)
		}
	}
	if _, err := c.CompileConditions([]admission.MatchCondition{{Name: "ok", Expression: "request.operation == 'CREATE' && authorizer.requestResource.check('get').allowed()"}}); err != nil {
		t.Errorf("a valid condition: %v", err)
	}
}

// groupAuthorizer allows the members of group "admins" to get anything.
type groupAuthorizer struct{}

func (groupAuthorizer) Authorize(_ context.Context, a authz.Attributes) (bool, string, error) {
	if a.User != nil && a.Verb == "get" {
		for _, g := range a.User.Groups {
			if g == "admins" {
				return true, "admin", nil
			}
		}
	}
	return false, "not an admin", nil
}

type kubeGroupAuthorizer struct{}

func (kubeGroupAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.GetUser() != nil && a.GetVerb() == "get" {
		for _, g := range a.GetUser().GetGroups() {
			if g == "admins" {
				return authorizer.DecisionAllow, "admin", nil
			}
		}
	}
	return authorizer.DecisionNoOpinion, "not an admin", nil
}

// atoms are the pieces generated conditions are made of: true, false and erroring
// expressions over every variable.
var atoms = []string{
	"true", "false",
	"object.metadata.name == 'a'",
	"has(object.metadata.labels) && 'team' in object.metadata.labels",
	"object.metadata.labels['team'] == 'blue'", // an error without the label
	"oldObject == null",
	"oldObject.metadata.name == 'a'", // an error on create
	"request.operation == 'CREATE'",
	"request.userInfo.username.startsWith('system:')",
	"'admins' in request.userInfo.groups",
	"request.namespace == 'ns'",
	"request.resource.resource == 'configmaps'",
	"request.dryRun == true",
	"authorizer.group('').resource('pods').namespace('ns').check('get').allowed()",
	"authorizer.requestResource.check('get').allowed()",
	"authorizer.requestResource.check('delete').reason() == 'not an admin'",
	"1 / (size(object.metadata.name) - 1) > 0", // an error for one-letter names
	"size(object.data) > 1",
}

func genExpr(r *rand.Rand, depth int) string {
	if depth == 0 || r.Intn(3) == 0 {
		return atoms[r.Intn(len(atoms))]
	}
	switch r.Intn(3) {
	case 0:
		return "(" + genExpr(r, depth-1) + ") && (" + genExpr(r, depth-1) + ")"
	case 1:
		return "(" + genExpr(r, depth-1) + ") || (" + genExpr(r, depth-1) + ")"
	}
	return "!(" + genExpr(r, depth-1) + ")"
}

type input struct {
	op        kubeadmission.Operation
	name      string
	labels    map[string]any
	hasOld    bool
	user      authn.User
	dryRun    bool
	namespace string
}

func (in input) objects() (obj, old map[string]any) {
	mk := func() map[string]any {
		meta := map[string]any{"name": in.name, "namespace": in.namespace}
		if in.labels != nil {
			meta["labels"] = in.labels
		}
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": map[string]any{"k": "v", "l": "w"}}
	}
	if in.op != kubeadmission.Delete {
		obj = mk()
	}
	if in.hasOld {
		old = mk()
	}
	return obj, old
}

// TestConditionMatcher_AgreesWithKube evaluates generated conditions over generated
// requests with apikit's matcher and with kube's matchconditions matcher (failure
// policy Fail), and requires the same outcome: match, the condition that failed, or
// the error text.
func TestConditionMatcher_AgreesWithKube(t *testing.T) {
	r := rand.New(rand.NewSource(27))
	kubeCompiler := plugincel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	ours := apikitcel.NewConditionCompiler()
	inputs := []input{
		{op: kubeadmission.Create, name: "a", namespace: "ns", user: authn.User{Name: "system:admin", Groups: []string{"admins"}}},
		{op: kubeadmission.Create, name: "bb", namespace: "other", labels: map[string]any{"team": "blue"}, user: authn.User{Name: "alice"}, dryRun: true},
		{op: kubeadmission.Update, name: "a", namespace: "ns", hasOld: true, labels: map[string]any{"team": "red"}, user: authn.User{Name: "bob", Groups: []string{"admins"}}},
		{op: kubeadmission.Delete, name: "ccc", namespace: "ns", hasOld: true, user: authn.User{Name: "system:serviceaccount:ns:x", UID: "u1", Extra: map[string][]string{"k": {"v"}}}},
	}
	fail := admissionregistrationv1.Fail
	cases, agree := 0, 0
	outcomes := map[string]int{}
	for i := 0; i < 300; i++ {
		n := 1 + r.Intn(3)
		var conds []admission.MatchCondition
		var accessors []plugincel.ExpressionAccessor
		for j := 0; j < n; j++ {
			mc := admission.MatchCondition{Name: fmt.Sprintf("c%d", j), Expression: genExpr(r, 2)}
			conds = append(conds, mc)
			accessors = append(accessors, &matchconditions.MatchCondition{Name: mc.Name, Expression: mc.Expression})
		}
		m, err := ours.CompileConditions(conds)
		if err != nil {
			t.Fatalf("%v: %v", conds, err)
		}
		kube := matchconditions.NewMatcher(kubeCompiler.CompileCondition(accessors, plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, environment.StoredExpressions),
			&fail, "webhook", "validate", "w")
		for _, in := range inputs {
			cases++
			obj, old := in.objects()
			gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
			gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
			var kobj, kold runtime.Object
			if obj != nil {
				kobj = &unstructured.Unstructured{Object: obj}
			}
			if old != nil {
				kold = &unstructured.Unstructured{Object: old}
			}
			attrs := kubeadmission.NewAttributesRecord(kobj, kold, gvk, in.namespace, in.name, gvr, "", in.op, &metav1.CreateOptions{}, in.dryRun,
				&user.DefaultInfo{Name: in.user.Name, UID: in.user.UID, Groups: in.user.Groups, Extra: in.user.Extra})
			va := &kubeadmission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk}
			va.VersionedObject.Set(kobj)
			va.VersionedOldObject.Set(kold)
			want := kube.Match(context.Background(), va, nil, kubeGroupAuthorizer{})

			reqJSON, err := json.Marshal(plugincel.CreateAdmissionRequest(attrs, metav1.GroupVersionResource(gvr), metav1.GroupVersionKind(gvk)))
			if err != nil {
				t.Fatal(err)
			}
			var req map[string]any
			if err := json.Unmarshal(reqJSON, &req); err != nil {
				t.Fatal(err)
			}
			got := m.Match(context.Background(), admission.ConditionInput{Object: obj, OldObject: old, Request: req, User: in.user, Authorizer: groupAuthorizer{}})
			errText := func(e error) string {
				if e == nil {
					return ""
				}
				return e.Error()
			}
			if got.Matches != want.Matches || got.FailedCondition != want.FailedConditionName || errText(got.Err) != errText(want.Error) {
				t.Errorf("%v on %+v:\n got  %v %q %v\n kube %v %q %v", conds, in, got.Matches, got.FailedCondition, got.Err, want.Matches, want.FailedConditionName, want.Error)
				continue
			}
			agree++
			switch {
			case want.Error != nil:
				outcomes["error"]++
			case want.Matches:
				outcomes["match"]++
			default:
				outcomes["no match"]++
			}
		}
	}
	t.Logf("%d of %d generated (conditions, request) pairs agree with kube's matcher (%v)", agree, cases, outcomes)
	for _, o := range []string{"error", "match", "no match"} {
		if outcomes[o] == 0 {
			t.Errorf("no generated case had the outcome %q", o)
		}
	}
}
