package policy

// A PolicyTest (package policytest) may sit beside the objects it tests, so that a directory
// holds both; Read and Decode leave documents of this kind and apiVersion out of the Set,
// without a problem or a notice.
const (
	// PolicyTestKind is the kind of a PolicyTest document.
	PolicyTestKind = "PolicyTest"
	// PolicyTestAPIVersion is the apiVersion of a PolicyTest document.
	PolicyTestAPIVersion = "rlpkit.dev/v1alpha1"
)
