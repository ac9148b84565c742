#!/usr/bin/env bash
# kube.sh builds kube-apiserver and etcd from the Go module proxy into a cache
# outside the repository, for the drift scenario tests (make kube, make
# test-kube). Nothing is downloaded as a prebuilt binary: both are compiled
# from their modules, checked against the Go checksum database like any other
# dependency. A second run finds the binaries and does nothing.
#
# Prints the directory that holds kube-apiserver and etcd (IMAGEBOT_KUBE_BIN).
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-v3.7.3}"
GO="${GO:-go}"
cache="${IMAGEBOT_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/imagebot-kube}"
out="$cache/kube-$KUBE_VERSION-etcd-$ETCD_VERSION"

if [[ -x "$out/kube-apiserver" && -x "$out/etcd" ]]; then
	echo "$out"
	exit 0
fi
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The staging modules (k8s.io/api, k8s.io/client-go, ...) are published as
# v0.Y.Z for Kubernetes v1.Y.Z. k8s.io/kubernetes's own go.mod requires them
# at v0.0.0 and replaces them with its staging/ folders, replacements that a
# dependent module does not inherit: so the generated module below repeats
# each replace line, pointing at the published version instead.
staging="v0.${KUBE_VERSION#v1.}"
kmod="$(cd "$work" && GOFLAGS=-mod=mod "$GO" mod download -json "k8s.io/kubernetes@$KUBE_VERSION" |
	sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
[[ -f "$kmod" ]] || { echo "kube.sh: no go.mod for k8s.io/kubernetes@$KUBE_VERSION" >&2; exit 1; }
goversion="$(sed -n 's/^go \(.*\)$/\1/p' "$kmod")"

mkdir -p "$work/apiserver"
{
	echo "module imagebot.local/kube-apiserver"
	echo
	echo "go $goversion"
	echo
	echo "require k8s.io/kubernetes $KUBE_VERSION"
	echo
	echo "replace ("
	sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/k8s.io/.*$#\t\1 => \1 '"$staging"'#p' "$kmod"
	echo ")"
} >"$work/apiserver/go.mod"

start=$SECONDS
(
	cd "$work/apiserver"
	# go get resolves the command's whole import graph into go.mod/go.sum.
	nice -n 19 "$GO" get "k8s.io/kubernetes/cmd/kube-apiserver@$KUBE_VERSION"
	nice -n 19 "$GO" build -trimpath -o "$out/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
)
mv "$out/kube-apiserver.tmp" "$out/kube-apiserver"

# etcd's server module has replace lines for its sibling modules too, so it is
# built the same way (go install pkg@version refuses such a module).
mkdir -p "$work/etcd"
{
	echo "module imagebot.local/etcd"
	echo
	echo "go $goversion"
	echo
	echo "require go.etcd.io/etcd/server/v3 $ETCD_VERSION"
} >"$work/etcd/go.mod"
(
	cd "$work/etcd"
	nice -n 19 "$GO" get "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
	nice -n 19 "$GO" build -trimpath -o "$out/etcd.tmp" go.etcd.io/etcd/server/v3
)
mv "$out/etcd.tmp" "$out/etcd"
echo "kube.sh: built in $((SECONDS - start)) s" >&2
echo "$out"
