package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The toystore example's three effective limits, as the model below counts them: 50 admin
// requests a minute (GET /admin), 1,000 a minute per client, 100 a minute in all.
const (
	toystoreDomain = "gateway-system/mygateway#default/toystore"
	modelAdmin     = "gateway-system/mygateway spec.override.rateLimits[0]"
	modelClient    = "gateway-system/mygateway spec.override.rateLimits[1]"
	modelGateway   = "gateway-system/mygateway spec.default.rateLimits[0]"
)

// genlog writes a random access log of the toystore example and, computed by a model of
// fixed one-minute windows written here from the example's policies (not by rlpkit's
// packages), the report "rlpkit simulate -o json" must print. Each counter's window starts
// at its first admitted hit and lasts a minute, as limitador counts:
//
//	genlog json|text LINES SEED LOG WANT
func genlog(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: genlog json|text LINES SEED LOG WANT")
	}
	lines, err := strconv.Atoi(args[1])
	ts.Check(err)
	seed, err := strconv.ParseUint(args[2], 10, 64)
	ts.Check(err)
	rng := rand.New(rand.NewPCG(seed, seed))

	type counts struct{ requests, admitted, limited, elsewhere, peak, second, inSecond int64 }
	type state struct {
		admin, gateway modelWindow
		clients        map[string]*modelWindow
	}
	stats := map[string]*counts{modelAdmin: {second: -1}, modelClient: {second: -1}, modelGateway: {second: -1}}
	first := map[string]string{}
	st := state{clients: map[string]*modelWindow{}}
	var log strings.Builder
	now := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := 0; i < lines; i++ {
		now = now.Add(time.Duration(rng.IntN(40)) * time.Millisecond)
		client := fmt.Sprintf("10.0.%d.%d", rng.IntN(2), rng.IntN(3))
		var path, host string
		switch k := rng.IntN(10); {
		case k < 4:
			path, host = "/admin", "api.toystore.com"
		case k < 9:
			path, host = fmt.Sprintf("/toy/%d", rng.IntN(100)), "www.toystore.com"
		default:
			path, host = "/checkout", "api.toystore.com" // the route does not match: no limit
		}
		stamp := now.Format("2006-01-02T15:04:05.000Z")
		if args[0] == "json" {
			fmt.Fprintf(&log, `{"start_time":%q,"method":"GET","path":%q,"authority":%q,"downstream_remote_address":"%s:4%03d","response_code":200,"user_agent":"gen"}`+"\n", stamp, path, host, client, i%1000)
		} else {
			fmt.Fprintf(&log, `[%s] "GET %s HTTP/1.1" 200 - 0 10 2 1 "%s, 192.0.2.1" "gen" "req-%d" "%s" "10.9.0.1:80"`+"\n", stamp, path, client, i, host)
		}
		if path == "/checkout" {
			continue
		}
		if st.clients[client] == nil {
			st.clients[client] = &modelWindow{}
		}
		applies := []string{modelClient, modelGateway}
		if path == "/admin" {
			applies = append(applies, modelAdmin)
		}
		over := map[string]bool{
			modelAdmin:   path == "/admin" && st.admin.at(now)+1 > 50,
			modelClient:  st.clients[client].at(now)+1 > 1000,
			modelGateway: st.gateway.at(now)+1 > 100,
		}
		rejected := over[modelAdmin] || over[modelClient] || over[modelGateway]
		if !rejected {
			st.clients[client].hit(now)
			st.gateway.hit(now)
			if path == "/admin" {
				st.admin.hit(now)
			}
		}
		for _, name := range applies {
			c := stats[name]
			c.requests++
			if c.second != now.Unix() {
				c.second, c.inSecond = now.Unix(), 0
			}
			c.inSecond++
			c.peak = max(c.peak, c.inSecond)
			switch {
			case !rejected:
				c.admitted++
			case over[name]:
				c.limited++
				if first[name] == "" {
					first[name] = now.Format(time.RFC3339Nano)
				}
			default:
				c.elsewhere++
			}
		}
	}
	want := struct {
		Requests int64         `json:"requests"`
		Limits   []limitReport `json:"limits"`
	}{Requests: int64(lines)}
	for _, l := range []struct {
		name         string
		max, seconds uint32
	}{{modelAdmin, 50, 60}, {modelClient, 1000, 60}, {modelGateway, 100, 60}} {
		c := stats[l.name]
		lr := limitReport{Namespace: toystoreDomain, Name: l.name, MaxValue: l.max, Seconds: l.seconds,
			Requests: c.requests, Admitted: c.admitted, Limited: c.limited, Elsewhere: c.elsewhere, PeakPerSecond: c.peak}
		if f, ok := first[l.name]; ok {
			lr.FirstLimited = &f
		}
		want.Limits = append(want.Limits, lr)
	}
	js, err := json.MarshalIndent(want, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(log.String()), 0o644))
	ts.Check(os.WriteFile(ts.MkAbs(args[4]), append(js, '\n'), 0o644))
}

// modelWindow is one counter of the model: a window opened by its first admitted hit.
type modelWindow struct {
	start time.Time
	count int64
}

// at returns the window's hits at now, a minute after its start being a new window.
func (w *modelWindow) at(now time.Time) int64 {
	if w.count > 0 && now.Sub(w.start) >= time.Minute {
		w.count = 0
	}
	return w.count
}

// hit counts an admitted hit at now, opening a window when there is none.
func (w *modelWindow) hit(now time.Time) {
	if w.at(now) == 0 {
		w.start = now
	}
	w.count++
}
