package envoyxds

import (
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlsconfv3 "github.com/envoyproxy/go-control-plane/envoy/config/ratelimit/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	"github.com/rlpkit/rlpkit/descriptor"
)

// filterNames returns the name of the rate-limit filter each policy's routes configure: one
// filter per distinct upstream cluster (a filter instance has one rate-limit service), named
// FilterName when there is only one, and FilterName + "/" + cluster otherwise.
func filterNames(cfg *descriptor.PluginConfig) (perPolicy []string, clusters []string) {
	index := make(map[string]bool)
	for i := range cfg.RateLimitPolicies {
		c := cfg.RateLimitPolicies[i].UpstreamCluster
		if !index[c] {
			index[c] = true
			clusters = append(clusters, c)
		}
	}
	perPolicy = make([]string, len(cfg.RateLimitPolicies))
	for i := range cfg.RateLimitPolicies {
		perPolicy[i] = filterName(cfg.RateLimitPolicies[i].UpstreamCluster, len(clusters))
	}
	return perPolicy, clusters
}

func filterName(cluster string, clusters int) string {
	if clusters == 1 {
		return FilterName
	}
	return FilterName + "/" + cluster
}

// filterConfig returns the configuration of the filter for one upstream cluster. Its domain
// is that of the first policy using the cluster; every generated route overrides it with its
// own policy's domain (RateLimitPerRoute.domain), so it applies only to routes that are not
// generated here.
func filterConfig(cfg *descriptor.PluginConfig, cluster string) *ratelimitv3.RateLimit {
	domain := ""
	for i := range cfg.RateLimitPolicies {
		if cfg.RateLimitPolicies[i].UpstreamCluster == cluster {
			domain = cfg.RateLimitPolicies[i].RateLimitDomain
			break
		}
	}
	return &ratelimitv3.RateLimit{
		Domain:          domain,
		FailureModeDeny: cfg.FailureModeDeny != nil && *cfg.FailureModeDeny,
		RateLimitService: &rlsconfv3.RateLimitServiceConfig{
			GrpcService: &corev3.GrpcService{
				TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{
					EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster},
				},
			},
			TransportApiVersion: corev3.ApiVersion_V3,
		},
	}
}

// httpFilter wraps a filter configuration for the HTTP connection manager.
func httpFilter(name string, fc *ratelimitv3.RateLimit) (*hcmv3.HttpFilter, error) {
	a, err := pack(fc)
	if err != nil {
		return nil, err
	}
	return &hcmv3.HttpFilter{Name: name, ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: a}}, nil
}
