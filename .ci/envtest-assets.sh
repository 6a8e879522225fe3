#!/usr/bin/env bash
# Provides the kube-apiserver and etcd binaries the controller's envtest suite
# runs against, and prints the directory holding them (for KUBEBUILDER_ASSETS).
#
# kube-apiserver is built from the k8s.io/kubernetes module in a scratch module
# outside the repository: k8s.io/kubernetes replaces its staging modules with
# relative paths that only work inside its own tree, so the scratch module
# replaces each of them with the matching published release instead.
# etcd comes from Debian's etcd-server package when apt has it, otherwise it is
# built from go.etcd.io/etcd/server/v3 the same way.
#
# Binaries are cached under ${XDG_CACHE_HOME:-$HOME/.cache}/rlpkit-envtest,
# keyed by version, and reused when present. Build output goes to stderr so
# that stdout is only the directory.
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.7.3}
# The staging modules of Kubernetes v1.X.Y are published as v0.X.Y.
STAGING_VERSION="v0.${KUBE_VERSION#v1.}"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/rlpkit-envtest"
assets="$cache_root/$KUBE_VERSION"
mkdir -p "$assets"

log() { echo "envtest-assets: $*" >&2; }

# build_in_scratch DIR MODULE@VERSION PACKAGE OUT [replace lines...]
# Builds PACKAGE into OUT from a throwaway module in DIR.
scratch_build() {
	local dir=$1 mod=$2 pkg=$3 out=$4
	shift 4
	rm -rf "$dir"
	mkdir -p "$dir"
	(
		cd "$dir"
		{
			echo "module rlpkit.local/envtestassets"
			echo
			echo "go 1.26.0"
			echo
			echo "require ${mod%@*} ${mod#*@}"
			for r in "$@"; do echo "replace $r"; done
		} >go.mod
		GOFLAGS=-mod=mod nice -n 19 go get "$pkg" >&2
		# Static, as Kubernetes releases its binaries, and without DWARF, which
		# -ldflags=-w would strip anyway: less to compile and link.
		CGO_ENABLED=0 GOFLAGS=-mod=mod nice -n 19 go build -trimpath -gcflags=all=-dwarf=false -ldflags="${LDFLAGS:-}" -o "$out.tmp" "$pkg" >&2
		mv "$out.tmp" "$out"
	)
}

if [ ! -x "$assets/kube-apiserver" ]; then
	log "building kube-apiserver $KUBE_VERSION (this takes a while)"
	start=$(date +%s)
	modfile=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
	replaces=()
	while read -r name; do
		replaces+=("$name => $name $STAGING_VERSION")
	done < <(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\1#p' "$modfile")
	if [ ${#replaces[@]} -eq 0 ]; then
		log "found no staging replacements in $modfile"
		exit 1
	fi
	LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION" \
		scratch_build "$cache_root/src-kube-$KUBE_VERSION" "k8s.io/kubernetes@$KUBE_VERSION" \
		k8s.io/kubernetes/cmd/kube-apiserver "$assets/kube-apiserver" "${replaces[@]}"
	log "built kube-apiserver in $(($(date +%s) - start))s"
fi

if [ ! -x "$assets/etcd" ]; then
	if [ -z "${ETCD_FROM_SOURCE:-}" ] && ! command -v etcd >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
		if apt-cache policy etcd-server 2>/dev/null | grep -q 'Candidate: [0-9]' ||
			{ apt-get update -qq >&2 && apt-cache policy etcd-server 2>/dev/null | grep -q 'Candidate: [0-9]'; }; then
			log "installing etcd-server from apt"
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >&2
		fi
	fi
	if [ -z "${ETCD_FROM_SOURCE:-}" ] && command -v etcd >/dev/null 2>&1; then
		ln -sf "$(command -v etcd)" "$assets/etcd"
	else
		log "building etcd $ETCD_VERSION"
		start=$(date +%s)
		dir="$cache_root/src-etcd-$ETCD_VERSION"
		scratch_build "$dir" "go.etcd.io/etcd/server/v3@$ETCD_VERSION" \
			go.etcd.io/etcd/server/v3/etcdmain "$cache_root/etcd-$ETCD_VERSION.probe" 2>/dev/null || true
		rm -f "$cache_root/etcd-$ETCD_VERSION.probe"
		mkdir -p "$dir/cmd/etcd"
		cat >"$dir/cmd/etcd/main.go" <<'GO'
// Command etcd runs the etcd server, as the etcd repository's own main does.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
		(cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod nice -n 19 go build -trimpath -gcflags=all=-dwarf=false -ldflags="-s -w" -o "$cache_root/etcd-$ETCD_VERSION" ./cmd/etcd >&2)
		ln -sf "$cache_root/etcd-$ETCD_VERSION" "$assets/etcd"
		log "built etcd in $(($(date +%s) - start))s"
	fi
fi

echo "$assets"
