package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ), 100
// per second on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// cpuTime returns the CPU time, user plus system, that process pid has used
// so far, read from /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("rlsload: CPU time of process %d: %w", pid, err)
	}
	return parseStat(b)
}

// parseStat reads utime and stime (fields 14 and 15) of a /proc/PID/stat
// line; the command name (field 2) may hold spaces and parentheses, so the
// fields are counted from its closing parenthesis.
func parseStat(b []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0, fmt.Errorf("rlsload: /proc stat %q: no command name", b)
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 13 {
		return 0, fmt.Errorf("rlsload: /proc stat %q: %d fields after the name, want at least 13", b, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("rlsload: /proc stat: utime %q, stime %q: want integers", f[11], f[12])
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// cpuMeter measures the CPU time a process uses between start and stop.
// A zero pid measures nothing.
type cpuMeter struct {
	pid   int
	start time.Duration
}

func (m *cpuMeter) begin() error {
	if m.pid == 0 {
		return nil
	}
	t, err := cpuTime(m.pid)
	m.start = t
	return err
}

// end returns the CPU time used since begin.
func (m *cpuMeter) end() (time.Duration, error) {
	if m.pid == 0 {
		return 0, nil
	}
	t, err := cpuTime(m.pid)
	return t - m.start, err
}
