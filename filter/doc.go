// Package filter is rlpkit's rate-limit filter for Envoy as a proxy-wasm (ABI 0.2.1) HTTP
// filter: for each request it generates descriptors with package descriptor, asks the Rate
// Limit Service with proxy_grpc_call, and lets the request through, answers 429, or applies
// failureModeDeny. cmd/rlpkit-filter is its wasm main; this package holds everything but the
// export table, so that it stays readable and testable.
//
// # What it does per request
//
// The plugin configuration is a PluginConfig as JSON (both schemas package descriptor
// decodes); an invalid one fails proxy_on_configure with the decoder's errors logged. In
// proxy_on_request_headers the request is read from the header-map pairs (every value of a
// repeated header; ":authority", ":path" and ":method" give host, path and method), the
// client address from the property ["source", "address"] (which already reflects Envoy's
// X-Forwarded-For trust settings), and, only when an action asks for them, dynamic metadata
// from the "metadata" property and route metadata from ["xds", "route_metadata"] (both a
// serialized envoy.config.core.v3.Metadata). No policy or no descriptor: the request
// continues and nothing is called.
//
// Otherwise the filter calls envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit on
// the policy's upstreamCluster, passed as a serialized GrpcService{envoy_grpc{cluster_name}},
// with the PluginConfig's timeout, and pauses the request. The reply arrives on the root
// context; the filter switches to the request's context with proxy_set_effective_context and
// then, exactly once: continues (OK; the reply's response_headers_to_add are added to the
// response), sends a local 429 with "x-envoy-ratelimited: true" and the reply's headers
// (OVER_LIMIT), or, when the call failed (a gRPC status, an undecodable reply or an UNKNOWN
// code, the host's timeout, or proxy_grpc_call itself failing), continues, or sends a local
// 500 when failureModeDeny is true. A request deleted before its reply cancels its call; a
// reply that arrives anyway is ignored.
//
// # Costs from the response body
//
// A configuration whose hits_addend is {response_body: {json_pointer: "/usage/total_tokens"}}
// is checked with the request at hits_addend 0. When the request goes on, the filter reads
// the response body in proxy_on_response_body chunk by chunk, returning Continue for each so
// that the client receives it as it arrives (a server-sent-events body keeps only its last
// events; any other body up to 4 MiB). At the end of the body it takes the number at the
// pointer, from the whole body as JSON or, for content-type text/event-stream, from the last
// "data:" event before "data: [DONE]", and sends a second ShouldRateLimit to the same domain
// and cluster with those descriptors at hits_addend = usage, as Envoy Gateway's response
// cost does. Limitador's Report is not used: a ShouldRateLimit works against every RLS
// rlpkit and its peers run. Its reply is ignored. The response's status is not read, as
// wasm-shim v0.14.1 does not read it: an error response whose body reports usage is charged
// (Envoy AI Gateway charges 2xx responses only). No usage, a usage of 0, a body that is not
// JSON or the filter's own 429 sends no report; the response is untouched, and the first such
// response of a plugin configuration is logged at warning level, the rest at debug level.
//
// A local reply the host refuses (proxy_send_local_response failing, e.g. on a stream that
// can no longer take one) is a failure of the filter like the others: with failureModeDeny
// the request is closed with proxy_close_stream (Envoy resets it), otherwise it continues.
// A request is never left paused by the filter; only a host refusing both the reply and the
// close leaves it to Envoy's own stream timeouts, with both failures logged.
//
// # What it never does
//
// It starts no timer and no goroutine: any runtime timer starts Go's netpoller, after which
// every garbage collection calls WASI poll_oneoff, which Envoy before 2026-04 stubs with
// ENOSYS, and the VM traps. The host's call timeout is the only clock. It links no protobuf
// runtime: packages rlsmsg (the rate-limit request and reply) and rlswire (the gRPC upstream
// and Envoy's metadata) encode and decode the messages by hand.
//
// # Where it differs from Envoy's own rate-limit filter
//
//   - The request-level hits_addend (Envoy's "envoy.ratelimit.hits_addend" filter state) is
//     not read: proxy-wasm offers no access to filter state objects.
//   - request_headers_to_add, raw_body and dynamic_metadata of a reply are not applied.
//   - The default timeout is 100ms rather than 20ms (see descriptor.DefaultTimeout).
package filter
