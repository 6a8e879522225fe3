package descriptor

import (
	"fmt"
	"strings"
)

// Trace explains one generation: which hostname patterns were walked and which policies they
// offered, which policy was chosen, which gateway actions applied through which rule, and
// which action dropped which configuration's descriptor.
type Trace struct {
	// Host is the request host as matched (lower-case, without port or trailing dot).
	Host string `json:"host"`
	// Hostnames are the matching hostname patterns walked, most specific first.
	Hostnames []HostnameStep `json:"hostnames"`
	// PolicyIndex is the chosen policy, -1 when none.
	PolicyIndex int `json:"policyIndex"`
	// Policy is the chosen policy's name.
	Policy string `json:"policy,omitempty"`
	// GatewayActions are the chosen policy's gateway actions, in order.
	GatewayActions []ActionStep `json:"gatewayActions,omitempty"`
}

// HostnameStep is one matching hostname pattern and the policies it offered, in order.
type HostnameStep struct {
	// Pattern is the hostname pattern that matched.
	Pattern string `json:"pattern"`
	// Policies are the policies it offered, in PluginConfig order, up to the chosen one.
	Policies []PolicyStep `json:"policies"`
}

// PolicyStep is one policy offered by a hostname pattern.
type PolicyStep struct {
	// Index is the policy's index in the PluginConfig.
	Index int `json:"index"`
	// Name is the policy's name.
	Name string `json:"name,omitempty"`
	// RouteMatched says whether its routeMatches admitted the request.
	RouteMatched bool `json:"routeMatched"`
}

// ActionStep is one gateway action of the chosen policy.
type ActionStep struct {
	// Index is the gateway action's index in the policy.
	Index int `json:"index"`
	// Applied says whether the action applied to the request.
	Applied bool `json:"applied"`
	// Rule is the index of the first rule that matched, -1 when none did or the action has
	// no rules.
	Rule int `json:"rule"`
	// Configurations are the action's configurations, when it applied.
	Configurations []ConfigurationStep `json:"configurations,omitempty"`
}

// ConfigurationStep is one configuration of an applied gateway action.
type ConfigurationStep struct {
	// Index is the configuration's index in its gateway action.
	Index int `json:"index"`
	// Descriptor is the index of the descriptor it produced, -1 when it produced none.
	Descriptor int `json:"descriptor"`
	// DroppedBy is the index of the action that could not append its entry, -1 when none.
	DroppedBy int `json:"droppedBy"`
	// Reason says why that action could not append its entry.
	Reason string `json:"reason,omitempty"`
}

// String renders the trace for people, one decision per line.
func (t *Trace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "host %q\n", t.Host)
	if len(t.Hostnames) == 0 {
		b.WriteString("  no hostname pattern matches\n")
	}
	for _, h := range t.Hostnames {
		fmt.Fprintf(&b, "  hostname %q\n", h.Pattern)
		for _, p := range h.Policies {
			verdict := "route matches do not match the request"
			if p.RouteMatched {
				verdict = "chosen"
			}
			fmt.Fprintf(&b, "    policy %s: %s\n", policyLabel(p.Index, p.Name), verdict)
		}
	}
	if t.PolicyIndex < 0 {
		b.WriteString("no policy: no descriptors, the rate-limit service is not called\n")
		return b.String()
	}
	fmt.Fprintf(&b, "policy %s\n", policyLabel(t.PolicyIndex, t.Policy))
	for _, a := range t.GatewayActions {
		switch {
		case !a.Applied:
			fmt.Fprintf(&b, "  gatewayActions[%d]: no rule matches, skipped\n", a.Index)
		case a.Rule < 0:
			fmt.Fprintf(&b, "  gatewayActions[%d]: no rules, applies\n", a.Index)
		default:
			fmt.Fprintf(&b, "  gatewayActions[%d]: rules[%d] matches\n", a.Index, a.Rule)
		}
		for _, c := range a.Configurations {
			if c.DroppedBy < 0 {
				fmt.Fprintf(&b, "    configurations[%d]: descriptor %d\n", c.Index, c.Descriptor)
			} else {
				fmt.Fprintf(&b, "    configurations[%d]: dropped by actions[%d]: %s\n", c.Index, c.DroppedBy, c.Reason)
			}
		}
	}
	return b.String()
}

func policyLabel(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("rateLimitPolicies[%d]", i)
	}
	return fmt.Sprintf("%q (rateLimitPolicies[%d])", name, i)
}
