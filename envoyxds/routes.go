package envoyxds

import (
	"errors"
	"sort"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"

	"github.com/rlpkit/rlpkit/descriptor"
)

// unit is a set of gateway actions whose rules match the same requests: they apply together.
type unit struct {
	cells   cellSet
	actions []int
}

// block is a set of routes that share their rate limits: those of the policy's unconditional
// gateway actions and of the chosen units. A request reaches the block's routes exactly when
// the chosen units are the ones that apply to it (see policyRoutes).
type block struct {
	units []int
	cells cellSet
}

// routeSpec is one route to generate for a policy: its match and which gateway actions'
// configurations it rate-limits with, in gateway action order.
type routeSpec struct {
	match   *routev3.RouteMatch
	actions []int
}

// errTooManyRoutes reports that the routes of a virtual host would exceed their budget.
var errTooManyRoutes = errors.New("too many routes")

// policyRoutes returns the routes of one policy in one virtual host, at most budget of them.
//
// Envoy applies every RateLimit of the route it selects, and selects the first route that
// matches; descriptor applies the configurations of every gateway action that has no rules or
// a matching rule. So each route carries the configurations of one set S of gateway actions,
// and matches the requests for which at least the actions of S apply: the conjunction of the
// policy's route match and one rule of each action in S. Routes are ordered from the largest
// sets to the smallest, so the first route that matches a request is one whose set is exactly
// the actions that apply to it: a route for a larger set does not match (some action of it
// does not apply), and neither does one for another set of the same size. Together, the
// routes match every request of the policy's route match (each request's own set has a
// route for it), so a request the policy takes never reaches a less specific policy's routes.
func policyRoutes(pol *descriptor.Policy, plan policyPlan, budget int) ([]routeSpec, error) {
	always, units, err := planActions(pol, plan.enabled, budget)
	if err != nil {
		return nil, err
	}
	var out []routeSpec
	matches := pol.RouteMatches
	if len(matches) == 0 {
		matches = []descriptor.RouteMatch{{}}
	}
	for mi := range matches {
		base, headers := routeMatchBase(&matches[mi])
		blocks, err := enumerate(units, base, budget-len(out))
		if err != nil {
			return nil, err
		}
		for _, b := range blocks {
			actions := append([]int(nil), always...)
			for _, u := range b.units {
				actions = append(actions, units[u].actions...)
			}
			sort.Ints(actions)
			for _, m := range emitMatches(b.cells, headers) {
				out = append(out, routeSpec{match: m, actions: actions})
			}
			if len(out) > budget {
				return nil, errTooManyRoutes
			}
		}
	}
	return out, nil
}

// planActions sorts the gateway actions that have configurations into those that apply to
// every request of the virtual host (no rules, or a rule that matches everything) and units
// of actions with the same conditions. Actions none of whose rules can match here are left
// out: their configurations never apply. An action with more than limit cells (paths times
// methods) is refused, which bounds the work of enumerate.
func planActions(pol *descriptor.Policy, enabled [][]bool, limit int) (always []int, units []unit, err error) {
	byKey := make(map[string]int)
	for g := range pol.GatewayActions {
		ga := &pol.GatewayActions[g]
		if len(ga.Configurations) == 0 {
			continue
		}
		if len(ga.Rules) == 0 {
			always = append(always, g)
			continue
		}
		var all []cell
		for r := range ga.Rules {
			if !enabled[g][r] {
				continue
			}
			rule := &ga.Rules[r]
			if max(1, len(rule.Paths))*max(1, len(rule.Methods)) > limit-len(all) {
				return nil, nil, errTooManyRoutes
			}
			all = append(all, ruleCells(rule)...)
		}
		cells := reduce(all)
		switch {
		case len(cells) == 0:
			continue
		case len(cells) == 1 && cells[0].isAny():
			always = append(always, g)
			continue
		}
		k := cells.key()
		if u, ok := byKey[k]; ok {
			units[u].actions = append(units[u].actions, g)
			continue
		}
		byKey[k] = len(units)
		units = append(units, unit{cells: cells, actions: []int{g}})
	}
	return always, units, nil
}

// ruleCells returns the cells of a rule: every path with every method.
func ruleCells(r *descriptor.Rule) []cell {
	atoms := []pathAtom{{kind: atomAny}}
	if len(r.Paths) > 0 {
		atoms = atoms[:0]
		for _, p := range r.Paths {
			atoms = append(atoms, rulePathAtom(p))
		}
	}
	methods := r.Methods
	if len(methods) == 0 {
		methods = []string{""}
	}
	var out []cell
	for _, a := range atoms {
		for _, m := range methods {
			out = append(out, cell{path: a, method: m})
		}
	}
	return out
}

// routeMatchBase returns the cells and header matchers of a policy route match, with Gateway
// API semantics: an Exact path, or a PathPrefix that matches whole segments (the path itself
// or below it).
func routeMatchBase(m *descriptor.RouteMatch) (cellSet, []*routev3.HeaderMatcher) {
	atoms := []pathAtom{{kind: atomAny}}
	if m.Path != nil {
		v := m.Path.Value
		if v == "" {
			v = "/"
		}
		if m.Path.Type == descriptor.PathMatchExact {
			atoms = []pathAtom{{kind: atomExact, value: v}}
		} else if v = strings.TrimRight(v, "/"); v != "" {
			atoms = []pathAtom{{kind: atomExact, value: v}, {kind: atomPrefix, value: v + "/"}}
		}
	}
	var cells []cell
	for _, a := range atoms {
		cells = append(cells, cell{path: a, method: m.Method})
	}
	var headers []*routev3.HeaderMatcher
	for _, h := range m.Headers {
		hm := &routev3.HeaderMatcher{Name: strings.ToLower(h.Name)}
		if h.Type == descriptor.HeaderMatchRegularExpression {
			hm.HeaderMatchSpecifier = stringMatch(regexOrEmpty(h.Value))
		} else {
			hm.HeaderMatchSpecifier = stringMatch(exact(h.Value))
		}
		headers = append(headers, hm)
	}
	return reduce(cells), headers
}

// enumerate returns the blocks for the units under a route match, the largest sets of units
// first. It explores the sets depth first, deciding for each unit whether it is in the set,
// and keeps only the cells whose requests can have exactly that set of units apply: a cell
// is dropped once it lies inside a cell of a unit left out (its requests would apply that
// unit too), and a set is abandoned when no cell is left. So its cost follows the number of
// routes, not the number of sets, and no route it returns is shadowed by an earlier one.
func enumerate(units []unit, base cellSet, budget int) ([]block, error) {
	var blocks []block
	routes := 0
	var visit func(i int, cur cellSet, chosen, excluded []int) error
	visit = func(i int, cur cellSet, chosen, excluded []int) error {
		if i == len(units) {
			blocks = append(blocks, block{units: append([]int(nil), chosen...), cells: cur})
			if routes += len(emitMatches(cur, nil)); routes > budget {
				return errTooManyRoutes
			}
			return nil
		}
		in, ok := cur.intersect(units[i].cells, budget)
		if !ok {
			return errTooManyRoutes
		}
		for _, x := range excluded {
			in = in.outside(units[x].cells)
		}
		if len(in) > 0 {
			if err := visit(i+1, in, append(chosen, i), excluded); err != nil {
				return err
			}
		}
		if out := cur.outside(units[i].cells); len(out) > 0 {
			return visit(i+1, out, chosen, append(excluded, i))
		}
		return nil
	}
	if err := visit(0, base, nil, nil); err != nil {
		return nil, err
	}
	sort.SliceStable(blocks, func(a, b int) bool { return len(blocks[a].units) > len(blocks[b].units) })
	return blocks, nil
}

// emitMatches returns one route match per cell, merging an exact path and the prefix of its
// segments (as a PathPrefix route match gives) into one path_separated_prefix.
func emitMatches(cells cellSet, headers []*routev3.HeaderMatcher) []*routev3.RouteMatch {
	merged := make([]bool, len(cells))
	var out []*routev3.RouteMatch
	for i, c := range cells {
		if merged[i] {
			continue
		}
		m := &routev3.RouteMatch{}
		switch c.path.kind {
		case atomAny:
			m.PathSpecifier = &routev3.RouteMatch_Prefix{Prefix: "/"}
		case atomPrefix:
			m.PathSpecifier = &routev3.RouteMatch_Prefix{Prefix: c.path.value}
		case atomExact:
			m.PathSpecifier = &routev3.RouteMatch_Path{Path: c.path.value}
			if v := c.path.value; len(v) > 1 && !strings.HasSuffix(v, "/") {
				for j := i + 1; j < len(cells); j++ {
					d := cells[j]
					if !merged[j] && d.method == c.method && d.path == (pathAtom{kind: atomPrefix, value: v + "/"}) {
						merged[j] = true
						m.PathSpecifier = &routev3.RouteMatch_PathSeparatedPrefix{PathSeparatedPrefix: v}
						break
					}
				}
			}
		}
		if c.method != "" {
			m.Headers = append(m.Headers, &routev3.HeaderMatcher{Name: ":method", HeaderMatchSpecifier: stringMatch(exact(c.method))})
		}
		for _, h := range headers {
			m.Headers = append(m.Headers, proto.Clone(h).(*routev3.HeaderMatcher))
		}
		out = append(out, m)
	}
	return out
}
