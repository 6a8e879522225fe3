// Package envoyratelimit reads the configuration files of envoyproxy/ratelimit
// (the Rate Limit Service most Envoy users run) and evaluates Envoy rate
// limit requests against them over a counter.Store, with that service's
// answers: it is what cmd/ratelimit, the drop-in replacement, and
// `rlpkit serve --ratelimit-config` are built on.
//
// It is not a server: it opens no listener, watches no directory and
// exports no metrics. Load reads a set of files (keys and bytes, see
// ReadDir for the runtime directory layout); Evaluator, a limit.Evaluator,
// decides requests of the RLS model (package rlsmsg) against one of them
// (WithConfig), listing every counter in limit.Result.Counters under the
// rule's name or, without one, its configured path below the domain (never
// a request value); and Options.Observe lets a server count per-rule
// statistics under the reference's names, each a Stat whose Kind says
// whether its key embeds request values (detailed_metric, value_to_metric,
// a limit override), which a server should keep bounded (cmd/ratelimit
// keeps 1,000 and counts the rest in one key per domain). The keys are
// the reference's, a share_threshold level keeping its pattern even under
// value_to_metric or a detailed_metric leaf, and the near_limit threshold
// is computed in single precision, as the reference's. Package rls
// serves it over gRPC and HTTP, with the reference's conventions
// (rls.EnvoyRateLimit) in cmd/ratelimit and rlpkit's in
// `rlpkit serve --ratelimit-config`.
//
// # Configuration
//
// One YAML file per domain, with the reference's schema and validation
// messages (each prefixed with the file's key, followed by the line and
// the field path):
//
//	domain: messaging
//	descriptors:
//	  - key: message_type
//	    value: marketing
//	    descriptors:
//	      - key: to_number
//	        rate_limit: {unit: day, requests_per_unit: 5}
//
// Matching walks the tree entry by entry: the exact key_value, else the
// wildcard values of that level in file order ('*' matches any run of
// characters, anywhere, several times), else the key-only entry, with no
// backtracking. A limit applies only when the node reached by the last
// entry has one. A descriptor with neither rate_limit nor children is a
// whitelist.
//
// # Quotas and dynamic metadata
//
// A rule with quota_mode: true makes its descriptor a quota descriptor,
// and Options.QuotaMode (QUOTA_MODE) makes every descriptor one but the
// unlimited ones, unmatched descriptors included, as the reference counts
// them. A descriptor is over when one of its limits is over and is not in
// shadow mode. The request is OVER_LIMIT when a descriptor that is not a
// quota is over, or when it has quota descriptors and every one of them is
// over; a quota descriptor over while another quota descriptor has room
// keeps its OVER_LIMIT status and the request answers OK. Such a request
// is let through: every counter that had room counts it (a second
// Store.Update), and the quota counter that was over counts it too, past
// its limit, as every counter over does (see below). When concurrent
// requests took that room between the two calls, the store refuses the
// second and the request is decided again from what it found: answered
// OVER_LIMIT, charged nothing, when an enforced counter is now over, else
// charged on the counters still with room, in one more call. So N
// requests at once against an enforced limit of k admit exactly k,
// whatever shadow or quota limits they also carry.
//
// Options.DynamicMetadata (RESPONSE_DYNAMIC_METADATA) fills every
// answer's dynamic_metadata, an unknown domain's too, with the reference's
// structure: "domain"; "descriptors", one struct per request descriptor
// with "entries" (["key=value", ...]), "limit" (a limit override in
// protobuf's text format, "requests_per_unit:5 unit:MINUTE") and
// "hitsAddend" (the descriptor's own, when set); "hitsAddend" (the
// request's, when not 0); and "metadata", the metadata of the rules
// matched by the descriptors that passed (neither unlimited nor
// OVER_LIMIT), merged in request order, a key already set winning unless
// both values are maps, merged alike.
//
// # Extensions
//
// Under rate_limit, opt-in keys that the reference does not know:
//
//	rate_limit:
//	  unit: second
//	  unit_multiplier: 10        # windows of 10 seconds (reference #190)
//	  requests_per_unit: 100
//	  algorithm: sliding_window  # fixed_window (default), sliding_window, token_bucket, gcra
//
// and, beside rate_limit, a list of several limits on one descriptor
// (reference #107), all counted together (all or nothing), the most
// restrictive reported:
//
//	rate_limits:
//	  - {unit: second, requests_per_unit: 10}
//	  - {unit: hour, requests_per_unit: 1000}
//
// Each limit of rate_limits has a counter of its own, even when two have
// the same window.
//
// A file without these keys behaves exactly as with the reference.
//
// # Rejected hits
//
// A counter a request goes over counts the request's hits even though they
// are rejected, as the reference counts them with
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true: after a Store.Update with
// rejected updates, one more Store.Update adds the cost of every rejected
// fixed-window update to its counter (the same key and window, the
// largest capacity a Policy has, so that it is not refused short of
// counter.MaxPolicyValue hits in a window), whether the request is refused
// or let through. The counter is then past its limit: a check of it
// (hits_addend 0) is over until its window ends, where a counter exactly
// at its limit is not. So a budget checked when a request arrives and
// charged when its response is done (Envoy Gateway's costs, a rate limit
// with apply_on_stream_done) stops its client once a charge took it over,
// as with the reference. The statistics of such a counter split its hits
// between near_limit and over_limit as the reference's do. A failure of
// that Store.Update does not change the answer: it is reported to
// Options.OnCountOverError. Counters of the other algorithms
// (sliding_window, token_bucket, gcra) never count a rejected hit: their
// state is not a count of hits. With Options.Keys = KeysReference the
// store counts as the reference does, and no second Store.Update is made.
//
// # Where it differs from the reference
//
//   - A request is decided all or nothing for every counter with room, in
//     one Store.Update: when any counter would go over, no counter that
//     had room moves, and a descriptor that was not over reports its limit
//     minus its current count (the reference counts every matched
//     descriptor unless STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT is set,
//     #427, #1060); the counters over count it (above). A request let
//     through anyway (a shadow_mode rule, SHADOW_MODE, quota_mode) is then
//     counted on every counter that had room, in a second Store.Update
//     (decided again when it is refused, above), where the reference with
//     STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT counts only the counters
//     over, and its enforced limits then admit without end. With
//     Options.TagBy = limit.TagByFirstEntry over a Redis Cluster store that
//     splits by hash tag (limit/redis's Options.SplitHashTags), it is all
//     or nothing per first entry instead: a request can be charged under
//     one tag and refused under another.
//   - The over-limit cache of the reference (LOCAL_CACHE_SIZE_IN_BYTES)
//     increments nothing for a key it holds over; limit/overlimitcache
//     does the same for a counter it knows over (one that counted a
//     rejected hit), but a counter it knows only full (at its limit) still
//     gets the Store.Update that counts its rejected hits.
//   - A limit override whose unit is not second..year (or week) is an
//     error (limit.InvalidRequestError) instead of a crash, as in every
//     format rlpkit serves (limit.CheckDescriptor), and so is a refund
//     (is_negative_hits).
//   - Counters are kept in rlpkit's counter state (see limit/redis), under
//     keys of its own, not the reference's INCRBY integers: counters are
//     not shared with a reference instance on the same Redis. The
//     reference joins a key's entries with "_" ("d_user_alice_path_/x_..."),
//     so that user "alice_path_/x" spends the budget of user "alice" on
//     path "/x"; here every entry is length-prefixed and the domain's hash
//     tag escaped ("{d}R60:fixed_window:2:4:user5:alice4:path2:/x", see
//     package limit), so two descriptors share a counter only when they
//     have the same entries (or values one share_threshold pattern
//     matches). Options.TagBy can tag keys by the descriptor's first entry
//     instead of the domain, to spread a domain over a Redis Cluster.
//     Options.Keys = KeysReference builds the reference's keys instead,
//     byte for byte, for a store that counts as the reference does
//     (limit/redis/refcount): a fleet moving from the reference then shares
//     its counters, at the cost of the all-or-nothing decisions (every
//     descriptor is counted, rejected hits too); LoadOptions.Keys then
//     refuses limits of other algorithms than the fixed window.
//   - Every error of a file is reported, not only the first.
//   - Dynamic metadata: the reference's text of a limit override puts one
//     or two spaces between fields, depending on its binary (protobuf-go
//     randomizes it); here always one. The reference drops the metadata of
//     detailed_metric rules and of value_to_metric rules whose statistics
//     key takes a request value, and its merge writes into the rules' own
//     metadata, so that a later request can see an earlier one's; here a
//     rule's metadata is always reported as configured.
package envoyratelimit
