package policytest

import (
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// WasmFrontend returns the Frontend of a wasm-shim configuration (kuadrant.NewFrontend).
func WasmFrontend(ev *wasmshim.Evaluator) Frontend { return kuadrant.NewFrontend(ev) }
