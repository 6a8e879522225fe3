package filter

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// maxReportBody is the most of a response body the filter keeps to read a cost from; a
// longer JSON body reports nothing. A server-sent-events body keeps only its last events.
const maxReportBody = 4 << 20

// pendingReport is what a request whose policy charges a cost from the response body keeps
// until the body has ended: the descriptors to charge, each with its JSON pointer, and the
// body read so far.
type pendingReport struct {
	policy      int
	domain      string
	descriptors []rlsmsg.Descriptor
	pointers    []string
	sse         bool
	body        []byte
	tooLong     bool
}

// newReport copies the response-cost descriptors of res, which the next request reuses.
func newReport(res *descriptor.Result) *pendingReport {
	p := &pendingReport{policy: res.PolicyIndex, domain: res.Domain}
	for _, rc := range res.ResponseCosts {
		d := res.Descriptors[rc.Descriptor]
		c := rlsmsg.Descriptor{Entries: slices.Clone(d.Entries)}
		if d.Limit != nil {
			l := *d.Limit
			c.Limit = &l
		}
		p.descriptors = append(p.descriptors, c)
		p.pointers = append(p.pointers, rc.JSONPointer)
	}
	return p
}

// add appends a body chunk, keeping a server-sent-events body to its last two complete
// events and what follows them.
func (p *pendingReport) add(chunk []byte) {
	if p.tooLong {
		return
	}
	p.body = append(p.body, chunk...)
	if p.sse && len(p.body) > 64<<10 {
		if end := bytes.LastIndex(p.body, []byte("\n\n")); end > 0 {
			if prev := bytes.LastIndex(p.body[:end], []byte("\n\n")); prev > 0 {
				if before := bytes.LastIndex(p.body[:prev], []byte("\n\n")); before >= 0 {
					p.body = append(p.body[:0], p.body[before+2:]...)
				}
			}
		}
	}
	if len(p.body) > maxReportBody {
		p.body, p.tooLong = nil, true
	}
}

// OnResponseHeaders' part for reports: note whether the body is server-sent events.
func (f *Filter) reportHeaders(s *stream) {
	pairs, st := f.host.ResponseHeaders()
	if st != StatusOK {
		return
	}
	for _, h := range pairs {
		if strings.EqualFold(h.Key, "content-type") {
			mt, _, _ := strings.Cut(h.Value, ";")
			s.report.sse = strings.EqualFold(strings.TrimSpace(mt), "text/event-stream")
		}
	}
}

// OnResponseBody reads each chunk of a response whose request charges a cost from the body
// and passes it on at once; at the end of the body it sends the report.
func (f *Filter) OnResponseBody(id, size uint32, end bool) Action {
	s := f.streams[id]
	if s == nil || s.report == nil {
		return Continue
	}
	if size > 0 {
		chunk, st := f.host.ResponseBody(size)
		if st != StatusOK {
			f.noUsage(s, "reading the response body: "+st.String())
			s.report = nil
			return Continue
		}
		s.report.add(chunk)
	}
	if end {
		f.sendReport(s)
		s.report = nil
	}
	return Continue
}

// sendReport charges the usage read from the body: one ShouldRateLimit to the request's
// domain with the response-cost descriptors, each at hits_addend = its usage. No usage, a
// usage of 0 or a body that is not JSON sends nothing.
func (f *Filter) sendReport(s *stream) {
	p := s.report
	r := f.roots[s.root]
	if r == nil || r.engine == nil || p.policy >= len(r.upstreams) {
		return
	}
	if p.tooLong {
		f.noUsage(s, "the response body is longer than "+strconv.Itoa(maxReportBody)+" bytes")
		return
	}
	contentType := ""
	if p.sse {
		contentType = "text/event-stream"
	}
	req := rlsmsg.Request{Domain: p.domain}
	usages := make([]uint64, len(p.descriptors))
	for i, ptr := range p.pointers {
		n, err := descriptor.UsageFromBody(p.body, contentType, ptr)
		if err != nil {
			f.noUsage(s, err.Error())
			return
		}
		if n == 0 {
			continue
		}
		usages[i] = n
		d := p.descriptors[i]
		d.HitsAddend = &usages[i]
		req.Descriptors = append(req.Descriptors, d)
	}
	if len(req.Descriptors) == 0 {
		return
	}
	f.buf = rlsmsg.AppendRequest(f.buf[:0], &req)
	token, st := f.host.GrpcCall(r.upstreams[p.policy], Service, Method, f.buf, r.timeout)
	if st != StatusOK {
		f.host.Log(LogWarn, "rlpkit-filter: reporting usage: proxy_grpc_call to cluster "+strconv.Quote(r.engine.Policy(p.policy).UpstreamCluster)+": "+st.String())
		return
	}
	f.reports[token] = struct{}{}
}

// noUsage logs, once per plugin configuration at warning level and at debug level after,
// that a response was not charged.
func (f *Filter) noUsage(s *stream, why string) {
	msg := "rlpkit-filter: no usage reported for this response: " + why
	if r := f.roots[s.root]; r != nil && !r.noUsageLogged {
		r.noUsageLogged = true
		f.host.Log(LogWarn, msg+" (later responses without usage are logged at debug level)")
		return
	}
	f.host.Log(LogDebug, msg)
}

// takeReport forgets a report call and reports whether token was one: its reply charges
// nothing more and no request waits for it.
func (f *Filter) takeReport(token uint32) bool {
	if _, ok := f.reports[token]; !ok {
		return false
	}
	delete(f.reports, token)
	return true
}
