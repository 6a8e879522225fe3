package envoygateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// The range Envoy takes for an HTTP/2 initial window size, which Envoy Gateway checks.
const (
	minHTTP2Window = 65535
	maxHTTP2Window = 2147483647
)

// otherFields are the fields of a policy outside rate limits whose values Envoy Gateway
// checks when it translates the policy, as written (after merging, for a merged policy).
type otherFields struct {
	BandwidthLimit json.RawMessage `json:"bandwidthLimit"`
	TCPKeepalive   json.RawMessage `json:"tcpKeepalive"`
	Retry          json.RawMessage `json:"retry"`
	Timeout        json.RawMessage `json:"timeout"`
	Connection     json.RawMessage `json:"connection"`
	HTTP2          json.RawMessage `json:"http2"`
	RequestBuffer  json.RawMessage `json:"requestBuffer"`
}

// otherFieldsOf returns the checked fields of a policy.
func otherFieldsOf(p *egv1alpha1.BackendTrafficPolicy) otherFields {
	s := &p.Spec
	return otherFields{BandwidthLimit: s.BandwidthLimit.Raw(), TCPKeepalive: s.TCPKeepalive.Raw(), Retry: s.Retry.Raw(), Timeout: s.Timeout.Raw(),
		Connection: s.Connection.Raw(), HTTP2: s.HTTP2.Raw(), RequestBuffer: s.RequestBuffer.Raw()}
}

// mergeOther returns the checked fields of a route policy merged into its parent's as
// Envoy Gateway merges them: objects key by key, the route's values winning, lists and
// scalars replaced.
func mergeOther(parent, route otherFields) otherFields {
	m := func(a, b json.RawMessage) json.RawMessage {
		if a == nil {
			return b
		}
		if b == nil {
			return a
		}
		var av, bv any
		if json.Unmarshal(a, &av) != nil || json.Unmarshal(b, &bv) != nil {
			return b
		}
		out, err := json.Marshal(deepMerge(av, bv))
		if err != nil {
			return b
		}
		return out
	}
	return otherFields{BandwidthLimit: m(parent.BandwidthLimit, route.BandwidthLimit), TCPKeepalive: m(parent.TCPKeepalive, route.TCPKeepalive), Retry: m(parent.Retry, route.Retry),
		Timeout: m(parent.Timeout, route.Timeout), Connection: m(parent.Connection, route.Connection),
		HTTP2: m(parent.HTTP2, route.HTTP2), RequestBuffer: m(parent.RequestBuffer, route.RequestBuffer)}
}

func deepMerge(a, b any) any {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		return b
	}
	out := map[string]any{}
	for k, v := range am {
		out[k] = v
	}
	for k, v := range bm {
		out[k] = deepMerge(out[k], v)
	}
	return out
}

// decodeField decodes a field into v; false when it is unset or does not decode (the
// schema's validation reports that).
func decodeField(raw json.RawMessage, v any) bool {
	return raw != nil && json.Unmarshal(raw, v) == nil
}

// beforeOverride returns the errors Envoy Gateway finds, before the responseOverride's, in
// the fields f: bandwidthLimit, tcpKeepalive, retry, timeout, connection and http2, each
// error prefixed
// with the field as Envoy Gateway names it and joined by new lines.
func (f otherFields) beforeOverride() error {
	var errs []error
	with := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	with("BandwidthLimit", f.bandwidth())
	with("TCPKeepalive", f.tcpKeepalive())
	with("Retry", f.retry())
	with("Timeout", f.timeout())
	with("BackendConnection", f.connection())
	with("HTTP2", f.http2())
	return errors.Join(errs...)
}

// afterOverride returns the error Envoy Gateway finds, after the responseOverride's, in
// requestBuffer.
func (f otherFields) afterOverride() error {
	var rb struct {
		Limit *resource.Quantity `json:"limit"`
	}
	if !decodeField(f.RequestBuffer, &rb) || rb.Limit == nil {
		return nil
	}
	n, ok := rb.Limit.AsInt64()
	switch {
	case !ok:
		return errors.New("RequestBuffer: limit must be convertible to an int64")
	case n < 0 || n > math.MaxUint32:
		return fmt.Errorf("RequestBuffer: limit value %s is out of range, must be between 0 and %d", rb.Limit.String(), uint32(math.MaxUint32))
	}
	return nil
}

func (f otherFields) tcpKeepalive() error {
	var ka struct {
		IdleTime *string `json:"idleTime"`
		Interval *string `json:"interval"`
	}
	if !decodeField(f.TCPKeepalive, &ka) {
		return nil
	}
	if ka.IdleTime != nil {
		if _, err := time.ParseDuration(*ka.IdleTime); err != nil {
			return fmt.Errorf("invalid IdleTime value %s", *ka.IdleTime)
		}
	}
	if ka.Interval != nil {
		if _, err := time.ParseDuration(*ka.Interval); err != nil {
			return fmt.Errorf("invalid Interval value %s", *ka.Interval)
		}
	}
	return nil
}

func (f otherFields) retry() error {
	var r struct {
		PerRetry *struct {
			Timeout *string `json:"timeout"`
			BackOff *struct {
				BaseInterval *string `json:"baseInterval"`
				MaxInterval  *string `json:"maxInterval"`
			} `json:"backOff"`
		} `json:"perRetry"`
	}
	if !decodeField(f.Retry, &r) || r.PerRetry == nil {
		return nil
	}
	if t := r.PerRetry.Timeout; t != nil {
		if _, err := time.ParseDuration(*t); err != nil {
			return err
		}
	}
	bo := r.PerRetry.BackOff
	if bo == nil {
		return nil
	}
	var base *time.Duration
	if bo.BaseInterval != nil {
		if d, err := time.ParseDuration(*bo.BaseInterval); err == nil {
			if d == 0 {
				return errors.New("baseInterval cannot be set to 0s")
			}
			base = &d
		}
	}
	if bo.MaxInterval != nil {
		if d, err := time.ParseDuration(*bo.MaxInterval); err == nil {
			if d == 0 {
				return errors.New("maxInterval cannot be set to 0s")
			}
			if base != nil && *base > d {
				return errors.New("maxInterval cannot be less than baseInterval")
			}
		}
	}
	return nil
}

func (f otherFields) timeout() error {
	var to struct {
		TCP *struct {
			ConnectTimeout *string `json:"connectTimeout"`
		} `json:"tcp"`
		HTTP *struct {
			ConnectionIdleTimeout *string `json:"connectionIdleTimeout"`
			MaxConnectionDuration *string `json:"maxConnectionDuration"`
			RequestTimeout        *string `json:"requestTimeout"`
			MaxStreamDuration     *string `json:"maxStreamDuration"`
			StreamIdleTimeout     *string `json:"streamIdleTimeout"`
		} `json:"http"`
	}
	if !decodeField(f.Timeout, &to) {
		return nil
	}
	var errs []error
	check := func(name string, v *string) {
		if v == nil {
			return
		}
		if _, err := time.ParseDuration(*v); err != nil {
			errs = append(errs, fmt.Errorf("invalid %s value %s", name, *v))
		}
	}
	if to.TCP != nil {
		check("ConnectTimeout", to.TCP.ConnectTimeout)
	}
	if h := to.HTTP; h != nil {
		check("ConnectionIdleTimeout", h.ConnectionIdleTimeout)
		check("MaxConnectionDuration", h.MaxConnectionDuration)
		check("RequestTimeout", h.RequestTimeout)
		check("MaxStreamDuration", h.MaxStreamDuration)
		check("StreamIdleTimeout", h.StreamIdleTimeout)
	}
	return errors.Join(errs...)
}

func (f otherFields) connection() error {
	var c struct {
		BufferLimit *resource.Quantity `json:"bufferLimit"`
	}
	if !decodeField(f.Connection, &c) || c.BufferLimit == nil {
		return nil
	}
	n, ok := c.BufferLimit.AsInt64()
	switch {
	case !ok:
		return fmt.Errorf("invalid BufferLimit value %s", c.BufferLimit.String())
	case n < 0 || n > math.MaxUint32:
		return fmt.Errorf("BufferLimit value %s is out of range", c.BufferLimit.String())
	}
	return nil
}

func (f otherFields) http2() error {
	var h struct {
		InitialStreamWindowSize     *resource.Quantity `json:"initialStreamWindowSize"`
		InitialConnectionWindowSize *resource.Quantity `json:"initialConnectionWindowSize"`
	}
	if !decodeField(f.HTTP2, &h) {
		return nil
	}
	var errs []error
	check := func(name string, q *resource.Quantity) {
		if q == nil {
			return
		}
		n, ok := q.AsInt64()
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("invalid %s value %s", name, q.String()))
		case n < minHTTP2Window || n > maxHTTP2Window:
			errs = append(errs, fmt.Errorf("%s value %s is out of range, must be between %d and %d", name, q.String(), minHTTP2Window, maxHTTP2Window))
		}
	}
	check("InitialStreamWindowSize", h.InitialStreamWindowSize)
	check("InitialConnectionWindowSize", h.InitialConnectionWindowSize)
	return errors.Join(errs...)
}

// bandwidthLimit is a request or response bandwidth limit: bytes per unit.
type bandwidthLimit struct {
	Limit struct {
		Value resource.Quantity `json:"value"`
		Unit  string            `json:"unit"`
	} `json:"limit"`
}

func (f otherFields) bandwidth() error {
	var b struct {
		Request  *bandwidthLimit `json:"request"`
		Response *bandwidthLimit `json:"response"`
	}
	if !decodeField(f.BandwidthLimit, &b) {
		return nil
	}
	for _, x := range []struct {
		name string
		l    *bandwidthLimit
	}{{"request", b.Request}, {"response", b.Response}} {
		if x.l == nil {
			continue
		}
		n, ok := x.l.Limit.Value.AsInt64()
		switch {
		case !ok:
			return fmt.Errorf("%s limit value must be convertible to an int64", x.name)
		case n < 0:
			return fmt.Errorf("%s limit value must be positive", x.name)
		}
		per := uint64(1)
		switch x.l.Limit.Unit {
		case "Minute":
			per = 60
		case "Hour":
			per = 3600
		}
		if uint64(n)/(per*1024) == 0 {
			return fmt.Errorf("%s: bandwidth limit of %d bytes per %s is below the minimum of 1 KiB/s", x.name, n, x.l.Limit.Unit)
		}
	}
	return nil
}
