// Package limit is what every rate-limit format rlpkit serves shares: the
// Evaluator interface a server (package rls) answers Envoy's Rate Limit
// Service with, the Result an evaluation fills (the rlsmsg.Response and,
// for metrics, the counters it was decided on), the errors an evaluator
// reports (InvalidRequestError, StoreError), and the rules every format
// applies the same way: what a descriptor costs (Cost), which requests no
// format evaluates (CheckDescriptor) and how a reset is advertised in whole
// seconds (ResetSeconds).
//
// The formats are its sub-packages: limit/limitador (Limitador's limits
// files, conditions and evaluation, the format of rlpkit's compilers) and
// limit/envoyratelimit (envoyproxy/ratelimit's configuration). The
// counting algorithms and stores are limit/counter, limit/redis and the
// stores built on them; limit/httplimit is net/http middleware over them.
//
// It imports the standard library, rlsmsg and limit/counter only.
package limit
