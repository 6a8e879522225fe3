package rls

import (
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// sized builds a request in domain "d" of n descriptors of entries
// entries each, whose domain, keys and values total keyBytes bytes (0: a
// one-byte key and value per entry). Every key is "k"; the values share
// the rest.
func sized(n, entries, keyBytes int) *rlsv3.RateLimitRequest {
	total := n * entries
	if keyBytes == 0 {
		keyBytes = 1 + 2*total
	}
	rest := keyBytes - 1 - total // the values' bytes
	req := &rlsv3.RateLimitRequest{Domain: "d"}
	i := 0
	for range n {
		d := &rlcommon.RateLimitDescriptor{}
		for range entries {
			size := rest / total
			if i < rest%total {
				size++
			}
			d.Entries = append(d.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: "k", Value: strings.Repeat("v", size)})
			i++
		}
		req.Descriptors = append(req.Descriptors, d)
	}
	return req
}

// capCase is a request at or over the default caps and, when over, the
// problem its refusal names with each conventions' settings.
type capCase struct {
	name    string
	req     func() *rlsv3.RateLimitRequest
	rlpkit  string // "" when the request is served
	envoyRL string
}

var capCases = []capCase{
	{name: "at every cap", req: func() *rlsv3.RateLimitRequest {
		return sized(DefaultMaxDescriptors, DefaultMaxEntries, DefaultMaxKeyBytes)
	}},
	{name: "one descriptor more", req: func() *rlsv3.RateLimitRequest { return sized(DefaultMaxDescriptors+1, 1, 0) },
		rlpkit:  "descriptors: 1025, over the cap of 1024 per request (raise it with --max-descriptors)",
		envoyRL: "descriptors: 1025, over the cap of 1024 per request (raise it with RLPKIT_MAX_DESCRIPTORS_PER_REQUEST)"},
	{name: "one entry more", req: func() *rlsv3.RateLimitRequest {
		r := sized(5, 1, 0)
		r.Descriptors[3] = sized(1, DefaultMaxEntries+1, 0).Descriptors[0]
		return r
	},
		rlpkit:  "descriptors[3].entries: 65, over the cap of 64 per descriptor (raise it with --max-entries)",
		envoyRL: "descriptors[3].entries: 65, over the cap of 64 per descriptor (raise it with RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR)"},
	{name: "one key byte more", req: func() *rlsv3.RateLimitRequest { return sized(2, 1, DefaultMaxKeyBytes+1) },
		rlpkit:  "domain and entries: 262145 bytes of keys and values, over the cap of 262144 per request (raise it with --max-key-bytes)",
		envoyRL: "domain and entries: 262145 bytes of keys and values, over the cap of 262144 per request (raise it with RLPKIT_MAX_KEY_BYTES_PER_REQUEST)"},
}

// outcomes records the outcomes a Service observes.
type outcomes struct {
	mu   sync.Mutex
	list []Outcome
}

func (o *outcomes) observe(out Outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out.Counters = nil // only valid during the call
	o.list = append(o.list, out)
}

// take returns the outcomes recorded and forgets them.
func (o *outcomes) take() []Outcome {
	o.mu.Lock()
	defer o.mu.Unlock()
	list := o.list
	o.list = nil
	return list
}

// capsServices returns a Service of each conventions with the default
// caps, observed by observed.
func capsServices(t *testing.T, observed *outcomes) map[string]*Service {
	observe := observed.observe
	rlpkit, err := New(shopLimits, Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Clock: fixedClock(t0), Observe: observe})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Service{"RLPKit": rlpkit, "EnvoyRateLimit": newRatelimitService(t, Options{Observe: observe}, true)}
}

// TestCapsRefused sends requests at and over the default caps through every
// way of serving a Service: over gRPC with Register and with
// go-control-plane's registration, and in process. A request at the caps
// is served; one over is refused before it is evaluated, with the
// conventions' invalid-request code and a message naming the cap, the
// request's figure and the setting that raises it.
func TestCapsRefused(t *testing.T) {
	var observed outcomes
	for convName, s := range capsServices(t, &observed) {
		registered := serveLoopback(t, s)
		generated := serveLoopbackWith(t, func(srv *grpc.Server) { rlsv3.RegisterRateLimitServiceServer(srv, s) }, s.ServerOptions()...)
		ways := map[string]func(context.Context, *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error){
			"Register": func(ctx context.Context, r *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
				return registered.ShouldRateLimit(ctx, r)
			},
			"generated": func(ctx context.Context, r *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
				return generated.ShouldRateLimit(ctx, r)
			},
			"in process": s.ShouldRateLimit,
		}
		for wayName, call := range ways {
			for _, tc := range capCases {
				t.Run(convName+"/"+wayName+"/"+tc.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					observed.take()
					req := tc.req()
					resp, err := call(ctx, req)
					want, code := tc.rlpkit, codes.InvalidArgument
					if convName == "EnvoyRateLimit" {
						want, code = tc.envoyRL, codes.Unknown
					}
					if want == "" {
						if err != nil || len(resp.GetStatuses()) != len(req.Descriptors) {
							t.Fatalf("ShouldRateLimit = %d statuses, %v; want %d statuses", len(resp.GetStatuses()), err, len(req.Descriptors))
						}
						return
					}
					wantMsg := s.conv.Prefix + "invalid request: " + want
					if st := grpcstatus.Convert(err); st.Code() != code || st.Message() != wantMsg {
						t.Errorf("ShouldRateLimit = %v %q, want %v %q", st.Code(), st.Message(), code, wantMsg)
					}
					var ie *limit.InvalidRequestError
					if observed := observed.take(); len(observed) != 1 || observed[0].Code != code || !errors.As(observed[0].Err, &ie) {
						t.Errorf("observed %+v, want one outcome of code %v with an InvalidRequestError", observed, code)
					}
				})
			}
		}
	}
}

// countingEvaluator counts the requests it is asked to evaluate.
type countingEvaluator struct{ calls atomic.Int64 }

func (e *countingEvaluator) Evaluate(_ context.Context, _ time.Time, req *rlsmsg.Request, res *limit.Result) error {
	e.calls.Add(1)
	return nil
}

func (e *countingEvaluator) Configured(string) bool { return true }

// TestCapsBeforeEvaluation: a request far over a cap (30,000 descriptors
// with limit overrides, as a hostile client sends) never reaches the
// evaluator.
func TestCapsBeforeEvaluation(t *testing.T) {
	ev := &countingEvaluator{}
	s := NewService(Options{Evaluator: ev})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hostile := sized(30000, 1, 0)
	for _, d := range hostile.Descriptors {
		withOverride(d, 1, 1)
	}
	want := "rls: invalid request: descriptors: 30000, over the cap of 1024 per request (raise it with --max-descriptors)"
	for name, client := range map[string]rlsv3.RateLimitServiceClient{
		"Register":  serveLoopback(t, s),
		"generated": serveLoopbackWith(t, func(srv *grpc.Server) { rlsv3.RegisterRateLimitServiceServer(srv, s) }, s.ServerOptions()...),
	} {
		_, err := client.ShouldRateLimit(ctx, hostile)
		if st := grpcstatus.Convert(err); st.Code() != codes.InvalidArgument || st.Message() != want {
			t.Errorf("%s: ShouldRateLimit = %v %q, want InvalidArgument %q", name, st.Code(), st.Message(), want)
		}
	}
	if n := ev.calls.Load(); n != 0 {
		t.Errorf("the evaluator was called %d times, want none", n)
	}
}

// TestCapsOptions: the caps of Options replace the defaults.
func TestCapsOptions(t *testing.T) {
	ev := &countingEvaluator{}
	s := NewService(Options{Evaluator: ev, Caps: RequestCaps{MaxDescriptors: 3, MaxEntries: 2, MaxKeyBytes: 20}})
	client := serveLoopback(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tests := []struct {
		req  *rlsv3.RateLimitRequest
		want string
	}{
		{sized(4, 1, 0), "rls: invalid request: descriptors: 4, over the cap of 3 per request (raise it with --max-descriptors)"},
		{sized(3, 3, 0), "rls: invalid request: descriptors[0].entries: 3, over the cap of 2 per descriptor (raise it with --max-entries)"},
		{sized(3, 2, 21), "rls: invalid request: domain and entries: 21 bytes of keys and values, over the cap of 20 per request (raise it with --max-key-bytes)"},
	}
	for _, tc := range tests {
		for _, call := range []func(context.Context, *rlsv3.RateLimitRequest, ...grpc.CallOption) (*rlsv3.RateLimitResponse, error){
			client.ShouldRateLimit,
			func(ctx context.Context, r *rlsv3.RateLimitRequest, _ ...grpc.CallOption) (*rlsv3.RateLimitResponse, error) {
				return s.ShouldRateLimit(ctx, r)
			},
		} {
			_, err := call(ctx, tc.req)
			if st := grpcstatus.Convert(err); st.Code() != codes.InvalidArgument || st.Message() != tc.want {
				t.Errorf("ShouldRateLimit = %v %q, want InvalidArgument %q", st.Code(), st.Message(), tc.want)
			}
		}
	}
	if n := ev.calls.Load(); n != 0 {
		t.Errorf("the evaluator was called %d times, want none", n)
	}
	if _, err := client.ShouldRateLimit(ctx, sized(3, 2, 20)); err != nil || ev.calls.Load() != 1 {
		t.Errorf("ShouldRateLimit(at the caps) = %v after %d evaluations, want it evaluated", err, ev.calls.Load())
	}
}

// TestReceiveLimit: ServerOptions' receive limit is MaxRecvMsgSize of the
// Service's caps: a message one byte over it is refused by gRPC with
// ResourceExhausted before it is decoded, one of exactly its size is read
// (and refused by the caps).
func TestReceiveLimit(t *testing.T) {
	for _, caps := range []RequestCaps{{}, {MaxDescriptors: 2, MaxEntries: 2, MaxKeyBytes: 10}} {
		s := NewService(Options{Evaluator: &countingEvaluator{}, Caps: caps})
		max := caps.MaxRecvMsgSize()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for name, client := range map[string]rlsv3.RateLimitServiceClient{
			"Register":  serveLoopback(t, s),
			"generated": serveLoopbackWith(t, func(srv *grpc.Server) { rlsv3.RegisterRateLimitServiceServer(srv, s) }, s.ServerOptions()...),
		} {
			for _, size := range []int{max, max + 1} {
				req := &rlsv3.RateLimitRequest{Domain: strings.Repeat("d", size-1-protoVarintLen(size))}
				if got := proto.Size(req); got != size {
					t.Fatalf("a request of %d bytes is %d", size, got)
				}
				_, err := client.ShouldRateLimit(ctx, req)
				code := grpcstatus.Code(err)
				if size > max && code != codes.ResourceExhausted || size == max && code != codes.InvalidArgument {
					t.Errorf("%s, caps %+v: a request of %d bytes (limit %d) answers %v", name, caps, size, max, err)
				}
			}
		}
	}
}

// protoVarintLen is the length of n's varint, for a string of n-1-that
// bytes to be n bytes long with its tag and length.
func protoVarintLen(n int) int {
	l := 1
	for n >= 1<<7 {
		n >>= 7
		l++
	}
	return l
}

// largest is the longest request at caps: every field set, its numbers
// the longest varints, its strings of control characters (each escaped
// to \u00XX in JSON).
func largest(caps RequestCaps) *rlsv3.RateLimitRequest {
	caps = caps.withDefaults()
	req := sized(caps.MaxDescriptors, caps.MaxEntries, caps.MaxKeyBytes)
	req.HitsAddend = math.MaxUint32
	req.Domain = "\x01"
	for _, d := range req.Descriptors {
		for _, e := range d.Entries {
			e.Key, e.Value = "\x01", strings.Repeat("\x01", len(e.Value))
		}
		withHits(withOverride(d, math.MaxUint32, -1), math.MaxUint64)
		d.Limit.UnitMultiplier = wrapperspb.UInt32(math.MaxUint32)
		d.IsNegativeHits = true
	}
	return req
}

// TestMaxRecvMsgSize checks the formula's figures, and that the longest
// requests at the caps fit in it and, in JSON, in the /json body bound.
func TestMaxRecvMsgSize(t *testing.T) {
	if got := (RequestCaps{}).MaxRecvMsgSize(); got != 1376320 {
		t.Errorf("MaxRecvMsgSize with the defaults = %d, want 1376320", got)
	}
	huge := RequestCaps{MaxDescriptors: math.MaxInt32, MaxEntries: math.MaxInt32, MaxKeyBytes: math.MaxInt32}
	if got := huge.MaxRecvMsgSize(); got != math.MaxInt32 {
		t.Errorf("MaxRecvMsgSize(%+v) = %d, want math.MaxInt32", huge, got)
	}
	if got := huge.maxJSONBody(); got != math.MaxInt32 {
		t.Errorf("maxJSONBody(%+v) = %d, want math.MaxInt32", huge, got)
	}
	for _, caps := range []RequestCaps{{}, {MaxDescriptors: 1, MaxEntries: 1, MaxKeyBytes: 3 << 20}, {MaxDescriptors: 7, MaxEntries: 3, MaxKeyBytes: 100}} {
		req := largest(caps)
		if size, max := proto.Size(req), caps.MaxRecvMsgSize(); size > max {
			t.Errorf("caps %+v: the longest request is %d bytes, over MaxRecvMsgSize %d", caps, size, max)
		}
		js, err := protojson.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if max := caps.maxJSONBody(); len(js) > max {
			t.Errorf("caps %+v: the longest request is %d bytes of JSON, over the bound %d", caps, len(js), max)
		}
	}
}

// TestJSONHandlerCaps: POST /json serves a request at the caps and refuses
// one over with 400 and the reason, as it refuses a body longer than any
// request within the caps.
func TestJSONHandlerCaps(t *testing.T) {
	s := newRatelimitService(t, Options{}, true)
	h := s.JSONHandler()
	post := func(body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/json", strings.NewReader(body)))
		return rec
	}
	for _, tc := range capCases {
		js, err := protojson.Marshal(tc.req())
		if err != nil {
			t.Fatal(err)
		}
		rec := post(string(js))
		want, wantBody := 400, "ratelimit: invalid request: "+tc.envoyRL+"\n"
		if tc.envoyRL == "" {
			want, wantBody = 200, `"overallCode":"OK"`
		}
		if rec.Code != want || !strings.Contains(rec.Body.String(), wantBody) {
			t.Errorf("%s: POST /json = %d %.200s, want %d %q", tc.name, rec.Code, rec.Body, want, wantBody)
		}
	}
	max := RequestCaps{}.maxJSONBody()
	valid := `{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"v"}]}]}`
	body := valid[:len(valid)-1] + strings.Repeat(" ", max-len(valid)) + "}"
	if rec := post(body); rec.Code != 200 {
		t.Errorf("POST /json of %d bytes = %d %.200s, want 200", len(body), rec.Code, rec.Body)
	}
	rec := post(body + " ")
	wantBody := "the request body is over 3933184 bytes, the most a request within the caps takes in JSON (raise the caps with RLPKIT_MAX_DESCRIPTORS_PER_REQUEST, RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR, RLPKIT_MAX_KEY_BYTES_PER_REQUEST)\n"
	if rec.Code != 400 || rec.Body.String() != wantBody {
		t.Errorf("POST /json of %d bytes = %d %q, want 400 %q", len(body)+1, rec.Code, rec.Body, wantBody)
	}
}

// TestJSONHandlerFailure: a call that fails for another reason than the
// request answers Conventions.JSONFailure: 400 with the reference's
// conventions, 500 with rlpkit's.
func TestJSONHandlerFailure(t *testing.T) {
	for _, tc := range []struct {
		conv *Conventions
		want int
	}{{&EnvoyRateLimit, 400}, {&RLPKit, 500}} {
		rec := httptest.NewRecorder()
		newRatelimitService(t, Options{Conventions: tc.conv}, false).JSONHandler().ServeHTTP(rec, httptest.NewRequest("POST", "/json", strings.NewReader(`{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"j"}]}]}`)))
		if rec.Code != tc.want || !strings.Contains(rec.Body.String(), "no rate limit configuration loaded") {
			t.Errorf("POST /json before any configuration (%s) = %d %q, want %d no rate limit configuration loaded", tc.conv.Prefix, rec.Code, rec.Body, tc.want)
		}
	}
}
