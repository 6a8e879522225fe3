// Command accesslog writes the small Envoy access log (JSON lines) that examples/toystore
// ships as access.log (not .json: rlpkit reads a directory's .json files as policy inputs),
// so that "rlpkit simulate" runs on the example out of the box:
//
//	go run ./examples/toystore/accesslog > examples/toystore/access.log
//	rlpkit simulate --gateway gateway-system/mygateway examples/toystore --log examples/toystore/access.log
//
// The traffic is deterministic: three minutes from 2024-01-01T00:00:00Z, two requests a
// second from four clients (more than the Gateway's default of 100 a minute), and in the
// second minute a burst on /admin that the Gateway's override (50 a minute) limits, which
// the other limits count as limited elsewhere.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	write(w)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// write writes the log to w.
func write(w io.Writer) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	line := func(at time.Duration, path, host string, client int) {
		fmt.Fprintf(w, `{"start_time":%q,"method":"GET","path":%q,"authority":%q,"downstream_remote_address":"10.0.0.%d:40000","user_agent":"toystore-example"}`+"\n",
			start.Add(at).Format("2006-01-02T15:04:05.000Z"), path, host, client)
	}
	for s := range 180 {
		at := time.Duration(s) * time.Second
		line(at, fmt.Sprintf("/toy/%d", s%7), "www.toystore.com", 1+s%4)
		line(at+500*time.Millisecond, "/toy/1", "api.toystore.com", 1+(s+1)%4)
		if s >= 60 && s < 90 {
			for k := range 3 {
				line(at+time.Duration(100+200*k)*time.Millisecond, "/admin", "api.toystore.com", 9)
			}
		}
	}
}
