package merge

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
)

// blame checks the configuration compiled for one route, dp and its limits, as package
// descriptor and package limit/limitador will. When it is invalid, it records in bad, for each policy
// responsible and not yet recorded, a status message naming the problems in the policy's own
// fields, the route and the Gateway, and what to do. A problem in an
// action or a limit is its origin's; any other (a field the route contributes) is every merged
// policy's. Compile calls it only for the routes of a Gateway whose configuration is invalid.
func blame(bad map[*policy.RateLimitPolicy]string, gateway string, rc *RouteConfig, dp *descriptor.Policy, limits []limitador.Limit) {
	problems := map[string][]string{} // by "ns/name" of the policy
	add := func(pol, msg string) { problems[pol] = append(problems[pol], msg) }
	var derrs fielderr.List
	if err := descriptor.Validate(&descriptor.PluginConfig{RateLimitPolicies: []descriptor.Policy{*dp}}); errors.As(err, &derrs) {
		for _, e := range derrs {
			field := strings.TrimPrefix(e.Field, "rateLimitPolicies[0].")
			if i, rest, ok := cutIndex(field, "gatewayActions"); ok && i < len(rc.Actions) {
				o := rc.Actions[i].Origin
				add(o.Policy, o.piece("gatewayActions")+rest+": "+e.Detail)
				continue
			}
			for _, s := range rc.Sections {
				add(nsName(&s.Policy.ObjectMeta), fmt.Sprintf("the compiled %s: %s", field, e.Detail))
			}
		}
	}
	var lerrs fielderr.List
	if err := limitador.ValidateLimits(limits); errors.As(err, &lerrs) {
		for _, e := range lerrs {
			if i, rest, ok := cutIndex(e.Field, ""); ok && i < len(rc.Limits) {
				o := rc.Limits[i].Origin
				add(o.Policy, o.piece("rateLimits")+rest+": "+limitIndexes(e.Detail, o.Policy, rc.Limits))
				continue
			}
			for _, s := range rc.Sections {
				add(nsName(&s.Policy.ObjectMeta), fmt.Sprintf("the compiled limits%s: %s", e.Field, e.Detail))
			}
		}
	}
	for _, s := range rc.Sections {
		name := nsName(&s.Policy.ObjectMeta)
		if _, done := bad[s.Policy]; done || problems[name] == nil {
			continue
		}
		bad[s.Policy] = fmt.Sprintf("the policy does not compile for HTTPRoute %s on Gateway %s: %s; correct these fields (rlpkit validate checks them in files); until then the policy is left out and everything else compiles without it",
			rc.Route, gateway, strings.Join(slices.Compact(problems[name]), "; "))
	}
}

// cutIndex splits "list[3].rest" into 3 and ".rest".
func cutIndex(path, list string) (int, string, bool) {
	rest, ok := strings.CutPrefix(path, list+"[")
	if !ok {
		return 0, "", false
	}
	n, rest, ok := strings.Cut(rest, "]")
	if !ok {
		return 0, "", false
	}
	i, err := strconv.Atoi(n)
	return i, rest, err == nil && i >= 0
}

var limitIndex = regexp.MustCompile(`\[(\d+)\]`)

// limitIndexes rewrites the indexes of package limit's messages ("same identity as [0]") as
// the fields of the limits' origins, seen from policy pol.
func limitIndexes(msg, pol string, limits []EffectiveLimit) string {
	return limitIndex.ReplaceAllStringFunc(msg, func(m string) string {
		i, err := strconv.Atoi(m[1 : len(m)-1])
		if err != nil || i >= len(limits) {
			return m
		}
		if o := limits[i].Origin; o.Policy != pol {
			return o.path("rateLimits")
		}
		return limits[i].Origin.piece("rateLimits")
	})
}
