// Package bundle is the set of files rlpkit-controller writes for one Gateway and
// "rlpkit serve --limits DIR" reads: their names (Limits, PluginConfig, KuadrantWasm,
// KuadrantLimits), and, for an output too large for one Kubernetes object, its split into
// parts with an index (IndexFile). Both programs import it, so the two sides of the bundle
// cannot disagree on a name or on the index's format.
//
// A Kubernetes ConfigMap holds at most 1 MiB of data, and a Gateway with thousands of routes
// compiles to more. A split set is an index file, IndexFile, and part files packed into
// objects of at most a given size (rlpkit-controller: 512 KiB per ConfigMap). The index
// names, for every file of the set, its parts in order, the object holding each, and each
// part's size and SHA-256 digest. A file is its parts concatenated: a part is a run of
// whole lines where it can be (a line longer than a part is cut between two characters).
//
// # Reading a set
//
// ReadFile reads one file of a set from a directory as Kubernetes mounts it: a projected
// volume of the index's ConfigMap and its parts' ConfigMaps. The kubelet refreshes each
// ConfigMap of a volume from its own cache, so for a while after rlpkit-controller rewrites
// a set, a volume may hold a new index with old parts, or the reverse. ReadFile checks every
// part against the digest the index gives it: a set whose parts do not all match its index
// is refused (a *MismatchError), never read as a mix of old and new parts. A directory
// without an index is read as the output that fits in one ConfigMap: the file itself.
//
// The package uses only the standard library, so that any program can read a set.
package bundle
