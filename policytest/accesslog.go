package policytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policyapi"
)

// LogEntry is what a replay reads of one access-log line. A LogEntry is reused from line to
// line by ParseLogLine; copy what must outlive the next call.
type LogEntry struct {
	// Time is the request's start time.
	Time time.Time
	// Method, Authority and Path are the request's.
	Method, Authority, Path string
	// Protocol is the request's protocol (%PROTOCOL%: HTTP/1.1, HTTP/2), "" when the line
	// does not record it.
	Protocol string
	// Client is the client address: the downstream remote address, or else the first
	// X-Forwarded-For entry.
	Client string
	// Headers are the request headers the line records, by lower-case name.
	Headers descriptor.HeaderMap
	// Tokens is the response's total tokens (JSON key total_tokens, a whole number or a
	// string of one); a TokenRateLimitPolicy's report charges it. HasTokens says the line
	// has it: without, no report is made.
	Tokens    uint64
	HasTokens bool
	// Status is the response's HTTP status (JSON key response_code, the default format's
	// %RESPONSE_CODE%); 0 when the line has none. Envoy AI Gateway writes its token
	// metadata only at the end of a 2xx response: tokens on a line of another status are
	// not charged by an Envoy Gateway rule's cost.response.
	Status int
	// Auth are the auth.* attributes the line records (JSON keys "auth.identity.userid"
	// and so on, as an access log writes %DYNAMIC_METADATA% or a header set from the auth
	// response), by name without "auth.".
	Auth map[string]string

	names map[string]string // JSON key -> header name
	usage policyapi.Response
}

// TokensKey is the JSON access-log key of a response's total tokens, as an access log
// writes it from Envoy AI Gateway's metadata
// (%DYNAMIC_METADATA(io.envoy.ai_gateway:llm_total_token)%) or from a response header.
const TokensKey = "total_tokens"

// StatusKey is the JSON access-log key of the response's HTTP status (%RESPONSE_CODE%).
const StatusKey = "response_code"

// request fills req from e.
func (e *LogEntry) request(in *Input) {
	*in = Input{Method: e.Method, Host: e.Authority, Path: e.Path, Protocol: e.Protocol, Headers: e.Headers, RemoteAddress: e.Client}
	if e.HasTokens {
		e.usage = policyapi.Response{Tokens: &e.Tokens, Status: e.Status}
		in.Response = &e.usage
	}
	if len(e.Auth) > 0 {
		in.Auth = nestAuth(e.Auth)
	}
}

// ParseLogLine reads one line of an Envoy access log into e: a JSON object (Envoy's
// json_format, keys named after the command operators as Istio and Envoy Gateway write them)
// or Envoy's default text format. It reports an error for a line that is neither or misses
// the start time.
//
// JSON lines read start_time, method, authority, path, protocol and downstream_remote_address (port
// stripped; else the first entry of x_forwarded_for); a key starting with "auth." is that
// auth.* attribute of the request (auth.identity.userid); total_tokens (TokensKey, a number
// or a string of one) is the response's usage and response_code (StatusKey) its status;
// every other string field is a request header
// named after its key with "_" as "-" (user_agent is user-agent). Text lines follow
// Envoy's default format:
//
//	[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE%
//	%RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%
//	"%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"
//
// which records no remote address: the client is the first X-Forwarded-For entry, the
// headers are x-forwarded-for, user-agent and x-request-id ("-" is absent), and
// %RESPONSE_CODE% is the response's status.
func ParseLogLine(line []byte, e *LogEntry) error {
	if e.Headers == nil {
		e.Headers = descriptor.HeaderMap{}
	}
	clear(e.Headers)
	clear(e.Auth)
	e.Method, e.Authority, e.Path, e.Client, e.Protocol = "", "", "", "", ""
	e.Tokens, e.HasTokens, e.Status = 0, false, 0
	line = bytes.TrimSpace(line)
	// One string for the whole line: the fields are substrings of it, without a copy each.
	switch {
	case len(line) > 0 && line[0] == '{':
		return parseJSONLine(string(line), e)
	case len(line) > 0 && line[0] == '[':
		return parseTextLine(string(line), e)
	}
	return errors.New("not an Envoy access-log line: want a JSON object or the default text format")
}

// parseTime reads Envoy's %START_TIME% (RFC 3339 with fractional seconds).
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("start time %q: want RFC 3339, such as 2024-01-01T00:00:00.000Z", s)
	}
	return t, nil
}

// firstForwarded returns the first entry of an X-Forwarded-For value.
func firstForwarded(xff string) string {
	first, _, _ := strings.Cut(xff, ",")
	return strings.TrimSpace(first)
}

// parseTextLine reads Envoy's default text format.
func parseTextLine(line string, e *LogEntry) error {
	end := strings.IndexByte(line, ']')
	if end < 0 {
		return errors.New("default format: no ] after the start time")
	}
	t, err := parseTime(line[1:end])
	if err != nil {
		return err
	}
	e.Time = t
	rest := line[end+1:]
	var quoted [6]string
	var afterFirst string // what follows the request line: %RESPONSE_CODE% first
	n := 0
	for n < len(quoted) {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '"')
		if j < 0 {
			return errors.New("default format: unterminated quoted field")
		}
		quoted[n] = rest[i+1 : i+1+j]
		n++
		rest = rest[i+1+j+1:]
		if n == 1 {
			afterFirst = rest
		}
	}
	if n < 5 {
		return fmt.Errorf("default format: %d quoted fields, want 6: request line, X-Forwarded-For, User-Agent, X-Request-Id, authority, upstream host", n)
	}
	if err := e.readTextStatus(afterFirst); err != nil {
		return err
	}
	method, target, ok := strings.Cut(quoted[0], " ")
	if !ok {
		return fmt.Errorf("default format: request line %q: want METHOD PATH PROTOCOL", quoted[0])
	}
	target, protocol, _ := strings.Cut(target, " ")
	e.Method, e.Path, e.Protocol = method, target, protocol
	header := func(name, v string) string {
		if v == "" || v == "-" {
			return ""
		}
		e.Headers[name] = append(e.Headers[name][:0], v)
		return v
	}
	e.Client = firstForwarded(header("x-forwarded-for", quoted[1]))
	header("user-agent", quoted[2])
	header("x-request-id", quoted[3])
	if quoted[4] != "-" {
		e.Authority = quoted[4]
	}
	return nil
}

// parseJSONLine reads a flat JSON object; nested values are skipped.
func parseJSONLine(line string, e *LogEntry) error {
	p := jsonScanner{b: line, i: 1}
	var start, remote, xff string
	for first := true; ; first = false {
		p.space()
		if p.eat('}') {
			break
		}
		if !first {
			if !p.eat(',') {
				return fmt.Errorf("JSON line: want , or } at byte %d", p.i)
			}
			p.space()
		}
		key, ok := p.str()
		if !ok {
			return fmt.Errorf("JSON line: bad object at byte %d", p.i)
		}
		p.space()
		if !p.eat(':') {
			return fmt.Errorf("JSON line: want : after %q", key)
		}
		p.space()
		if p.i < len(p.b) && p.b[p.i] != '"' {
			from := p.i
			if !p.skip() {
				return fmt.Errorf("JSON line: bad value of %q", key)
			}
			switch key {
			case TokensKey:
				if err := e.readTokens(p.b[from:p.i]); err != nil {
					return err
				}
			case StatusKey:
				if err := e.readStatus(p.b[from:p.i]); err != nil {
					return fmt.Errorf("JSON line: %w", err)
				}
			}
			continue
		}
		v, ok := p.str()
		if !ok {
			return fmt.Errorf("JSON line: bad string value of %q", key)
		}
		switch key {
		case TokensKey:
			if v != "" && v != "-" {
				if err := e.readTokens(v); err != nil {
					return err
				}
			}
		case StatusKey:
			if v != "" && v != "-" {
				if err := e.readStatus(v); err != nil {
					return fmt.Errorf("JSON line: %w", err)
				}
			}
		case "start_time":
			start = v
		case "method":
			e.Method = v
		case "authority":
			e.Authority = v
		case "path":
			e.Path = v
		case "protocol":
			if v != "-" {
				e.Protocol = v
			}
		case "downstream_remote_address":
			remote = v
		default:
			if v == "" || v == "-" {
				continue
			}
			if attr, ok := strings.CutPrefix(key, "auth."); ok && attr != "" {
				if e.Auth == nil {
					e.Auth = map[string]string{}
				}
				e.Auth[attr] = v
				continue
			}
			name, ok := e.names[key]
			if !ok {
				if e.names == nil {
					e.names = map[string]string{}
				}
				name = strings.ToLower(strings.ReplaceAll(key, "_", "-"))
				if len(e.names) < 256 { // a bound, should keys vary from line to line
					e.names[strings.Clone(key)] = name
				}
			}
			if name == "x-forwarded-for" {
				xff = v
			}
			e.Headers[name] = append(e.Headers[name][:0], v)
		}
	}
	if start == "" {
		return errors.New("JSON line: no start_time")
	}
	t, err := parseTime(start)
	if err != nil {
		return err
	}
	e.Time = t
	switch {
	case remote != "" && remote != "-":
		e.Client = remote
	case xff != "":
		e.Client = firstForwarded(xff)
	}
	return nil
}

// jsonScanner reads the flat JSON objects of access logs without reflection.
type jsonScanner struct {
	b string
	i int
}

func (p *jsonScanner) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *jsonScanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a JSON string.
func (p *jsonScanner) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start, escaped := p.i, false
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case '\\':
			escaped = true
			p.i += 2
			continue
		case '"':
			raw := p.b[start:p.i]
			p.i++
			if !escaped {
				return raw, true
			}
			var s string // the rare escaped string, decoded by the standard library
			if json.Unmarshal([]byte(p.b[start-1:p.i]), &s) != nil {
				return "", false
			}
			return s, true
		}
		p.i++
	}
	return "", false
}

// skip passes over a non-string value: a number, true, false, null, an object or an array.
func (p *jsonScanner) skip() bool {
	depth := 0
	for p.i < len(p.b) {
		switch c := p.b[p.i]; c {
		case '"':
			if _, ok := p.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return true
			}
			depth--
		case ',':
			if depth == 0 {
				return true
			}
		}
		p.i++
	}
	return false
}

// readTokens reads the total_tokens value v; null leaves it out.
func (e *LogEntry) readTokens(v string) error {
	if v == "null" {
		return nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("JSON line: %s %q: want a whole number of tokens", TokensKey, v)
	}
	e.Tokens, e.HasTokens = n, true
	return nil
}

// readStatus reads the response_code value v; null and 0 (no response) leave it out.
func (e *LogEntry) readStatus(v string) error {
	if v == "null" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 599 {
		return fmt.Errorf("%s %q: want an HTTP status", StatusKey, v)
	}
	e.Status = n
	return nil
}

// readTextStatus reads the default format's %RESPONSE_CODE%, the first field of rest.
func (e *LogEntry) readTextStatus(rest string) error {
	f, _, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
	if f == "" || f == "-" {
		return nil
	}
	if err := e.readStatus(f); err != nil {
		return fmt.Errorf("default format: %w", err)
	}
	return nil
}
