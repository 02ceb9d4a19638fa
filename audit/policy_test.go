package audit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/audit"
)

const examplePolicy = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:kube-proxy"]
  verbs: ["watch"]
  resources:
  - group: ""
    resources: ["endpoints", "services"]
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["pods/log", "pods/status"]
- level: Metadata
  resources:
  - group: ""
    resources: ["configmaps"]
    resourceNames: ["controller-leader"]
- level: Request
  userGroups: ["system:nodes"]
  resources:
  - group: "toys.example.com"
    resources: ["*/scale"]
- level: Request
  namespaces: ["kube-system"]
  omitStages: ["ResponseStarted"]
  omitManagedFields: false
- level: Metadata
  resources:
  - group: "*"
    resources: ["widgets/*"]
- level: RequestResponse
  resources:
  - group: "toys.example.com"
- level: Metadata
`

func TestEvaluate_FirstMatchingRuleDecides(t *testing.T) {
	p, err := audit.ParsePolicy([]byte(examplePolicy))
	if err != nil {
		t.Fatal(err)
	}
	p.OmitManagedFields = true
	e := audit.NewEvaluator(p)
	proxy := &audit.UserInfo{Username: "system:kube-proxy"}
	node := &audit.UserInfo{Username: "system:node:a", Groups: []string{"system:authenticated", "system:nodes"}}
	alice := &audit.UserInfo{Username: "alice"}
	for _, tc := range []struct {
		name  string
		attrs audit.Attributes
		level audit.Level
		omit  []audit.Stage
	}{
		{"kube-proxy watching endpoints is not recorded", audit.Attributes{User: proxy, Verb: "watch", Resource: "endpoints", ResourceRequest: true}, audit.LevelNone, []audit.Stage{audit.StageRequestReceived}},
		{"kube-proxy listing endpoints falls through", audit.Attributes{User: proxy, Verb: "list", Resource: "endpoints", ResourceRequest: true}, audit.LevelMetadata, []audit.Stage{audit.StageRequestReceived}},
		{"health path prefix", audit.Attributes{User: alice, Verb: "get", Path: "/healthz/ping"}, audit.LevelNone, nil},
		{"version exact path", audit.Attributes{User: alice, Verb: "get", Path: "/version"}, audit.LevelNone, nil},
		{"version is no prefix rule", audit.Attributes{User: alice, Verb: "get", Path: "/versions"}, audit.LevelMetadata, nil},
		{"subresource named with its resource", audit.Attributes{User: alice, Verb: "get", Resource: "pods", Subresource: "log", ResourceRequest: true}, audit.LevelRequestResponse, nil},
		{"resource without the subresource does not match pods/log", audit.Attributes{User: alice, Verb: "get", Resource: "pods", ResourceRequest: true}, audit.LevelMetadata, nil},
		{"resourceNames restrict", audit.Attributes{User: alice, Verb: "update", Resource: "configmaps", Name: "controller-leader", ResourceRequest: true}, audit.LevelMetadata, nil},
		{"*/scale for a node", audit.Attributes{User: node, Verb: "update", APIGroup: "toys.example.com", Resource: "widgets", Subresource: "scale", ResourceRequest: true}, audit.LevelRequest, nil},
		{"*/scale needs the group", audit.Attributes{User: alice, Verb: "update", APIGroup: "toys.example.com", Resource: "widgets", Subresource: "scale", ResourceRequest: true}, audit.LevelMetadata, nil},
		{"namespace rule with its own omitted stages", audit.Attributes{User: alice, Verb: "create", Namespace: "kube-system", Resource: "secrets", ResourceRequest: true}, audit.LevelRequest, []audit.Stage{audit.StageRequestReceived, audit.StageResponseStarted}},
		{"namespace rule does not match non-resource requests", audit.Attributes{User: alice, Verb: "get", Namespace: "kube-system", Path: "/apis"}, audit.LevelMetadata, nil},
		{"resource/* matches the resource and its subresources", audit.Attributes{User: alice, Verb: "get", APIGroup: "other.io", Resource: "widgets", Subresource: "status", ResourceRequest: true}, audit.LevelMetadata, nil},
		{"group with no resources matches all of it", audit.Attributes{User: alice, Verb: "get", APIGroup: "toys.example.com", Resource: "gadgets", ResourceRequest: true}, audit.LevelRequestResponse, nil},
		{"unauthenticated request", audit.Attributes{Verb: "get", Resource: "pods", ResourceRequest: true}, audit.LevelMetadata, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := e.Evaluate(&tc.attrs)
			if got.Level != tc.level {
				t.Errorf("level = %s, want %s", got.Level, tc.level)
			}
			want := tc.omit
			if want == nil {
				want = []audit.Stage{audit.StageRequestReceived}
			}
			if !sameStages(got.OmitStages, want) {
				t.Errorf("omitted stages = %v, want %v", got.OmitStages, want)
			}
		})
	}
	t.Run("omitManagedFields from the policy unless the rule says", func(t *testing.T) {
		if !e.Evaluate(&audit.Attributes{User: alice, Verb: "get", Path: "/apis"}).OmitManagedFields {
			t.Error("policy default not applied")
		}
		if e.Evaluate(&audit.Attributes{User: alice, Verb: "get", Namespace: "kube-system", Resource: "x", ResourceRequest: true}).OmitManagedFields {
			t.Error("rule override not applied")
		}
	})
}

func sameStages(a, b []audit.Stage) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestEvaluate_NoRuleMatchesIsNone(t *testing.T) {
	p, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Panic]\nrules:\n- level: Metadata\n  users: [bob]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := audit.NewEvaluator(p).Evaluate(&audit.Attributes{User: &audit.UserInfo{Username: "alice"}, Verb: "get"})
	if got.Level != audit.LevelNone || !slices.Equal(got.OmitStages, []audit.Stage{audit.StagePanic}) {
		t.Errorf("got %+v, want None omitting Panic", got)
	}
}

func TestParsePolicy_RejectsWhatKubeRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"wrong apiVersion":          "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n",
		"wrong kind":                "apiVersion: audit.k8s.io/v1\nkind: Event\nrules:\n- level: None\n",
		"no rules":                  "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n",
		"missing level":             "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- users: [a]\n",
		"unknown level":             "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n",
		"unknown stage":             "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Later]\nrules:\n- level: None\n",
		"url without slash":         "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [healthz]\n",
		"wildcard inside url":       "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/a*/b]\n",
		"urls and resources":        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/a]\n  namespaces: [x]\n",
		"resourceNames alone":       "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources:\n  - resourceNames: [a]\n",
		"group not a DNS subdomain": "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources:\n  - group: Not_A_Group\n",
		"not YAML":                  "rules: [",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := audit.ParsePolicy([]byte(doc)); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestParsePolicy_IgnoresUnknownFieldsAsKubeFallsBack(t *testing.T) {
	p, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nmetadata: {name: p}\nsurprise: 1\nrules:\n- level: Metadata\n  extra: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) != 1 || p.Rules[0].Level != audit.LevelMetadata {
		t.Errorf("rules = %+v", p.Rules)
	}
}

func TestWriterSink_OneJSONLinePerEventUnderConcurrency(t *testing.T) {
	var buf bytes.Buffer
	sink := audit.NewWriterSink(&buf)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev := &audit.Event{Kind: audit.EventKind, APIVersion: audit.APIVersion, AuditID: strings.Repeat("x", i), RequestObject: json.RawMessage(`{"big":"` + strings.Repeat("y", 5000) + `"}`)}
			if err := sink.ProcessEvent(ev); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var ev audit.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		n++
	}
	if n != 20 {
		t.Errorf("%d lines, want 20", n)
	}
}

func TestLevel_Less(t *testing.T) {
	order := []audit.Level{audit.LevelNone, audit.LevelMetadata, audit.LevelRequest, audit.LevelRequestResponse}
	for i := range order {
		for j := range order {
			if got := order[i].Less(order[j]); got != (i < j) {
				t.Errorf("%s.Less(%s) = %v", order[i], order[j], got)
			}
		}
	}
}
