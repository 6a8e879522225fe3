package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// namePrefix starts the name of every object rlpkit-controller writes for a Gateway.
const namePrefix = "rlpkit-"

// ConfigMapName returns the name of a Gateway's ConfigMap: "rlpkit-" and the Gateway's name.
// It holds the Gateway's whole output, or, when the output is split, the index of its parts
// (see PartName). A name that would be longer than Kubernetes allows (253 characters) is
// shortened, and ends in a hash of the Gateway's name instead (see ObjectName).
func ConfigMapName(gateway string) string { return ObjectName(gateway, "") }

// PartName returns the name of part n (from 1) of a Gateway's split output:
// "rlpkit-<gateway>-part-<n>", shortened as ConfigMapName is.
func PartName(gateway string, n int) string {
	return ObjectName(gateway, "-part-"+strconv.Itoa(n))
}

// ObjectName returns the name of an object rlpkit-controller writes for a Gateway:
// "rlpkit-", the Gateway's name, then suffix. When that is longer than a Kubernetes object
// name may be (253 characters), the Gateway's name is cut and followed by "-" and the first
// eight hexadecimal digits of its SHA-256, so that the name stays valid, distinct and the same
// across restarts.
func ObjectName(gateway, suffix string) string {
	name := namePrefix + gateway + suffix
	if len(name) <= validation.DNS1123SubdomainMaxLength {
		return name
	}
	keep := validation.DNS1123SubdomainMaxLength - len(namePrefix) - len(suffix) - 1 - hashLen
	return namePrefix + strings.TrimRight(gateway[:keep], "-.") + "-" + nameHash(gateway) + suffix
}

// GatewayLabel returns the value of LabelGateway for a Gateway: its name, or, for a name
// longer than a label value may be (63 characters), the name cut and followed by "-" and the
// first eight hexadecimal digits of its SHA-256.
func GatewayLabel(gateway string) string {
	if len(gateway) <= validation.LabelValueMaxLength {
		return gateway
	}
	keep := validation.LabelValueMaxLength - 1 - hashLen
	return strings.TrimRight(gateway[:keep], "-._") + "-" + nameHash(gateway)
}

// hashLen is the length of nameHash's result.
const hashLen = 8

// nameHash returns the first hashLen hexadecimal digits of the SHA-256 of name.
func nameHash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])[:hashLen]
}
