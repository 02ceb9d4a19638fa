package discovery

import (
	"github.com/apikit-dev/apikit/codec"
)

// negotiation is the outcome of reading a discovery request's Accept header.
type negotiation struct {
	// mediaType is application/json or application/yaml.
	mediaType string
	// aggregated is the aggregated discovery version asked for ("v2", "v2beta1"), or "".
	aggregated string
}

// encode returns data (JSON) in the negotiated media type.
func (n negotiation) encode(data []byte) []byte {
	if n.mediaType != codec.MediaTypeYAML {
		return data
	}
	y, err := codec.JSONToYAML(data)
	if err != nil {
		return data
	}
	return y
}

// negotiate picks JSON or YAML for a discovery document. A clause with as=, g= or v= asks
// for a transformed document: aggregated discovery when allowAggregated and it names a
// version in AggregatedVersions, otherwise the clause is not acceptable (as
// kube-apiserver's endpoint restrictions make it). Other parameters (profile, pretty)
// are ignored. With several acceptable clauses, the most specific one of the highest q
// wins, so an aggregated clause beats a bare application/json of the same q.
func negotiate(accept string, allowAggregated bool) (negotiation, error) {
	allow := func(c codec.MediaType, _ string) bool {
		_, as := c.Params["as"]
		_, g := c.Params["g"]
		_, v := c.Params["v"]
		if !as && !g && !v {
			return true
		}
		return allowAggregated && aggregatedVersion(c) != ""
	}
	m, err := codec.NegotiateFunc(accept, []string{codec.MediaTypeJSON, codec.MediaTypeYAML}, allow)
	if err != nil {
		return negotiation{}, err
	}
	return negotiation{mediaType: m.Offered, aggregated: aggregatedVersion(m.Clause)}, nil
}

// aggregatedVersion returns the aggregated discovery version a clause asks for, or "".
func aggregatedVersion(c codec.MediaType) string {
	if c.Params["g"] != AggregatedGroup || c.Params["as"] != AggregatedKind {
		return ""
	}
	for _, v := range AggregatedVersions {
		if c.Params["v"] == v {
			return v
		}
	}
	return ""
}
