// Package limit is what a rate-limit service needs on top of counting: the
// limits it enforces, in Limitador's limits-file format (Limit,
// DecodeLimits, ValidateLimits, IdentityKey), their conditions and variables
// (ParseCondition: the legacy KEY == VALUE form and CEL; ParseVariable), and
// their evaluation with the semantics of Envoy's Rate Limit Service (RLS,
// envoy.service.ratelimit.v3 rls.proto): the Evaluator and the request and
// response vocabulary (Request, Descriptor, Entry, Override, Response,
// DescriptorStatus, RateLimit, Code, Counted). RequestFromResult turns what
// package descriptor generates for an HTTP request into a Request.
//
// It does not count: the algorithms, Policy, State, Decision, the Store
// interface and the memory store are in limit/counter, which imports only
// the standard library, so that programs that only count (limit/httplimit,
// limit/redis) do not link CEL. Give an Evaluator a counter.MemoryStore or a
// limit/redis store. It is not an RLS server either (package rls maps
// go-control-plane messages onto Evaluator), does not read YAML, and keeps
// no goroutines or globals beyond an immutable CEL environment built on
// first use. It imports the standard library, cel-go, limit/counter and
// descriptor (for its Unit, the one definition of rate-limit time units).
//
// # Evaluation
//
// Evaluator answers a Request (domain, descriptors, hits_addend) with a
// Response: an overall code and one status per descriptor, in request order,
// with the current limit, the remaining hits and the duration until reset.
// Each descriptor is evaluated on its own; a request's counters go to the
// Store in one all-or-nothing batch. hits_addend 0 means 1, a descriptor's
// own hits_addend replaces the request's and an explicit 0 checks without
// consuming; a descriptor's limit override replaces the configured limits
// for it; an empty domain is an error and a domain without limits answers
// OK. A store failure is a *StoreError (a server answers Unavailable), and
// Response.Counters lists every counter evaluated, with its limit and the
// store's decision, for metrics. Windows of 1, 60, 3,600, 86,400, 604,800,
// 2,592,000 (30 days) and 31,536,000 (365 days) seconds report SECOND,
// MINUTE, HOUR, DAY, WEEK, MONTH and YEAR; others UNKNOWN. Counter keys are built into a per-request buffer
// reused across requests: an evaluation with legacy conditions allocates
// nothing.
//
// # Limits
//
// A Limit is {namespace, max_value, seconds, conditions, variables, name,
// algorithm} in Limitador's file format; its identity is (namespace,
// seconds, conditions as a set, variables as a set). DecodeLimits reads a
// list of limits from JSON, strictly, and reports every problem at once with
// field paths ("limit: [1].seconds: must be greater than 0"). YAML files are
// converted to JSON by the caller (rlpkit's yamljson.ToJSON); this package
// reads no YAML.
//
// # Conditions
//
// A limit's conditions are either the legacy KEY == VALUE / KEY != VALUE
// form, matched directly, or CEL expressions over descriptors (a list of
// string maps, as limitador 2.x writes them), compiled once with
// github.com/google/cel-go under a cost limit. A condition on a missing key
// is false.
//
// # Where it differs from upstream
//
//   - Limitador binds descriptors to every descriptor of the request and
//     evaluates a limit once per request; here each descriptor is evaluated
//     on its own (Envoy's semantics), with descriptors bound to a one-element
//     list holding it. With one descriptor per request, as Kuadrant's filter
//     sends, the two agree. A limit that applies to several descriptors of a
//     request counts once per descriptor.
//   - A counter key also carries the limit's algorithm, so changing it starts
//     fresh counters instead of misreading state.
//   - A check (hits_addend explicitly 0) is over when not even one more hit
//     would be admitted: counters never exceed their maximum here, unlike
//     Envoy's reference service, which counts rejected hits.
//   - A descriptor's override is enforced with the fixed window on a counter
//     of its own (domain, entries, window), replacing every configured limit
//     for that descriptor.
//   - A CEL condition whose evaluation fails for any reason (not only a
//     missing key) is false, rather than failing the request.
//   - Variables are descriptor entry keys; of limitador 2.x's CEL variable
//     expressions only descriptors[0]['key'], descriptors[0]["key"] and
//     descriptors[0].key are accepted (they name the entry key).
//   - A 7-day window reports WEEK, which Envoy's rls.proto has gained; a
//     server built on a go-control-plane without it should send UNKNOWN.
//   - The algorithms' own differences from upstream are listed in
//     limit/counter.
package limit
