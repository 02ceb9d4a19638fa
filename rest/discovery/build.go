package discovery

import (
	"fmt"
	"strconv"

	"github.com/apikit-dev/apikit/scheme/openapi"
)

// buildDiscovery renders every discovery document of m.
func (h *handler) buildDiscovery(m model) error {
	groupList := APIGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: []APIGroup{}}
	for _, g := range m.groups {
		for _, v := range g.versions {
			list := APIResourceList{
				Kind:         "APIResourceList",
				APIVersion:   "v1",
				GroupVersion: groupVersionString(g.name, v.version),
				Resources:    []APIResource{},
			}
			for _, rm := range v.resources {
				list.Resources = append(list.Resources, apiResources(rm, v.version)...)
			}
			data, err := marshal(list)
			if err != nil {
				return fmt.Errorf("discovery: encoding %s: %w", list.GroupVersion, err)
			}
			h.resourceLists[list.GroupVersion] = document{data: data}
		}
		if g.name == "" {
			for _, v := range g.versions {
				h.coreVersions = append(h.coreVersions, v.version)
			}
			continue
		}
		group := APIGroup{Name: g.name, Versions: []GroupVersionForDiscovery{}}
		for _, v := range g.versions {
			group.Versions = append(group.Versions, GroupVersionForDiscovery{GroupVersion: groupVersionString(g.name, v.version), Version: v.version})
		}
		group.PreferredVersion = group.Versions[0]
		groupList.Groups = append(groupList.Groups, group)
		single := group
		single.Kind, single.APIVersion = "APIGroup", "v1"
		data, err := marshal(single)
		if err != nil {
			return fmt.Errorf("discovery: encoding group %s: %w", g.name, err)
		}
		h.groups[g.name] = document{data: data}
	}
	if h.coreVersions == nil {
		h.coreVersions = []string{}
	}
	data, err := marshal(groupList)
	if err != nil {
		return fmt.Errorf("discovery: encoding APIGroupList: %w", err)
	}
	h.groupList = document{data: data}

	for _, prefix := range []string{"api", "apis"} {
		h.aggregated[prefix] = map[string]document{}
		var items []APIGroupDiscovery
		for _, g := range m.groups {
			if (g.name == "") == (prefix == "api") {
				items = append(items, aggregatedGroup(g))
			}
		}
		if items == nil {
			items = []APIGroupDiscovery{}
		}
		for _, av := range AggregatedVersions {
			list := APIGroupDiscoveryList{Kind: AggregatedKind, APIVersion: AggregatedGroup + "/" + av, Items: items}
			data, err := marshal(list)
			if err != nil {
				return fmt.Errorf("discovery: encoding aggregated discovery: %w", err)
			}
			h.aggregated[prefix][av] = document{data: data, etag: strconv.Quote(openapi.Hash(data))}
		}
	}
	return nil
}

// apiResources lists a resource and its subresources as /apis/GROUP/VERSION shows them.
func apiResources(rm resourceModel, version string) []APIResource {
	r := rm.r
	out := []APIResource{{
		Name:               r.Plural,
		SingularName:       r.Singular,
		Namespaced:         r.Namespaced,
		Kind:               r.Kind,
		Verbs:              rm.r.Verbs,
		ShortNames:         r.ShortNames,
		Categories:         r.Categories,
		StorageVersionHash: rm.storageHash,
	}}
	for _, sub := range r.Subresources() {
		gvk := subresourceKind(r, version, sub)
		res := APIResource{Name: r.Plural + "/" + sub, Namespaced: r.Namespaced, Kind: gvk.Kind, Verbs: subresourceVerbs(r, sub)}
		if gvk.Group != r.Group || gvk.Version != version {
			res.Group, res.Version = gvk.Group, gvk.Version
		}
		out = append(out, res)
	}
	return out
}

// aggregatedGroup renders one group of aggregated discovery.
func aggregatedGroup(g groupModel) APIGroupDiscovery {
	out := APIGroupDiscovery{Metadata: GroupMetadata{Name: g.name}}
	for _, v := range g.versions {
		vd := APIVersionDiscovery{Version: v.version, Freshness: "Current", Resources: []APIResourceDiscovery{}}
		for _, rm := range v.resources {
			r := rm.r
			scope := ScopeCluster
			if r.Namespaced {
				scope = ScopeNamespaced
			}
			rd := APIResourceDiscovery{
				Resource:         r.Plural,
				ResponseKind:     &GroupVersionKind{Group: g.name, Version: v.version, Kind: r.Kind},
				Scope:            scope,
				SingularResource: r.Singular,
				Verbs:            rm.r.Verbs,
				ShortNames:       r.ShortNames,
				Categories:       r.Categories,
			}
			for _, sub := range r.Subresources() {
				gvk := subresourceKind(r, v.version, sub)
				rd.Subresources = append(rd.Subresources, APISubresourceDiscovery{
					Subresource:  sub,
					ResponseKind: &GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
					Verbs:        subresourceVerbs(r, sub),
				})
			}
			vd.Resources = append(vd.Resources, rd)
		}
		out.Versions = append(out.Versions, vd)
	}
	return out
}
