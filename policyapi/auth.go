package policyapi

import "github.com/rlpkit/rlpkit/limit/limitador"

// AuthFrontend is a Frontend whose limits may read auth.* attributes, which an auth
// service (an AuthPolicy's Authorino) adds to a request and a Request carries in Auth.
// A replay uses it to say that a limit never applied because requests lacked them.
type AuthFrontend interface {
	Frontend
	// AuthAttributes returns the auth.* attributes, by dotted name without "auth."
	// ("identity.userid"), that decide whether l applies or that qualify its counter:
	// those its predicates and counters read. Nil when it reads none.
	AuthAttributes(l *limitador.Limit) []string
}
