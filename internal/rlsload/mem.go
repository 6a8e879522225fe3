package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// procMemory is a process's resident set, from /proc/PID/status.
type procMemory struct {
	rss, hwm int64 // VmRSS and VmHWM (its peak), bytes
}

// memoryOf reads process pid's VmRSS and VmHWM.
func memoryOf(pid int) (procMemory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procMemory{}, fmt.Errorf("rlsload: memory of process %d: %w", pid, err)
	}
	return parseStatus(b)
}

// parseStatus reads the VmRSS and VmHWM lines ("VmRSS:	  12345 kB") of a
// /proc/PID/status file.
func parseStatus(b []byte) (procMemory, error) {
	var m procMemory
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "VmRSS" && name != "VmHWM" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("rlsload: /proc status line %q: want a number of kB", sc.Text())
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("rlsload: /proc status line %q: %w", sc.Text(), err)
		}
		if name == "VmRSS" {
			m.rss = kb << 10
		} else {
			m.hwm = kb << 10
		}
		found++
	}
	if found != 2 {
		return m, fmt.Errorf("rlsload: /proc status has no VmRSS and VmHWM lines")
	}
	return m, nil
}
