package envoygateway

import (
	"strconv"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	localrlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// localFilter is the name of Envoy's local rate limit filter, the key of its per-route
// configuration.
const localFilter = "envoy.filters.http.local_ratelimit"

func tokenBucket(requests uint32, unit egv1alpha1.RateLimitUnit) *typev3.TokenBucket {
	return &typev3.TokenBucket{
		MaxTokens: requests, TokensPerFill: wrapperspb.UInt32(requests),
		FillInterval: durationpb.New(time.Duration(unit.Seconds()) * time.Second),
	}
}

// localConfig returns a route's local rate limit filter configuration, as Envoy Gateway
// writes it: the default token bucket, and per rule (per method) a RateLimit and the
// descriptor whose bucket it counts on.
func localConfig(l *Local) *localrlv3.LocalRateLimit {
	headers := rlv3.XRateLimitHeadersRFCVersion_DRAFT_VERSION_03
	if l.XRateLimitHeaders != nil && *l.XRateLimitHeaders == egv1alpha1.XRateLimitHeadersOff {
		headers = rlv3.XRateLimitHeadersRFCVersion_OFF
	}
	all := &corev3.RuntimeFractionalPercent{DefaultValue: &typev3.FractionalPercent{Numerator: 100, Denominator: typev3.FractionalPercent_HUNDRED}}
	cfg := &localrlv3.LocalRateLimit{
		StatPrefix:                      "http_local_rate_limiter",
		TokenBucket:                     tokenBucket(l.Requests, l.Unit),
		FilterEnabled:                   all,
		FilterEnforced:                  all,
		EnableXRatelimitHeaders:         headers,
		AlwaysConsumeDefaultTokenBucket: wrapperspb.Bool(false),
		Descriptors:                     []*rlv3.LocalRateLimitDescriptor{},
		RateLimits:                      []*routev3.RateLimit{},
	}
	for i, r := range l.Rules {
		methods := []*StringMatch{nil}
		if len(r.Methods) > 0 {
			methods = nil
			for mi := range r.Methods {
				methods = append(methods, &r.Methods[mi])
			}
		}
		for _, m := range methods {
			actions := ruleActions(r, i, m, "rule-"+strconv.Itoa(i)+"-masked-remote-address", "rule-"+strconv.Itoa(i)+"-remote-address")
			cfg.RateLimits = append(cfg.RateLimits, &routev3.RateLimit{Actions: actions, XRatelimitOption: xRateLimitOption(r.XRateLimitHeaders)})
			cfg.Descriptors = append(cfg.Descriptors, &rlv3.LocalRateLimitDescriptor{
				Entries: localEntries(actions), TokenBucket: tokenBucket(r.Requests, r.Unit), ShadowMode: r.ShadowMode,
			})
		}
	}
	return cfg
}

// localEntries returns the descriptor entries a local rule's actions produce: the fixed
// ones with their value, the request-valued ones (a distinct header, parameter or address)
// with none, each value getting its own bucket.
func localEntries(actions []*routev3.RateLimit_Action) []*rlv3.RateLimitDescriptor_Entry {
	out := make([]*rlv3.RateLimitDescriptor_Entry, 0, len(actions))
	for _, a := range actions {
		e := &rlv3.RateLimitDescriptor_Entry{}
		switch x := a.ActionSpecifier.(type) {
		case *routev3.RateLimit_Action_HeaderValueMatch_:
			e.Key, e.Value = x.HeaderValueMatch.DescriptorKey, x.HeaderValueMatch.DescriptorValue
		case *routev3.RateLimit_Action_QueryParameterValueMatch_:
			e.Key, e.Value = x.QueryParameterValueMatch.DescriptorKey, x.QueryParameterValueMatch.DescriptorValue
		case *routev3.RateLimit_Action_RequestHeaders_:
			e.Key = x.RequestHeaders.DescriptorKey
		case *routev3.RateLimit_Action_QueryParameters_:
			e.Key = x.QueryParameters.DescriptorKey
		case *routev3.RateLimit_Action_RemoteAddressMatch_:
			e.Key = x.RemoteAddressMatch.DescriptorKey
			if x.RemoteAddressMatch.DescriptorValue != remoteAddressFormat {
				e.Value = x.RemoteAddressMatch.DescriptorValue
			}
		}
		out = append(out, e)
	}
	return out
}
