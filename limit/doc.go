// Package limit is what every rate-limit format rlpkit serves shares: the
// Evaluator interface a server (package rls) answers Envoy's Rate Limit
// Service with, the Result an evaluation fills (the rlsmsg.Response and,
// for metrics, the counters it was decided on), the errors an evaluator
// reports (InvalidRequestError, StoreError), and the rules every format
// applies the same way: what a descriptor costs (Cost), which requests no
// format evaluates (CheckDescriptor), how a reset is advertised in whole
// seconds (ResetSeconds), and how counter keys are built (TagBy, AppendTag,
// AppendEntryTag, AppendString).
//
// # Counter keys
//
// Every format builds its counter keys from the same parts: a Redis Cluster
// hash tag first, then fields that are either of a fixed alphabet (digits,
// an algorithm's name) or length-prefixed (AppendString), so that a key
// reads back one way only and no request's values make two counters share
// one. The hash tag is the domain's ("{domain}", TagByDomain, the default)
// or the domain's and the descriptor's first entry's ("{domain|key|value}",
// TagByFirstEntry), with '{', '}', '|' and '%' percent-encoded so that the
// tag Redis hashes is exactly that content whatever the domain holds.
//
// The default keeps all of a domain's counters in one Cluster slot, so on
// one node: a request is then always decided in one script, all or nothing,
// but one domain's load never spreads over the Cluster. TagByFirstEntry
// spreads a domain's tenants over the Cluster and keeps each tenant's
// counters together; a request whose counters fall under several tags is
// then decided all or nothing within each tag only (see limit/redis,
// Options.SplitHashTags). The keys are rlpkit's own: counters are not
// shared with envoyproxy/ratelimit (whose keys join entries with '_', so
// that user "alice_path_/x" counts on user "alice" and path "/x") or
// Limitador on the same Redis.
//
// # Three floors
//
// limit/ is built in three floors, each importing only those below it:
//
//  1. How to count: limit/counter (the algorithms, the Store interface, the
//     memory store) and the stores built on it: limit/redis,
//     limit/redis/cached, limit/redis/refcount, limit/overlimitcache. They
//     know counters and costs, nothing of descriptors or limits files.
//  2. The evaluator contract: this package. An Evaluator turns one Rate
//     Limit Service request into counter updates on a Store and a Response;
//     package rls serves any Evaluator.
//  3. What to count: the formats, each an Evaluator. limit/limitador reads
//     Limitador's limits files (the format rlpkit's compilers write) and
//     limit/envoyratelimit envoyproxy/ratelimit's configuration files.
//
// limit/httplimit stands beside them: net/http middleware that counts on
// the first floor directly, with no descriptors.
//
// It imports the standard library, rlsmsg and limit/counter only.
package limit
