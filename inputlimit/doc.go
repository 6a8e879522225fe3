// Package inputlimit states the bounds every reader of configuration input
// in rlpkit applies, and reads files within them.
//
// rlpkit reads YAML and JSON written by people who may not be trusted with
// the server's memory: envoyproxy/ratelimit runtime files and the ConfigMaps
// they come from, Limitador limits files, policies, PolicyTest files, access
// logs, xDS resources and the Gateway bundles the controller writes. A few
// hundred bytes of YAML aliases can expand to gigabytes, and a parser's cost
// grows with the bytes and the nesting it is given. So every reader refuses,
// before it builds anything from the input:
//
//   - a file, stream or object larger than [MaxBytes] (16 MiB), also when it
//     is read from standard input or arrives in memory (a ConfigMap's data,
//     an xDS resource);
//   - collections nested more than [MaxDepth] (1,000) deep, counting what
//     aliases bring in;
//   - YAML aliases and merge keys that add more than [MaxAliasValues]
//     (100,000) values or [MaxAliasBytes] (4 MiB) of text to what is
//     written;
//   - an access-log line longer than [MaxLineBytes] (1 MiB).
//
// The errors name the input (a file's path, an object's name) and the
// limit, as *[Error]. The limits are far above what a configuration holds:
// Kubernetes stores objects of at most 1.5 MiB; the largest file rlpkit
// writes, a Gateway's split output, holds about 4 MiB for 10,000 routes
// with a policy each; a configuration nested a hundred deep is already
// unusual. envoyproxy/ratelimit, Limitador and
// Kubernetes' YAML decoders bound alias expansion by a ratio rather than a
// count, and none bounds a file's size; rlpkit states fixed numbers so that
// the worst input of each kind has a known cost.
//
// The YAML limits are applied by package yamljson (yamljson.Convert and
// yamljson.CheckNode); JSON readers call [CheckJSON]. The package imports only
// the standard library so that the stdlib-only leaves can use it.
package inputlimit
