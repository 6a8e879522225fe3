package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// redisClient reads the command statistics of the server's Redis.
type redisClient struct{ c *redis.Client }

func newRedisClient(url string) (*redisClient, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("rlsload: -redis: %w", err)
	}
	return &redisClient{redis.NewClient(opt)}, nil
}

func (r *redisClient) close() { r.c.Close() }

// reset zeroes Redis's statistics.
func (r *redisClient) reset(ctx context.Context) error {
	if err := r.c.ConfigResetStat(ctx).Err(); err != nil {
		return fmt.Errorf("rlsload: redis CONFIG RESETSTAT: %w", err)
	}
	return nil
}

// localPID returns the process id of the Redis server when it runs on this
// machine (INFO server's process_id names a redis-server in /proc), else 0.
func (r *redisClient) localPID(ctx context.Context) (int, error) {
	info, err := r.c.Info(ctx, "server").Result()
	if err != nil {
		return 0, fmt.Errorf("rlsload: redis INFO server: %w", err)
	}
	pid := infoInt(info, "process_id")
	if pid <= 0 {
		return 0, nil
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || !strings.HasPrefix(string(comm), "redis-server") {
		return 0, nil // another machine's, or a namespace's, process
	}
	return pid, nil
}

// infoInt returns the integer field name of an INFO reply, or -1.
func infoInt(info, name string) int {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return -1
}

// redisStats counts the commands Redis ran since reset, except this
// program's own (CONFIG, INFO), and the reads from its clients' sockets.
type redisStats struct {
	total    int
	commands []commandCount
	// reads is INFO stats' total_reads_processed, less this program's
	// own two INFO commands; -1 when Redis does not report it (before 6.0).
	// A pipeline of commands, whatever its script calls, is one read when
	// it fits the socket's buffer: reads count round trips, which script
	// calls do not once a pipeline carries several.
	reads int
}

// add returns the sum of s (nil: none) and o, the statistics of two
// servers: their commands by name, their reads (-1 when either lacks them).
func (s *redisStats) add(o *redisStats) *redisStats {
	if s == nil {
		return o
	}
	sum := &redisStats{total: s.total + o.total, reads: s.reads + o.reads}
	if s.reads < 0 || o.reads < 0 {
		sum.reads = -1
	}
	sum.commands = append(sum.commands, s.commands...)
next:
	for _, c := range o.commands {
		for i := range sum.commands {
			if sum.commands[i].name == c.name {
				sum.commands[i].calls += c.calls
				continue next
			}
		}
		sum.commands = append(sum.commands, c)
	}
	return sum
}

// ownReads is the reads of this program's INFO commandstats and INFO stats
// after the reset.
const ownReads = 2

type commandCount struct {
	name  string
	calls int
}

func (r *redisClient) stats(ctx context.Context) (*redisStats, error) {
	info, err := r.c.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, fmt.Errorf("rlsload: redis INFO commandstats: %w", err)
	}
	s, err := parseCommandStats(info)
	if err != nil {
		return nil, fmt.Errorf("rlsload: redis INFO commandstats: %w", err)
	}
	info, err = r.c.Info(ctx, "stats").Result()
	if err != nil {
		return nil, fmt.Errorf("rlsload: redis INFO stats: %w", err)
	}
	s.reads = infoInt(info, "total_reads_processed")
	if s.reads >= 0 {
		s.reads = max(0, s.reads-ownReads)
	}
	return s, nil
}

// parseCommandStats reads lines such as
// "cmdstat_evalsha:calls=12,usec=340,usec_per_call=28.33,...".
func parseCommandStats(info string) (*redisStats, error) {
	s := &redisStats{}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		name = strings.TrimPrefix(name, "cmdstat_")
		if name == "config" || name == "info" || strings.HasPrefix(name, "config|") || strings.HasPrefix(name, "info|") {
			continue
		}
		calls := -1
		for _, field := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(field, "calls="); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					return nil, fmt.Errorf("%q: %w", line, err)
				}
				calls = n
			}
		}
		if calls < 0 {
			return nil, fmt.Errorf("%q: no calls field", line)
		}
		s.total += calls
		s.commands = append(s.commands, commandCount{name, calls})
	}
	slices.SortFunc(s.commands, func(a, b commandCount) int {
		if a.calls != b.calls {
			return b.calls - a.calls
		}
		return strings.Compare(a.name, b.name)
	})
	return s, nil
}

// isScriptCall reports whether a command runs a script; the commands the
// script runs inside Redis are counted apart.
func isScriptCall(name string) bool {
	switch name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}
