package wasmshim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/rlpkit/rlpkit/hostindex"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// The data keys wasm-shim takes out of a rate-limit descriptor as request fields.
const (
	KeyDomain     = "ratelimit.domain"
	KeyHitsAddend = "ratelimit.hits_addend"
)

// costLimit bounds the cost of one evaluation of one expression.
const costLimit = 1_000_000

// evalEnv is the environment expressions are evaluated in: each attribute group is a map,
// so that an attribute a request lacks is a missing key.
var evalEnv = sync.OnceValues(func() (*cel.Env, error) {
	opts := append(commonOptions(), cel.Variable("auth", types.NewMapType(types.StringType, types.DynType)))
	for _, g := range attributeGroups {
		opts = append(opts, cel.Variable(g, types.NewMapType(types.StringType, types.DynType)))
	}
	return cel.NewEnv(opts...)
})

// Evaluator evaluates a Config for requests. It is immutable and safe for concurrent use.
type Evaluator struct {
	cfg   *Config
	hosts *hostindex.Index[int] // hostname -> action set indexes, in order
	progs map[string]cel.Program
}

// New compiles every predicate and data expression of cfg and indexes its hostnames. It
// returns an error naming the first hostname that is not one, expression that does not
// parse, data item that is neither static nor an expression, or action whose service is
// not in cfg.Services.
func New(cfg *Config) (*Evaluator, error) {
	env, err := evalEnv()
	if err != nil {
		return nil, err
	}
	e := &Evaluator{cfg: cfg, hosts: hostindex.New[int](), progs: map[string]cel.Program{}}
	compile := func(where, src string) error {
		if _, ok := e.progs[src]; ok {
			return nil
		}
		ast, iss := env.Compile(src)
		if iss.Err() != nil {
			// An expression that parses but names an attribute the environment does not
			// declare is kept unchecked: like wasm-shim, it fails when evaluated.
			parsed, piss := env.Parse(src)
			if piss.Err() != nil {
				return fmt.Errorf("wasmshim: %s: %q: %s", where, src, issuesMessage(piss))
			}
			ast = parsed
		}
		prg, err := env.Program(ast, cel.CostLimit(costLimit))
		if err != nil {
			return fmt.Errorf("wasmshim: %s: %q: %v", where, src, err)
		}
		e.progs[src] = prg
		return nil
	}
	for i, as := range cfg.ActionSets {
		at := fmt.Sprintf("actionSets[%d]", i)
		for _, h := range as.RouteRuleConditions.Hostnames {
			if err := e.hosts.Add(h, i); err != nil {
				return nil, fmt.Errorf("wasmshim: %s.routeRuleConditions.hostnames: %v", at, err)
			}
		}
		for j, p := range as.RouteRuleConditions.Predicates {
			if err := compile(fmt.Sprintf("%s.routeRuleConditions.predicates[%d]", at, j), p); err != nil {
				return nil, err
			}
		}
		for j, a := range as.Actions {
			aat := fmt.Sprintf("%s.actions[%d]", at, j)
			if _, ok := cfg.Services[a.Service]; !ok {
				return nil, fmt.Errorf("wasmshim: %s.service: %q is not among the services", aat, a.Service)
			}
			for k, p := range a.Predicates {
				if err := compile(fmt.Sprintf("%s.predicates[%d]", aat, k), p); err != nil {
					return nil, err
				}
			}
			for k, cd := range a.ConditionalData {
				cat := fmt.Sprintf("%s.conditionalData[%d]", aat, k)
				for l, p := range cd.Predicates {
					if err := compile(fmt.Sprintf("%s.predicates[%d]", cat, l), p); err != nil {
						return nil, err
					}
				}
				for l, d := range cd.Data {
					switch {
					case (d.Static == nil) == (d.Expression == nil):
						return nil, fmt.Errorf("wasmshim: %s.data[%d]: want exactly one of static and expression", cat, l)
					case d.Expression != nil:
						if err := compile(fmt.Sprintf("%s.data[%d].expression.value", cat, l), d.Expression.Value); err != nil {
							return nil, err
						}
					}
				}
			}
		}
	}
	return e, nil
}

// Config returns the configuration e evaluates; callers must not modify it.
func (e *Evaluator) Config() *Config { return e.cfg }

// Result is what wasm-shim does with a request.
type Result struct {
	// Hostname is the most specific hostname of the configuration matching the request's
	// host; empty when none does.
	Hostname string `json:"hostname"`
	// ActionSet is the index of the action set that applies; -1 when none does.
	ActionSet int `json:"actionSet"`
	// ActionSetName is its name.
	ActionSetName string `json:"actionSetName,omitempty"`
	// Calls are the service calls, in order: one per action that applies.
	Calls []Call `json:"calls"`
	// Trace says, line by line, why.
	Trace []string `json:"-"`
}

// Call is one action that calls its service.
type Call struct {
	// Action is the action's index in the action set.
	Action int `json:"action"`
	// Service is the action's service name; Type the service's type.
	Service string `json:"service"`
	Type    string `json:"type"`
	// Domain is the rate-limit domain: the action's scope, or the ratelimit.domain entry.
	Domain string `json:"domain"`
	// Blocks are the indexes of the conditionalData blocks that applied.
	Blocks []int `json:"blocks"`
	// Entries are the descriptor's entries, without the control keys.
	Entries []rlsmsg.Entry `json:"entries"`
	// HitsAddend is the ratelimit.hits_addend entry; 0 when absent.
	HitsAddend uint64 `json:"hitsAddend,omitempty"`
	// HitsAddendRead is true when the action's ratelimit.hits_addend entry was read, so
	// that an explicit 0 differs from an entry left out.
	HitsAddendRead bool `json:"-"`
	// Sources are the action's sources.
	Sources []string `json:"sources,omitempty"`
}

// Request returns the rate-limit request wasm-shim sends for c: its
// domain, one descriptor of its entries, and its hits_addend as the
// request's (clamped to the largest uint32, the field's type).
func (c *Call) Request() rlsmsg.Request {
	return rlsmsg.Request{
		Domain:      c.Domain,
		Descriptors: []rlsmsg.Descriptor{{Entries: c.Entries}},
		HitsAddend:  uint32(min(c.HitsAddend, math.MaxUint32)),
	}
}

// Evaluate returns what wasm-shim does with req: the action set of the most specific
// hostname whose predicates all hold (no other hostname is tried), and for each of its
// actions whose predicates hold and one of whose conditionalData blocks applies, the one
// descriptor holding the data of every applying block.
func (e *Evaluator) Evaluate(req *Request) *Result {
	res := &Result{ActionSet: -1}
	m, ok := e.hosts.Lookup(req.Host)
	if !ok {
		res.Trace = append(res.Trace, fmt.Sprintf("host %q: no hostname of the configuration matches: no action set", req.Host))
		return res
	}
	res.Hostname = m.Pattern
	act := req.activation()
	res.Trace = append(res.Trace, fmt.Sprintf("host %q: hostname %s, %d action set(s)", req.Host, m.Pattern, len(m.Values)))
	for _, i := range m.Values {
		as := &e.cfg.ActionSets[i]
		if ok, why := e.all(as.RouteRuleConditions.Predicates, act); !ok {
			res.Trace = append(res.Trace, fmt.Sprintf("  action set %d %s: not applied: %s", i, as.Name, why))
			continue
		}
		res.ActionSet, res.ActionSetName = i, as.Name
		res.Trace = append(res.Trace, fmt.Sprintf("  action set %d %s: applies", i, as.Name))
		for j := range as.Actions {
			if c, ok := e.action(&as.Actions[j], j, act, req.ResponseBody, res); ok {
				res.Calls = append(res.Calls, c)
			}
		}
		return res
	}
	res.Trace = append(res.Trace, "no action set applies")
	return res
}

// action evaluates one action; body is the response body, nil before the response.
func (e *Evaluator) action(a *Action, j int, act map[string]any, body []byte, res *Result) (Call, bool) {
	if ok, why := e.all(a.Predicates, act); !ok {
		res.Trace = append(res.Trace, fmt.Sprintf("    action %d (%s, scope %s): not applied: %s", j, a.Service, a.Scope, why))
		return Call{}, false
	}
	svc := e.cfg.Services[a.Service]
	c := Call{Action: j, Service: a.Service, Type: svc.Type, Domain: a.Scope, Blocks: []int{}, Entries: []rlsmsg.Entry{}, Sources: a.Sources}
	for k := range a.ConditionalData {
		cd := &a.ConditionalData[k]
		if ok, why := e.all(cd.Predicates, act); !ok {
			res.Trace = append(res.Trace, fmt.Sprintf("    action %d block %d: skipped: %s", j, k, why))
			continue
		}
		c.Blocks = append(c.Blocks, k)
		res.Trace = append(res.Trace, fmt.Sprintf("    action %d block %d: applies", j, k))
		for _, d := range cd.Data {
			key, value := "", ""
			if d.Static != nil {
				key, value = d.Static.Key, d.Static.Value
			} else {
				key = d.Expression.Key
				v, err := e.value(d.Expression.Value, act)
				if body != nil {
					if bv, ok, berr := responseValue(d.Expression.Value, body); ok {
						v, err = bv, berr
					}
				}
				if err != nil {
					why := evalFailure(d.Expression.Value, err)
					if body != nil {
						why = err.Error()
					}
					if w := missingAuthWhy(d.Expression.Value, act); w != "" {
						why = w
					}
					res.Trace = append(res.Trace, fmt.Sprintf("      entry %s: left out: %s", key, why))
					continue
				}
				value = v
			}
			switch key {
			case KeyDomain:
				c.Domain = value
			case KeyHitsAddend:
				n, err := strconv.ParseUint(value, 10, 64)
				if err != nil {
					res.Trace = append(res.Trace, fmt.Sprintf("      %s %q: not a number of hits, left out", KeyHitsAddend, value))
					continue
				}
				c.HitsAddend, c.HitsAddendRead = n, true
			default:
				c.Entries = append(c.Entries, rlsmsg.Entry{Key: key, Value: value})
			}
		}
	}
	if len(c.Blocks) == 0 && len(a.ConditionalData) > 0 {
		res.Trace = append(res.Trace, fmt.Sprintf("    action %d (%s, scope %s): no conditionalData block applies: no call", j, a.Service, a.Scope))
		return Call{}, false
	}
	called := fmt.Sprintf("    action %d (%s, scope %s): calls %s", j, a.Service, a.Scope, svc.Endpoint)
	if svc.Type == ServiceAuth {
		called += " (not run here: the request is taken as authenticated, with the auth.* attributes it carries)"
	}
	res.Trace = append(res.Trace, called)
	return c, true
}

// all reports whether every predicate holds; when one does not, why.
func (e *Evaluator) all(preds []string, act map[string]any) (bool, string) {
	for _, p := range preds {
		out, _, err := e.progs[p].Eval(act)
		if err != nil {
			if why := missingAuthWhy(p, act); why != "" {
				return false, p + ": " + why
			}
			return false, fmt.Sprintf("%s: %v", p, err)
		}
		if b, ok := out.Value().(bool); !ok || !b {
			return false, p + " is false"
		}
	}
	return true, ""
}

// value evaluates a data expression to its string form.
func (e *Evaluator) value(src string, act map[string]any) (string, error) {
	out, _, err := e.progs[src].Eval(act)
	if err != nil {
		return "", err
	}
	sv := out.ConvertToType(types.StringType)
	if types.IsError(sv) {
		return "", fmt.Errorf("%v", sv)
	}
	s, ok := sv.Value().(string)
	if !ok {
		return "", fmt.Errorf("not convertible to a string: %v", out)
	}
	return s, nil
}

// Explain formats a result's trace.
func (r *Result) Explain() string {
	var b strings.Builder
	for _, l := range r.Trace {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// evalFailure says why a data expression has no value: for one reading a body
// (requestBodyJSON, responseBodyJSON), that the body is not there to read, since wasm-shim
// evaluates it only once the body has arrived (a TokenRateLimitPolicy's report reads
// responseBodyJSON("/usage/total_tokens") at the response); else the error.
func evalFailure(expr string, err error) string {
	for _, fn := range []string{"responseBodyJSON(", "requestBodyJSON("} {
		if strings.Contains(expr, fn) {
			return fmt.Sprintf("%s reads a body, which wasm-shim evaluates once the body has arrived; a request's headers alone have none", strings.TrimSuffix(fn, "("))
		}
	}
	return err.Error()
}
