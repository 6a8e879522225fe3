package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestHarnessRefusesWhatEnvoyRefuses checks the host harness itself with two modules that
// Envoy's host would stop: one that waits for a Go timer (poll_oneoff fails, the runtime
// throws), and one that makes a proxy-wasm call during _initialize.
func TestHarnessRefusesWhatEnvoyRefuses(t *testing.T) {
	tests := []struct {
		dir     string
		wantErr string
		check   func(*host) string
	}{
		{dir: "timer", wantErr: "proxy_on_vm_start", check: func(h *host) string {
			if h.pollOneoff == 0 {
				return "poll_oneoff was not called"
			}
			return ""
		}},
		{dir: "restricted", wantErr: "restricted call proxy_set_effective_context during _initialize"},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), tc.dir+".wasm")
			if err := buildWasm(out, filepath.Join("testdata", tc.dir)); err != nil {
				t.Fatal(err)
			}
			mod, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			h, _, err := startHost(t, mod, nil, withInterpreter())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("starting %s: error %v, want one mentioning %q", tc.dir, err, tc.wantErr)
			}
			if tc.check != nil {
				if msg := tc.check(h); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// envoyWASI is the WASI of Envoy's proxy-wasm host (cpp-host from commit c4d7bb0, Envoy
// 1.33 and later); sched_yield and poll_oneoff are the two that older Envoy lacks.
var envoyWASI = []string{
	"args_get", "args_sizes_get", "clock_res_get", "clock_time_get", "environ_get", "environ_sizes_get",
	"fd_close", "fd_fdstat_get", "fd_fdstat_set_flags", "fd_prestat_dir_name", "fd_prestat_get", "fd_read",
	"fd_seek", "fd_write", "path_open", "poll_oneoff", "proc_exit", "random_get", "sched_yield",
}

// TestModuleImports lists what the module needs from its host: every import is a
// proxy-wasm call of module env or a WASI call Envoy provides.
func TestModuleImports(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(compiled))
	defer rt.Close(ctx)
	cm, err := rt.CompileModule(ctx, module)
	if err != nil {
		t.Fatal(err)
	}
	var env, wasi []string
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		switch mod {
		case "env":
			env = append(env, name)
		case "wasi_snapshot_preview1":
			if !slices.Contains(envoyWASI, name) {
				t.Errorf("the module imports WASI %s, which Envoy does not provide", name)
			}
			wasi = append(wasi, name)
		default:
			t.Errorf("the module imports %s.%s; Envoy provides only env and wasi_snapshot_preview1", mod, name)
		}
	}
	slices.Sort(env)
	slices.Sort(wasi)
	wasi = slices.Compact(wasi) // the runtime and package syscall both import fd_write
	t.Logf("module: %d bytes; env imports %v; WASI imports %v", len(module), env, wasi)
}
