package bundle

// The files of a Gateway's bundle, by name: the keys of its ConfigMap, the file names where
// the ConfigMap is mounted.
const (
	// Limits holds every limit the Gateway's rate-limit service enforces, in limitador's
	// format (YAML): those of the apim.kuadrant.io/v1alpha1 policies, then those of the
	// kuadrant.io/v1 policies (the content of KuadrantLimits). "rlpkit serve --limits DIR"
	// serves it.
	Limits = "limits.yaml"
	// PluginConfig holds the PluginConfig (YAML) the apim.kuadrant.io/v1alpha1 policies
	// compile to, for rlpkit's rate-limit filter. It is written when that API is read.
	PluginConfig = "pluginconfig.yaml"
	// KuadrantWasm holds the wasm-shim v0.14 configuration (YAML) the kuadrant.io/v1
	// policies compile to, as kuadrant-operator writes it into a WasmPlugin or
	// EnvoyExtensionPolicy. It is written when that API is read.
	KuadrantWasm = "kuadrant-wasm.yaml"
	// KuadrantLimits holds the Limitador limits (YAML) of the kuadrant.io/v1 policies alone,
	// as kuadrant-operator writes them into the Limitador resource. It is written when that
	// API is read.
	KuadrantLimits = "kuadrant-limits.yaml"
	// IndexFile is the name of a split set's index: the file (and the ConfigMap key) that
	// names the parts of every file of the set.
	IndexFile = "rlpkit-index.json"
)
