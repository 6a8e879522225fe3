package main

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// WASI errno values the host returns.
const (
	errnoSuccess = 0
	errnoBadf    = 8
	errnoNosys   = 52
)

// instantiateWASI provides the WASI subset of Envoy's proxy-wasm host (proxy-wasm-cpp-host
// from commit c4d7bb0, Envoy >= 1.33), with its behaviour: no arguments, no environment, no
// preopened directories, stdout and stderr go to the log, and poll_oneoff is the stub of
// cpp-host before 2026-04, which fails with ENOSYS (so a Go runtime that waits for a timer
// throws). A module importing any other WASI function fails to instantiate, as it does in
// Envoy.
func (h *host) instantiateWASI(ctx context.Context, rt wazero.Runtime) error {
	start := time.Now()
	b := rt.NewHostModuleBuilder("wasi_snapshot_preview1")
	fn := func(name string, f any) { b.NewFunctionBuilder().WithFunc(f).Export(name) }
	fn("args_sizes_get", func(_ context.Context, m api.Module, argc, size uint32) uint32 {
		h.wasiCall("args_sizes_get")
		m.Memory().WriteUint32Le(argc, 0)
		m.Memory().WriteUint32Le(size, 0)
		return errnoSuccess
	})
	fn("args_get", func(_ context.Context, _ api.Module, argv, buf uint32) uint32 {
		h.wasiCall("args_get")
		return errnoSuccess
	})
	fn("environ_sizes_get", func(_ context.Context, m api.Module, n, size uint32) uint32 {
		h.wasiCall("environ_sizes_get")
		m.Memory().WriteUint32Le(n, 0)
		m.Memory().WriteUint32Le(size, 0)
		return errnoSuccess
	})
	fn("environ_get", func(_ context.Context, _ api.Module, env, buf uint32) uint32 {
		h.wasiCall("environ_get")
		return errnoSuccess
	})
	fn("clock_time_get", func(_ context.Context, m api.Module, id uint32, _ uint64, out uint32) uint32 {
		h.wasiCall("clock_time_get")
		now := uint64(time.Now().UnixNano())
		if id != 0 { // monotonic
			now = uint64(time.Since(start))
		}
		m.Memory().WriteUint64Le(out, now)
		return errnoSuccess
	})
	fn("clock_res_get", func(_ context.Context, m api.Module, _ uint32, out uint32) uint32 {
		h.wasiCall("clock_res_get")
		m.Memory().WriteUint64Le(out, 1)
		return errnoSuccess
	})
	fn("random_get", func(_ context.Context, m api.Module, buf, n uint32) uint32 {
		h.wasiCall("random_get")
		b := make([]byte, n)
		rand.Read(b)
		m.Memory().Write(buf, b)
		return errnoSuccess
	})
	fn("fd_write", func(_ context.Context, m api.Module, fd, iovs, n, written uint32) uint32 {
		h.wasiCall("fd_write")
		if fd != 1 && fd != 2 {
			return errnoBadf
		}
		total := uint32(0)
		for i := range n {
			p, _ := m.Memory().ReadUint32Le(iovs + 8*i)
			l, _ := m.Memory().ReadUint32Le(iovs + 8*i + 4)
			data, ok := m.Memory().Read(p, l)
			if !ok {
				panic("fd_write: iovec out of memory")
			}
			h.stdio = append(h.stdio, data...)
			total += l
		}
		m.Memory().WriteUint32Le(written, total)
		return errnoSuccess
	})
	fn("fd_read", func(context.Context, api.Module, uint32, uint32, uint32, uint32) uint32 {
		h.wasiCall("fd_read")
		return errnoNosys
	})
	fn("fd_seek", func(context.Context, api.Module, uint32, int64, uint32, uint32) uint32 {
		h.wasiCall("fd_seek")
		return errnoNosys
	})
	fn("fd_close", func(context.Context, api.Module, uint32) uint32 {
		h.wasiCall("fd_close")
		return errnoNosys
	})
	fn("fd_fdstat_get", func(_ context.Context, m api.Module, fd, out uint32) uint32 {
		h.wasiCall("fd_fdstat_get")
		if fd > 2 {
			return errnoBadf
		}
		stat := make([]byte, 24)
		stat[0] = 2 // character device
		m.Memory().Write(out, stat)
		return errnoSuccess
	})
	fn("fd_fdstat_set_flags", func(context.Context, api.Module, uint32, uint32) uint32 {
		h.wasiCall("fd_fdstat_set_flags")
		return errnoNosys
	})
	fn("fd_prestat_get", func(context.Context, api.Module, uint32, uint32) uint32 {
		h.wasiCall("fd_prestat_get")
		return errnoBadf
	})
	fn("fd_prestat_dir_name", func(context.Context, api.Module, uint32, uint32, uint32) uint32 {
		h.wasiCall("fd_prestat_dir_name")
		return errnoNosys
	})
	fn("path_open", func(context.Context, api.Module, uint32, uint32, uint32, uint32, uint32, uint64, uint64, uint32, uint32) uint32 {
		h.wasiCall("path_open")
		return errnoNosys
	})
	fn("proc_exit", func(_ context.Context, _ api.Module, code uint32) {
		h.wasiCall("proc_exit")
		panic(exitError(code))
	})
	fn("sched_yield", func(context.Context, api.Module) uint32 {
		h.wasiCall("sched_yield")
		return errnoSuccess
	})
	fn("poll_oneoff", func(context.Context, api.Module, uint32, uint32, uint32, uint32) uint32 {
		h.wasiCall("poll_oneoff")
		h.pollOneoff++
		return errnoNosys
	})
	_, err := b.Instantiate(ctx)
	return err
}

// exitError is the panic of proc_exit: the VM stops.
type exitError uint32

func (e exitError) Error() string { return "proc_exit(" + itoa(uint32(e)) + ")" }
