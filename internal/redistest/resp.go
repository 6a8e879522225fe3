package redistest

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Reply is a Redis reply as the helpers read it: a string (simple or bulk;
// nil bulk is ""), an integer, an error or an array of replies.
type Reply struct {
	Str   string
	Int   int64
	Err   string // set for an error reply, without its '-'
	Array []Reply
	Nil   bool
}

// Do sends one command to addr over a fresh connection, within timeout,
// and returns its reply. An error reply is returned as an error too.
func Do(addr string, timeout time.Duration, args ...string) (Reply, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return Reply{}, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return Reply{}, err
	}
	r, err := readReply(bufio.NewReader(c))
	if err != nil {
		return Reply{}, err
	}
	if r.Err != "" {
		return r, fmt.Errorf("%s on %s: %s", args[0], addr, r.Err)
	}
	return r, nil
}

func readReply(r *bufio.Reader) (Reply, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return Reply{}, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return Reply{}, fmt.Errorf("empty reply line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return Reply{Str: body}, nil
	case '-':
		return Reply{Err: body}, nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		return Reply{Int: n}, err
	case '$', '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return Reply{}, err
		}
		if n < 0 {
			return Reply{Nil: true}, nil
		}
		if line[0] == '$' {
			buf := make([]byte, n+2)
			if _, err := readFull(r, buf); err != nil {
				return Reply{}, err
			}
			return Reply{Str: string(buf[:n])}, nil
		}
		out := Reply{Array: make([]Reply, 0, n)}
		for range n {
			e, err := readReply(r)
			if err != nil {
				return Reply{}, err
			}
			out.Array = append(out.Array, e)
		}
		return out, nil
	}
	return Reply{}, fmt.Errorf("unknown reply type %q", line)
}

func readFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// infoField returns the value of field in an INFO or CLUSTER INFO text.
func infoField(text, field string) string {
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), field+":"); ok {
			return v
		}
	}
	return ""
}
