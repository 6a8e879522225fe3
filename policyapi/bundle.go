package policyapi

import "github.com/rlpkit/rlpkit/limit/limitador"

// Bundler is a Compiled whose Gateways a controller writes as bundles (package bundle,
// one per Gateway; rlpkit-controller's ConfigMaps): rlpkit-controller takes every API's
// output through it, so that an API it writes is one more Bundler, never a new path
// through the controller.
type Bundler interface {
	// Bundles returns what the API compiled for each of its Gateways, sorted by Gateway.
	Bundles() []Bundle
}

// Bundle is what one API compiled for one Gateway, as a controller writes it.
type Bundle struct {
	// Gateway is the Gateway's "namespace/name".
	Gateway string
	// Files are the API's files of the Gateway's bundle (package bundle's names, such as
	// bundle.PluginConfig), each a JSON-encodable value that a controller writes as YAML
	// and, where it wires the data plane, inline in the object that loads the filter
	// reading that file.
	Files []BundleFile
	// Limits are the Gateway's rate-limit service's limits, in limitador's format: a
	// controller writes every API's in one file (bundle.Limits), none empty.
	Limits []limitador.Limit
	// Policies are the policies whose rules the Gateway's files hold, or would hold but
	// for an invalid predicate, each once: a controller reports them not enforced when it
	// fails to write the files.
	Policies []PolicyRef
}

// BundleFile is one file of a Gateway's bundle: its name and its content as a value.
type BundleFile struct {
	// Name is the file's name in the bundle (bundle.PluginConfig, bundle.KuadrantWasm, ...).
	Name string
	// Value is the file's content, JSON-encodable.
	Value any
}

// PolicyRef names a policy as its PolicyStatus does: Kind (empty for the API's first
// kind) and "namespace/name".
type PolicyRef struct {
	// Kind is PolicyStatus.Kind: empty for the API's first kind.
	Kind string
	// Name is the policy's "namespace/name".
	Name string
}
