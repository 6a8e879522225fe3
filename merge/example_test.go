package merge_test

import (
	"fmt"
	"log"

	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
)

// Compiling the repository's toystore topology (a shared Gateway, a route
// and two RateLimitPolicies), as `rlpkit compile` does: per Gateway, the
// PluginConfig its rate-limit filter loads and the limits its rate-limit
// service enforces, and each policy's status.
func ExampleCompile() {
	set, err := policy.Read([]string{"../examples/toystore"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := merge.Compile(set, merge.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, gw := range res.Gateways {
		fmt.Println("Gateway", gw.Gateway)
		for _, p := range gw.PluginConfig.RateLimitPolicies {
			fmt.Printf("  filter: %s on %v, domain %s, %d gateway actions\n", p.Name, p.Hostnames, p.RateLimitDomain, len(p.GatewayActions))
		}
		for _, l := range gw.Limits {
			fmt.Printf("  limit: %d per %ds %v %v\n", l.MaxValue, l.Seconds, l.Conditions, l.Variables)
		}
	}
	for _, p := range res.Policies {
		fmt.Print("policy ", p.Name)
		for _, c := range p.Conditions {
			fmt.Printf(" %s=%s (%s)", c.Type, c.Status, c.Reason)
		}
		fmt.Println()
	}
	for _, w := range res.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// Gateway gateway-system/mygateway
	//   filter: default/toystore on [*.toystore.com], domain gateway-system/mygateway#default/toystore, 3 gateway actions
	//   limit: 50 per 60s [my-key == my-value] []
	//   limit: 1000 per 60s [] [remote_address]
	//   limit: 100 per 60s [my-gw-key == my-gw-value] []
	// policy default/toystore Accepted=True (Accepted) Enforced=True (PartiallyEnforced)
	// policy gateway-system/mygateway Accepted=True (Accepted) Enforced=True (Enforced)
}
