package server_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"
)

// labCRD is a namespaced CRD of group lab.example.org with the given names.
func labCRD(plural, singular, kind string, shortNames ...string) string {
	names := map[string]any{"plural": plural, "kind": kind}
	if singular != "" {
		names["singular"] = singular
	}
	if len(shortNames) > 0 {
		names["shortNames"] = shortNames
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + ".lab.example.org"},
		"spec": map[string]any{
			"group": "lab.example.org", "scope": "Namespaced", "names": names,
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}
	data, _ := json.Marshal(crd)
	return string(data)
}

// condition returns a CRD's condition of type typ as status, reason and message.
func condition(crd map[string]any, typ string) [3]string {
	status, _ := crd["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			return [3]string{s, r, msg}
		}
	}
	return [3]string{}
}

// acceptedNames returns a CRD's status.acceptedNames.
func acceptedNames(crd map[string]any) map[string]any {
	status, _ := crd["status"].(map[string]any)
	names, _ := status["acceptedNames"].(map[string]any)
	return names
}

// discoveredResources lists the resources of lab.example.org/v1 by name, with their
// singular and short names.
func (s *server) discoveredResources() map[string][]string {
	s.t.Helper()
	code, list := s.do("GET", "/apis/lab.example.org/v1", "")
	out := map[string][]string{}
	if code != http.StatusOK {
		return out
	}
	resources, _ := list["resources"].([]any)
	for _, r := range resources {
		m := r.(map[string]any)
		name := m["name"].(string)
		singular, _ := m["singularName"].(string)
		names := []string{singular}
		short, _ := m["shortNames"].([]any)
		for _, sn := range short {
			names = append(names, sn.(string))
		}
		out[name] = names
	}
	return out
}

func TestCRD_NamesAnotherCRDOfTheGroupHoldsAreRefusedAndTheOlderKeepsThem(t *testing.T) {
	gadgets := labCRD("gadgets", "gadget", "Gadget", "gd")
	gadgetsNames := map[string]any{"plural": "gadgets", "singular": "gadget", "shortNames": []any{"gd"}, "kind": "Gadget", "listKind": "GadgetList"}
	for _, tc := range []struct {
		name, crd, crdName string
		reason, message    string
		accepted           map[string]any
	}{
		{
			name: "a singular that is another CRD's plural", crd: labCRD("gizmo3s", "gadgets", "Gizmo3"), crdName: "gizmo3s.lab.example.org",
			reason: "SingularConflict", message: `"gadgets" is already in use`,
			accepted: map[string]any{"plural": "gizmo3s", "kind": "Gizmo3", "listKind": "Gizmo3List"},
		},
		{
			name: "a plural that is another CRD's singular", crd: labCRD("gadget", "gadgetone", "GadgetOne"), crdName: "gadget.lab.example.org",
			reason: "PluralConflict", message: `"gadget" is already in use`,
			// plural and kind are never omitted, as in kube's JSON.
			accepted: map[string]any{"plural": "", "singular": "gadgetone", "kind": "GadgetOne", "listKind": "GadgetOneList"},
		},
		{
			name: "another CRD's short name", crd: labCRD("widgets", "widget", "Widget", "wd", "gd"), crdName: "widgets.lab.example.org",
			reason: "ShortNamesConflict", message: `"gd" is already in use`,
			accepted: map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
		},
		{
			name: "two short names in use", crd: labCRD("widgets", "widget", "Widget", "gadget", "gd"), crdName: "widgets.lab.example.org",
			reason: "ShortNamesConflict", message: `["gadget" is already in use, "gd" is already in use]`,
			accepted: map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
		},
		{
			name: "another CRD's kind", crd: labCRD("gadgettwos", "gadgettwo", "Gadget"), crdName: "gadgettwos.lab.example.org",
			// Its list kind GadgetList is refused too, and the last refusal names the reason.
			reason: "ListKindConflict", message: `"GadgetList" is already in use`,
			accepted: map[string]any{"plural": "gadgettwos", "singular": "gadgettwo", "kind": ""},
		},
		{
			name: "a kind that is another CRD's list kind", crd: labCRD("gadgetlists", "gadgetlist", "GadgetList"), crdName: "gadgetlists.lab.example.org",
			// Its list kind GadgetListList is free.
			reason: "KindConflict", message: `"GadgetList" is already in use`,
			accepted: map[string]any{"plural": "gadgetlists", "singular": "gadgetlist", "kind": "", "listKind": "GadgetListList"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			if code, st := s.do("POST", crdsPath, gadgets); code != http.StatusCreated {
				t.Fatalf("POST gadgets = %d %v", code, st)
			}
			s.eventually("gadgets established", func() bool {
				_, crd := s.do("GET", crdsPath+"/gadgets.lab.example.org", "")
				return conditionStatus(crd, "Established") == "True"
			})
			if code, st := s.do("POST", crdsPath, tc.crd); code != http.StatusCreated {
				t.Fatalf("POST %s = %d %v", tc.crdName, code, st)
			}
			crd := s.waitObserved(tc.crdName)
			if got, want := condition(crd, "NamesAccepted"), [3]string{"False", tc.reason, tc.message}; got != want {
				t.Errorf("NamesAccepted = %q, want %q", got, want)
			}
			if got, want := condition(crd, "Established"), [3]string{"False", "NotAccepted", "not all names are accepted"}; got != want {
				t.Errorf("Established = %q, want %q", got, want)
			}
			if got := acceptedNames(crd); !reflect.DeepEqual(got, tc.accepted) {
				t.Errorf("acceptedNames = %v, want %v", got, tc.accepted)
			}
			_, older := s.do("GET", crdsPath+"/gadgets.lab.example.org", "")
			if got := acceptedNames(older); !reflect.DeepEqual(got, gadgetsNames) {
				t.Errorf("the older CRD's acceptedNames = %v, want %v", got, gadgetsNames)
			}
			if got, want := s.discoveredResources(), map[string][]string{"gadgets": {"gadget", "gd"}}; !reflect.DeepEqual(got, want) {
				t.Errorf("discovery of lab.example.org/v1 = %v, want %v", got, want)
			}
		})
	}
}

func TestCRD_ANameIsGrantedOnceTheCRDHoldingItIsGone(t *testing.T) {
	s := newServer(t)
	if code, st := s.do("POST", crdsPath, labCRD("gadgets", "gadget", "Gadget", "gd")); code != http.StatusCreated {
		t.Fatalf("POST gadgets = %d %v", code, st)
	}
	s.eventually("gadgets established", func() bool {
		_, crd := s.do("GET", crdsPath+"/gadgets.lab.example.org", "")
		return conditionStatus(crd, "Established") == "True"
	})
	if code, st := s.do("POST", crdsPath, labCRD("widgets", "widget", "Widget", "gd")); code != http.StatusCreated {
		t.Fatalf("POST widgets = %d %v", code, st)
	}
	if c := condition(s.waitObserved("widgets.lab.example.org"), "NamesAccepted"); c[1] != "ShortNamesConflict" {
		t.Fatalf("widgets NamesAccepted = %q, want ShortNamesConflict", c)
	}
	s.deleteCRDAndWait("gadgets.lab.example.org")
	var crd map[string]any
	s.eventually("widgets established", func() bool {
		_, crd = s.do("GET", crdsPath+"/widgets.lab.example.org", "")
		return conditionStatus(crd, "Established") == "True"
	})
	if got := condition(crd, "NamesAccepted"); got != [3]string{"True", "NoConflicts", "no conflicts found"} {
		t.Errorf("NamesAccepted = %q", got)
	}
	if got := s.discoveredResources()["widgets"]; !slices.Equal(got, []string{"widget", "gd"}) {
		t.Errorf("discovery of widgets = %v, want singular widget and short name gd", got)
	}
}

func TestCRD_AnEstablishedCRDAskingForNamesInUseKeepsItsOwnAndIsStillServed(t *testing.T) {
	s := newServer(t)
	for _, crd := range []string{labCRD("gadgets", "gadget", "Gadget", "gd"), labCRD("widgets", "widget", "Widget", "wd")} {
		if code, st := s.do("POST", crdsPath, crd); code != http.StatusCreated {
			t.Fatalf("POST CRD = %d %v", code, st)
		}
	}
	s.eventually("both established", func() bool {
		_, a := s.do("GET", crdsPath+"/gadgets.lab.example.org", "")
		_, b := s.do("GET", crdsPath+"/widgets.lab.example.org", "")
		return conditionStatus(a, "Established") == "True" && conditionStatus(b, "Established") == "True"
	})
	_, widgets := s.do("GET", crdsPath+"/widgets.lab.example.org", "")
	spec := widgets["spec"].(map[string]any)
	spec["names"].(map[string]any)["shortNames"] = []any{"gd"}
	body, _ := json.Marshal(widgets)
	if code, st := s.do("PUT", crdsPath+"/widgets.lab.example.org", string(body)); code != http.StatusOK {
		t.Fatalf("PUT widgets = %d %v", code, st)
	}
	var crd map[string]any
	s.eventually("the new generation observed", func() bool {
		_, crd = s.do("GET", crdsPath+"/widgets.lab.example.org", "")
		return condition(crd, "NamesAccepted")[0] == "False"
	})
	if got := condition(crd, "NamesAccepted"); got != [3]string{"False", "ShortNamesConflict", `"gd" is already in use`} {
		t.Errorf("NamesAccepted = %q", got)
	}
	if got := conditionStatus(crd, "Established"); got != "True" {
		t.Errorf("Established = %q, want it to stay True", got)
	}
	if got := acceptedNames(crd)["shortNames"]; !reflect.DeepEqual(got, []any{"wd"}) {
		t.Errorf("acceptedNames.shortNames = %v, want the [wd] held before", got)
	}
	if got := s.discoveredResources(); !slices.Equal(got["widgets"], []string{"widget", "wd"}) || !slices.Equal(got["gadgets"], []string{"gadget", "gd"}) {
		t.Errorf("discovery = %v, want widgets still by wd and gadgets by gd", got)
	}
	if code, _ := s.do("GET", "/apis/lab.example.org/v1/namespaces/default/widgets", ""); code != http.StatusOK {
		t.Errorf("GET widgets = %d, want 200: it is still served", code)
	}
}
