package envoyroute

import (
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/rlpkit/rlpkit/fielderr"
)

// rateLimit checks one RateLimit: of route r (nil for a virtual host's or a filter's), in
// a RateLimitPerRoute when perRoute.
func (k *checker) rateLimit(p fielderr.Path, rl *routev3.RateLimit, r *routev3.Route, perRoute bool) {
	if perRoute && rl.Stage != nil {
		k.fail(p.Child("stage"), "Envoy does not accept a stage in a RateLimitPerRoute")
	}
	if rl.GetStage().GetValue() > 10 {
		k.fail(p.Child("stage"), "stage %d: Envoy accepts 0 to 10", rl.GetStage().GetValue())
	}
	if len(rl.Actions) == 0 {
		k.fail(p.Child("actions"), "Required value: a rate limit needs at least one action")
	}
	for i, a := range rl.Actions {
		k.action(p.Child("actions").Index(i), a, r)
	}
	if h := rl.HitsAddend; h != nil {
		if h.Format != "" {
			if _, ok := metadataFormat(h.Format); !ok {
				k.fail(p.Child("hits_addend").Child("format"), "format %q: only %%DYNAMIC_METADATA(namespace:key...)%% is modelled", h.Format)
			}
		}
		if h.IsNegativeHits {
			k.fail(p.Child("hits_addend").Child("is_negative_hits"), "refunds are not modelled")
		}
	}
	if rl.Limit != nil && rl.Limit.GetDynamicMetadata() == nil {
		k.fail(p.Child("limit"), "only a dynamic_metadata limit override is modelled")
	}
}

func (k *checker) action(p fielderr.Path, a *routev3.RateLimit_Action, r *routev3.Route) {
	switch s := a.ActionSpecifier.(type) {
	case *routev3.RateLimit_Action_DestinationCluster_:
		if r != nil {
			if ra := r.GetRoute(); ra.GetCluster() == "" && ra.GetClusterHeader() == "" {
				k.fail(p.Child("destination_cluster"), "the route's cluster is chosen at random or by a plugin (weighted_clusters, cluster_specifier_plugin): rlpkit cannot tell which one Envoy picks")
			}
		}
	case *routev3.RateLimit_Action_HeaderValueMatch_:
		k.headers(p.Child("header_value_match").Child("headers"), s.HeaderValueMatch.Headers)
	case *routev3.RateLimit_Action_QueryParameterValueMatch_:
		for i, q := range s.QueryParameterValueMatch.QueryParameters {
			k.queryMatcher(p.Child("query_parameter_value_match").Child("query_parameters").Index(i), q)
		}
	case *routev3.RateLimit_Action_RequestHeaders_:
		if s.RequestHeaders.HeaderName == "" || s.RequestHeaders.DescriptorKey == "" {
			k.fail(p.Child("request_headers"), "Required value: header_name and descriptor_key")
		}
	case *routev3.RateLimit_Action_QueryParameters_:
		if s.QueryParameters.QueryParameterName == "" || s.QueryParameters.DescriptorKey == "" {
			k.fail(p.Child("query_parameters"), "Required value: query_parameter_name and descriptor_key")
		}
	case *routev3.RateLimit_Action_MaskedRemoteAddress_:
		m := s.MaskedRemoteAddress
		if m.GetV4PrefixMaskLen() != nil && m.GetV4PrefixMaskLen().GetValue() > 32 {
			k.fail(p.Child("masked_remote_address").Child("v4_prefix_mask_len"), "at most 32")
		}
		if m.GetV6PrefixMaskLen() != nil && m.GetV6PrefixMaskLen().GetValue() > 128 {
			k.fail(p.Child("masked_remote_address").Child("v6_prefix_mask_len"), "at most 128")
		}
	case *routev3.RateLimit_Action_Extension:
		k.fail(p.Child("extension"), "descriptor extensions are not modelled")
	case *routev3.RateLimit_Action_SourceCluster_, *routev3.RateLimit_Action_RemoteAddress_, *routev3.RateLimit_Action_GenericKey_,
		*routev3.RateLimit_Action_DynamicMetadata, *routev3.RateLimit_Action_Metadata:
	case nil:
		k.fail(p, "Required value: an action")
	}
}

// metadataFormat parses a hits_addend format of the form "%DYNAMIC_METADATA(ns:key...)%".
func metadataFormat(format string) ([]string, bool) {
	args, ok := strings.CutPrefix(format, "%DYNAMIC_METADATA(")
	if args, ok = strings.CutSuffix(args, ")%"); !ok || args == "" || strings.ContainsAny(args, ")%") {
		return nil, false
	}
	return strings.Split(args, ":"), true
}
