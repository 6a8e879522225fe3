// Package limitador is what a rate-limit service needs on top of counting: the
// limits it enforces, in Limitador's limits-file format (Limit,
// DecodeLimits, ValidateLimits, IdentityKey), their conditions and variables
// (ParseCondition: the legacy KEY == VALUE form and CEL; ParseVariable), and
// their evaluation, as limitador evaluates them, for Envoy's Rate Limit
// Service (RLS, envoy.service.ratelimit.v3 rls.proto): the Evaluator, a
// limit.Evaluator over the RLS model of package rlsmsg. What package
// descriptor generates for an HTTP request (a descriptor.Result) holds the
// rlsmsg.Request it reads. It is a format of limit/'s third floor (what to
// count), over the evaluator contract of package limit.
//
// It does not count: the algorithms, Policy, State, Decision, the Store
// interface and the memory store are in limit/counter, which imports only
// the standard library, so that programs that only count (limit/httplimit,
// limit/redis) do not link CEL. Give an Evaluator a counter.MemoryStore or a
// limit/redis store. It is not an RLS server either (package rls serves
// any limit.Evaluator), does not read YAML, and keeps no goroutines or
// globals beyond an immutable CEL environment built on first use. It
// imports the standard library, cel-go, limit, limit/counter, fielderr (its
// errors) and rlsmsg (the model and its Unit, the one definition of
// rate-limit time units). Its errors still start with "limit: ", the name
// rlpkit's messages have always given Limitador's limits files.
//
// # Evaluation
//
// Evaluator answers a Request (domain, descriptors, hits_addend) with a
// response (a limit.Result): an overall code and one status per descriptor, in request order,
// with the current limit, the remaining hits and the duration until reset.
// As limitador does, each limit of the domain is evaluated once per request,
// not once per descriptor: a limit without conditions costs one hit whatever
// the number of descriptors. Legacy conditions and variables (plain entry
// keys) read the entries of all descriptors merged into one map, a later
// entry winning (limitador 1.x); CEL reads descriptors, the list of all
// descriptors, and limit, the limit's name and id (limitador 2.x). Each
// applying limit is reported on the descriptors whose entries it read, and
// one that read none on the first (without an override); a descriptor reports the first of its
// limits that is over, or else the one with the least remaining. A request's
// counters go to the Store in one all-or-nothing batch. hits_addend 0 means
// 1; a limit costs the own hits_addend of the first descriptor it is
// reported on that has one (an explicit 0 checks without consuming, and a
// check on a full counter is within the limit, as Limitador's storages
// decide a delta of 0: value + delta <= max), else
// the request's. A descriptor's limit override limits it alone, on a counter
// of its own; configured limits do not see its entries. An empty domain, a
// refund (is_negative_hits), an override of an unknown unit or with a
// unit_multiplier other than 1 is a *limit.InvalidRequestError naming every
// problem, and a domain without limits or a request without descriptors
// answers OK. A store failure is a *limit.StoreError (a server answers
// Unavailable), and Result.Counters lists every counter evaluated, with its
// limit and the store's decision, for metrics. Windows of 1, 60, 3,600, 86,400, 604,800, 2,592,000 (30 days)
// and 31,536,000 (365 days) seconds report SECOND, MINUTE, HOUR, DAY, WEEK,
// MONTH and YEAR; others the longest of those units that divides them with a
// unit_multiplier (10 s is SECOND x 10, 120 s MINUTE x 2), as envoyproxy/ratelimit
// reports its rules (Limitador's own service reports no current limit). A limit's name is reported in
// RateLimit.Name (Envoy's current_limit.name). Counter keys are built into a
// per-request buffer reused across requests: an evaluation with legacy
// conditions allocates nothing.
//
// A namespace of 4 limits or more is indexed, so that a request's cost
// does not grow with the limits it does not match: each limit is listed
// under an entry it needs (a legacy KEY == VALUE condition, or a CEL
// condition of the plain form descriptors[N]['KEY'] == 'VALUE'), else under
// an entry key it needs (a legacy KEY != VALUE condition or variable, a CEL
// variable descriptors[N]['KEY']), and a request tries, in configuration
// order, only the limits listed under its entries and those needing none of
// these (any other CEL). Every limit tried is still evaluated in full, so
// the answers are those of trying every limit of the namespace.
//
// Fixed windows start at a counter's first hit and last the limit's seconds,
// as limitador counts (counter.Policy.FirstHit), unless Limit.EpochWindows
// aligns them to the Unix epoch, as envoyproxy/ratelimit counts.
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
// # Conditions and variables
//
// A limit's conditions are either the legacy KEY == VALUE / KEY != VALUE
// form, matched directly, or CEL expressions over descriptors (a list of
// string maps, one per descriptor, as limitador 2.x writes them) and limit,
// compiled once with github.com/google/cel-go under a cost limit. Keys with
// dots are read with brackets (descriptors[0]['req.method']). A condition
// on a missing key is false. A variable is an entry key or any CEL
// expression evaluating to a string, a number or a bool
// (descriptors[1]['user']); one reading a missing key skips its limit for
// that request. An expression that selects a field of an entry's value,
// such as descriptors[0].req.method, loads, as in limitador, and never
// matches; LimitWarnings reports it with the bracket form to write instead.
//
// # Counter keys
//
// A limit's counter key is its hash tag, "L", its algorithm, its identity
// without the namespace and the variables' values, each length-prefixed
// (limit.AppendString): "{shop}La" then the seconds, the conditions and the
// variables, then the values. An override's is the tag, "O", the window
// and the descriptor's entries: "{shop}O60:1:4:user5:alice". The hash tag
// is the namespace's ("{shop}", every counter of a namespace in one Redis
// Cluster slot) unless WithTagBy(limit.TagByFirstEntry) makes it the
// namespace's and the first variable's as written, with its value
// ("{shop|user|alice}"; an override's: its first entry), which spreads a
// namespace over the Cluster; see package limit for the trade-off.
//
// # Where it differs from upstream
//
//   - Envoy's reference service evaluates each descriptor on its own; here,
//     as in limitador, a limit is evaluated once per request over all its
//     descriptors, and reported on the descriptors it read.
//   - limitador answers a whole request; Envoy expects a status per
//     descriptor. The attribution above decides which descriptors report a
//     limit; the overall code is limitador's.
//   - A CEL condition or variable whose evaluation fails for any reason
//     (not only a missing key) is false or unresolved, rather than failing
//     the request as limitador does for errors other than a missing key.
//   - For a limit's identity, a variable descriptors[0]['KEY'] (or
//     descriptors[0].KEY) is the same as the entry key KEY: the two read the
//     same entry whenever a request has one descriptor, as Kuadrant's
//     filter sends. With several descriptors the key reads them merged.
//   - A counter key also carries the limit's algorithm, so changing it starts
//     fresh counters instead of misreading state.
//   - A check (hits_addend explicitly 0) is over only when the counter
//     already exceeds its maximum (after the limit was lowered), as
//     limitador's storages decide a delta of 0 (value + delta <= max);
//     counters never count a rejected hit here, unlike Envoy's reference
//     service.
//   - A descriptor's override is enforced with the epoch-aligned fixed
//     window on a counter of its own (domain, entries, window); configured
//     limits do not read its entries (limitador ignores overrides).
//   - A request's descriptor hits_addend is honoured (limitador reads only the
//     request's).
//   - A 7-day window reports WEEK, which Envoy's rls.proto has gained; a
//     server built on a go-control-plane without it should send UNKNOWN.
//   - The algorithms' own differences from upstream are listed in
//     limit/counter.
package limitador
