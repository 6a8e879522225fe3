// Package envoyratelimit reads the configuration files of envoyproxy/ratelimit
// (the Rate Limit Service most Envoy users run) and evaluates Envoy rate
// limit requests against them over a counter.Store, with that service's
// answers: it is what cmd/ratelimit, the drop-in replacement, and
// `rlpkit serve --ratelimit-config` are built on. It is a format of limit/'s
// third floor (what to count), over the evaluator contract of package limit.
//
// It is not a server: it opens no listener, watches no directory and
// exports no metrics. Load reads a set of files (ReadDir: the runtime
// directory layout) and DomainConfig writes one, the one model of the file
// that rlpkit's writers share (Envoy Gateway's compiler, cmd/ratelimit's xDS
// source); Evaluator, a limit.Evaluator, decides requests against one of
// them, naming every counter by its rule's name or configured path, never by
// a request value; Options.Observe gives a server per-rule statistics under
// the reference's names, each Stat saying whether its key embeds request
// values, which a server should keep bounded.
//
// # Configuration
//
// One YAML file per domain, with the reference's schema and validation
// messages, each located by file, line and field path:
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
// characters), else the key-only entry, with no backtracking. A limit
// applies only when the node reached by the last entry has one; a
// descriptor with neither rate_limit nor children is a whitelist.
//
// # Quotas and dynamic metadata
//
// A rule with quota_mode: true (or every limited descriptor, with
// Options.QuotaMode) makes its descriptor a quota descriptor: the request is
// OVER_LIMIT when a descriptor that is not a quota is over, or when every
// quota descriptor is over; otherwise it is let through and every counter
// that had room counts it, as the reference counts quotas. When concurrent
// requests took that room meanwhile, the store refuses the charge and the
// request is decided again from what it found (OVER_LIMIT, charged nothing,
// when an enforced counter is now over), so N requests at once against an
// enforced limit of k admit exactly k whatever shadow or quota limits they
// also carry.
// Options.DynamicMetadata fills every answer's dynamic_metadata with the
// reference's structure (the domain, the descriptors with their entries,
// override and hits, and the merged metadata of the rules that passed).
//
// # Extensions
//
// Under rate_limit, opt-in keys the reference does not know: unit_multiplier
// (windows of several units, reference #190) and algorithm (fixed_window,
// the default, sliding_window, token_bucket, gcra); beside rate_limit,
// rate_limits, several limits on one descriptor (reference #107), each on a
// counter of its own, counted together and the most restrictive reported.
// A window (unit times unit_multiplier, in the configuration or in a
// request's limit override) is at most counter.MaxWindow, 2^32-1 seconds
// (about 136 years); a longer one is refused naming unit_multiplier.
// A file without these keys behaves exactly as with the reference.
//
// # Rejected hits
//
// A fixed-window counter a request goes over counts the request's hits even
// though they are rejected, as the reference counts them with
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true (Options.OnCountOverError
// says how), so a budget charged when a response is done stops its client
// once a charge took it over. The other algorithms never count a rejected
// hit: their state is not a count of hits.
//
// # Where it differs from the reference
//
// A request is decided all or nothing for every counter with room, in one Store.Update
// (per first entry with Options.TagBy = limit.TagByFirstEntry over a store that splits by
// hash tag); counters live under keys of rlpkit's own, every entry length-prefixed, unless
// Options.Keys = KeysReference builds the reference's byte for byte; invalid overrides and
// refunds are invalid requests rather than a crash; every error of a file is reported, and
// a file past package inputlimit's limits is refused. docs/migrating-from-envoy-ratelimit.md
// ("The library: package limit/envoyratelimit") lists every difference and why.
package envoyratelimit
