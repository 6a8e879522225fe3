package policytest

import (
	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policyapi"
)

// Input is a request a test case or a log line gives: the contract's request model.
type Input = policyapi.Request

// Frontend is what a proxy does with a request before the rate-limit service (the
// contract's): a PluginConfig's descriptor engine (EngineFrontend), wasm-shim's evaluation
// of a Kuadrant configuration (WasmFrontend), Envoy's routes (RouteFrontend). A Target
// pairs a Frontend with the limits of the service, so another input needs only its
// Frontend and its limits; a Target holding one is for one goroutine at a time.
type Frontend = policyapi.Frontend

// EngineFrontend returns the Frontend of a PluginConfig's descriptor engine
// (merge.NewFrontend).
func EngineFrontend(engine *descriptor.Engine) Frontend { return merge.NewFrontend(engine) }
