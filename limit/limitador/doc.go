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
// It does not count: the algorithms and stores are in limit/counter, which
// imports only the standard library, so that programs that only count do not
// link CEL; give an Evaluator a counter.MemoryStore or a limit/redis store.
// It is not an RLS server either (package rls serves any limit.Evaluator)
// and reads no YAML (callers convert it with yamljson). Its errors start
// with "limit: ", the name rlpkit's messages give Limitador's limits files.
//
// # Evaluation
//
// Evaluator answers a request with an overall code and one status per
// descriptor. As limitador does, each limit of the domain is evaluated once
// per request, not once per descriptor: legacy conditions and variables read
// the entries of all descriptors merged, a later entry winning (limitador
// 1.x); CEL reads descriptors, the list of all of them, and limit, the
// limit's name and id (limitador 2.x). Each applying limit is reported on
// the descriptors whose entries it read; a request's counters go to the
// Store in one all-or-nothing batch (see Evaluator for costs, overrides and
// errors). A window that is not one unit reports the longest unit dividing
// it with a unit_multiplier (10 s is SECOND x 10), as envoyproxy/ratelimit
// does; a limit's name is reported in current_limit.name. Fixed windows
// start at a counter's first hit, as limitador counts, unless
// Limit.EpochWindows aligns them to the Unix epoch. Large namespaces are
// indexed (see Evaluator), with the answers of trying every limit.
//
// # Limits, conditions and variables
//
// A Limit is {namespace, max_value, seconds, conditions, variables, name,
// algorithm} in Limitador's file format; its identity is (namespace,
// seconds, conditions as a set, variables as a set). DecodeLimits reads a
// list of limits from JSON, strictly, and reports every problem at once with
// field paths ("limit: [1].seconds: must be greater than 0"). Conditions are
// the legacy KEY == VALUE / KEY != VALUE form or CEL expressions, compiled
// once with cel-go under a cost limit (keys with dots in brackets:
// descriptors[0]['req.method']); a condition on a missing key is false, a
// variable reading one skips its limit. An expression that can never match,
// such as descriptors[0].req.method, loads, as in limitador, and
// LimitWarnings reports it with the form to write instead. Counter keys are
// length-prefixed under a Redis Cluster hash tag, the namespace's unless
// WithTagBy says otherwise (see package limit).
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
