package envoyratelimit

import (
	"fmt"
	"strings"
)

// Dump returns the configuration as the reference's debug endpoint
// /rlconfig prints it: one line per descriptor with limits, its statistics
// key then its limits, in load order.
//
//	messaging.message_type_marketing.to_number: unit=DAY requests_per_unit=5, shadow_mode: false
func (c *Config) Dump() string {
	var b strings.Builder
	for _, d := range c.Domains() {
		dumpLevel(&b, d.root.nodes)
	}
	return b.String()
}

func dumpLevel(b *strings.Builder, nodes []*Node) {
	for _, n := range nodes {
		for _, r := range n.Limits {
			b.WriteString(n.StatsKey)
			b.WriteString(": ")
			switch {
			case r.Unlimited:
				b.WriteString("unlimited")
			default:
				fmt.Fprintf(b, "unit=%v requests_per_unit=%d", r.Unit, r.RequestsPerUnit)
				if r.UnitMultiplier > 1 {
					fmt.Fprintf(b, " unit_multiplier=%d", r.UnitMultiplier)
				}
				if r.Algorithm != 0 {
					fmt.Fprintf(b, " algorithm=%v", r.Algorithm)
				}
			}
			if r.Name != "" {
				fmt.Fprintf(b, " name=%s", r.Name)
			}
			fmt.Fprintf(b, ", shadow_mode: %t\n", n.ShadowMode)
		}
		dumpLevel(b, n.children.nodes)
	}
}
