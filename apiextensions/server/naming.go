package server

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/apikit-dev/apikit/apiextensions"
)

// naming is what kube-apiserver's naming controller decides for one CRD: the names it
// holds (status.acceptedNames) and its NamesAccepted condition.
type naming struct {
	names   apiextensions.CustomResourceDefinitionNames
	status  apiextensions.ConditionStatus
	reason  string
	message string
}

// accepted reports whether every name the CRD asks for is its own.
func (n naming) accepted() bool { return n.status == apiextensions.ConditionTrue }

// complete reports whether the names held are enough to serve the resource by.
func (n naming) complete() bool {
	return n.names.Plural != "" && n.names.Kind != "" && n.names.ListKind != ""
}

// acceptNames decides, as kube's naming controller does, the names each CRD holds. A
// CRD keeps the names it already holds (status.acceptedNames) whatever the others ask
// for; a name it asks for anew is granted unless another CRD of its group holds it, as
// a plural, singular or short name for the first three and as a kind or list kind for
// the other two. A refused name leaves the one held before, and NamesAccepted False
// with the reason of the last refusal (PluralConflict, SingularConflict,
// ShortNamesConflict, KindConflict, ListKindConflict) and the message `"x" is already in
// use`. CRDs being deleted keep their names until they are gone. The CRDs are decided
// one at a time, oldest first, each seeing the names granted before it, so of two new
// CRDs asking for one name the older gets it.
func acceptNames(crds []*apiextensions.CustomResourceDefinition) map[string]naming {
	groups := map[string]*usedNames{}
	for _, crd := range crds {
		g := groups[crd.Spec.Group]
		if g == nil {
			g = &usedNames{resources: map[string]int{}, kinds: map[string]int{}}
			groups[crd.Spec.Group] = g
		}
		g.add(crd.Status.AcceptedNames, 1)
	}
	ordered := slices.Clone(crds)
	sort.SliceStable(ordered, func(i, j int) bool {
		a, b := ordered[i].CreationTimestamp.Time, ordered[j].CreationTimestamp.Time
		if !a.Equal(b) {
			return a.Before(b)
		}
		return ordered[i].Name < ordered[j].Name
	})
	out := make(map[string]naming, len(crds))
	for _, crd := range ordered {
		g := groups[crd.Spec.Group]
		n := decideNames(crd, g)
		g.add(crd.Status.AcceptedNames, -1)
		g.add(n.names, 1)
		out[crd.Name] = n
	}
	return out
}

// usedNames counts the names the CRDs of one group hold: plurals, singulars and short
// names in resources, kinds and list kinds in kinds.
type usedNames struct {
	resources, kinds map[string]int
}

// add counts the names of n, delta times.
func (u *usedNames) add(n apiextensions.CustomResourceDefinitionNames, delta int) {
	u.resources[n.Plural] += delta
	u.resources[n.Singular] += delta
	for _, s := range n.ShortNames {
		u.resources[s] += delta
	}
	u.kinds[n.Kind] += delta
	u.kinds[n.ListKind] += delta
}

// decideNames is the naming controller's decision for one CRD, given the names the
// CRDs of its group hold now, its own included.
func decideNames(crd *apiextensions.CustomResourceDefinition, used *usedNames) naming {
	requested, current := crd.Spec.Names, crd.Status.AcceptedNames
	if reflect.DeepEqual(requested, current) {
		return naming{names: current, status: apiextensions.ConditionTrue, reason: "NoConflicts", message: "no conflicts found"}
	}
	n := naming{names: current, status: apiextensions.ConditionTrue}
	refuse := func(reason string, err error) {
		n.status, n.reason, n.message = apiextensions.ConditionFalse, reason, err.Error()
	}
	if err := freshOrHeld(requested.Plural, current.Plural, used.resources); err != nil {
		refuse("PluralConflict", err)
	} else {
		n.names.Plural = requested.Plural
	}
	if err := freshOrHeld(requested.Singular, current.Singular, used.resources); err != nil {
		refuse("SingularConflict", err)
	} else {
		n.names.Singular = requested.Singular
	}
	if !reflect.DeepEqual(requested.ShortNames, current.ShortNames) {
		var msgs []string
		for _, s := range requested.ShortNames {
			if slices.Contains(current.ShortNames, s) {
				continue
			}
			if err := freshOrHeld(s, "", used.resources); err != nil && !slices.Contains(msgs, err.Error()) {
				msgs = append(msgs, err.Error())
			}
		}
		switch len(msgs) {
		case 0:
			n.names.ShortNames = requested.ShortNames
		case 1:
			refuse("ShortNamesConflict", errors.New(msgs[0]))
		default:
			// kube aggregates the refusals as utilerrors.NewAggregate prints them.
			refuse("ShortNamesConflict", fmt.Errorf("[%s]", strings.Join(msgs, ", ")))
		}
	}
	if err := freshOrHeld(requested.Kind, current.Kind, used.kinds); err != nil {
		refuse("KindConflict", err)
	} else {
		n.names.Kind = requested.Kind
	}
	if err := freshOrHeld(requested.ListKind, current.ListKind, used.kinds); err != nil {
		refuse("ListKindConflict", err)
	} else {
		n.names.ListKind = requested.ListKind
	}
	n.names.Categories = requested.Categories
	if n.status == apiextensions.ConditionTrue {
		n.reason, n.message = "NoConflicts", "no conflicts found"
	}
	return n
}

// freshOrHeld refuses a requested name that differs from the one held and is in use.
func freshOrHeld(requested, held string, used map[string]int) error {
	if requested == held || used[requested] == 0 {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}
