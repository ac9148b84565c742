#!/usr/bin/env bash
# Installs the imagebot release binary for the ref the Action is used at,
# verified against that release's checksums.txt. action.yml runs it first;
# it writes to $GITHUB_OUTPUT either
#   method=release, path=<the verified binary>, version=<release tag>
# or method=source when there is no release for the ref (a branch, a commit
# no release tag points at, a local `uses: ./`), and action.yml then builds
# the Action's own source instead. A download that fails or does not match
# its checksum is an error, never a reason to build from source: a release
# exists, and what it serves must be what it published.
#
# Environment (the defaults are GitHub's; tests point them at fakes):
#   IMAGEBOT_REF          the ref (github.action_ref): v1.2.3, v1, a commit SHA, a branch
#   IMAGEBOT_RELEASE_URL  base of release downloads, <base>/<tag>/<asset>
#   IMAGEBOT_GIT_URL      repository whose tags name releases (git ls-remote)
#   IMAGEBOT_INSTALL_DIR  where the binary goes (default $RUNNER_TEMP/imagebot-bin)
#   RUNNER_OS, RUNNER_ARCH as GitHub sets them (uname when unset)
set -euo pipefail

base="${IMAGEBOT_RELEASE_URL:-https://github.com/imagebot/imagebot/releases/download}"
base="${base%/}"
git_url="${IMAGEBOT_GIT_URL:-https://github.com/imagebot/imagebot}"
dest="${IMAGEBOT_INSTALL_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/imagebot-bin}"
out="${GITHUB_OUTPUT:-/dev/stdout}"

# Messages are workflow commands in Actions (annotations on the run page),
# plain lines elsewhere.
say() { # level message
	if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
		echo "::$1::$2" >&2
	else
		echo "install-action: $1: $2" >&2
	fi
}
die() {
	say error "$1"
	exit 1
}
source_build() {
	say notice "$1; building imagebot from the Action's source instead"
	echo "method=source" >>"$out"
	exit 0
}

# semver matches the release tags GoReleaser publishes (vMAJOR.MINOR.PATCH,
# with an optional -prerelease or +build).
semver='^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]*)?$'

platform() {
	case "${RUNNER_OS:-$(uname -s)}" in
	Linux | linux) os=linux ;;
	macOS | Darwin) os=darwin ;;
	Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
	*) source_build "no release archive for the runner's OS ${RUNNER_OS:-$(uname -s)}" ;;
	esac
	case "${RUNNER_ARCH:-$(uname -m)}" in
	X64 | x86_64 | amd64) arch=amd64 ;;
	ARM64 | aarch64 | arm64) arch=arm64 ;;
	*) source_build "no release archive for the runner's architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
	esac
}

# ref is the ref the Action runs at. GitHub leaves github.action_ref empty in
# some composite-action contexts (actions/runner#2473), but the runner keeps
# the Action at _actions/OWNER/REPO/REF, which names it too.
action_ref() {
	ref="${IMAGEBOT_REF:-}"
	if [ -z "$ref" ] && [[ "${GITHUB_ACTION_PATH:-}" =~ /_actions/[^/]+/[^/]+/([^/]+)/?$ ]]; then
		ref="${BASH_REMATCH[1]}"
	fi
	if [ -z "$ref" ]; then
		source_build "the Action is used from a path, not a ref (uses: ./), so there is no release to download"
	fi
}

# release_tag sets tag to the release for $ref: the ref itself when it is a
# version tag, else the version tag that points at the same commit, so that
# @v1 (moved to each v1.x.y) and a SHA pin of a release get the release
# binary. Branches and unreleased commits have none.
release_tag() {
	if [[ "$ref" =~ $semver ]]; then
		tag="$ref"
		return
	fi
	local listing commit
	# Never prompt for credentials, and give up on a stalled connection:
	# the step must end in bounded time.
	if ! listing="$(GIT_TERMINAL_PROMPT=0 GIT_HTTP_LOW_SPEED_LIMIT=1000 GIT_HTTP_LOW_SPEED_TIME=30 \
		git ls-remote --tags "$git_url" 2>&1)"; then
		say warning "git ls-remote --tags $git_url failed: ${listing##*$'\n'}"
		source_build "cannot tell which release $ref is"
	fi
	# name commit, with annotated tags peeled to their commit (the ^{} line).
	listing="$(printf '%s\n' "$listing" | awk -F'\t' '
		$2 ~ /^refs\/tags\// {
			n = substr($2, 11)
			if (n ~ /\^\{\}$/) { peeled[substr(n, 1, length(n) - 3)] = $1 } else { direct[n] = $1 }
		}
		END { for (n in direct) print n, (n in peeled ? peeled[n] : direct[n]) }')"
	if [[ "$ref" =~ ^[0-9a-f]{40}$|^[0-9a-f]{64}$ ]]; then
		commit="$ref"
	else
		commit="$(printf '%s\n' "$listing" | awk -v r="$ref" '$1 == r { print $2 }')"
		[ -n "$commit" ] || source_build "$ref is not a tag of $git_url (a branch?), so it has no release"
	fi
	# Several version tags on one commit: a release beats its release
	# candidate (v1.2.3 and v1.2.3-rc.2 are often the same commit), then the
	# highest version wins.
	tag="$(printf '%s\n' "$listing" | awk -v c="$commit" '$2 == c { print $1 }' |
		grep -E "$semver" | awk '{ print (index($0, "-") ? 0 : 1), $0 }' | sort -k1,1n -k2,2V |
		tail -n 1 | cut -d' ' -f2 || true)"
	[ -n "$tag" ] || source_build "no release tag points at commit $commit of $ref"
}

# fetch URL FILE MISSING downloads URL to FILE. curl retries transient
# failures (timeouts, 408, 429, 5xx); a 404 means the release has nothing
# for this runner (MISSING says what), so the Action builds from source;
# any other status is an error.
fetch() {
	local code
	if ! code="$(curl --silent --show-error --location --retry 3 --connect-timeout 10 --max-time 300 \
		--output "$2" --write-out '%{http_code}' "$1")"; then
		die "downloading $1 failed (network error; curl exit status above)"
	fi
	case "$code" in
	200) ;;
	404) source_build "$3 ($1: 404)" ;;
	*) die "downloading $1: HTTP $code" ;;
	esac
}

sha256() {
	if command -v sha256sum >/dev/null; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}

install_release() {
	local version="${tag#v}" ext=tar.gz bin=imagebot
	if [ "$os" = windows ]; then
		ext=zip
		bin=imagebot.exe
	fi
	# The name GoReleaser gives archives (.goreleaser.yaml, name_template).
	local archive="imagebot_${version}_${os}_${arch}.${ext}"

	mkdir -p "$dest"
	# An older binary must not survive a failed install for a later step
	# to run.
	rm -f "$dest/$bin"
	tmp="$(mktemp -d "$dest/.download.XXXXXX")"
	trap 'rm -rf "$tmp"' EXIT

	fetch "$base/$tag/checksums.txt" "$tmp/checksums.txt" "no release $tag"
	local url="$base/$tag/$archive"
	fetch "$url" "$tmp/$archive" "release $tag has no $archive for this runner"

	# sha256sum's format: "<hex>  <name>", or "<hex> *<name>" in binary mode.
	local want got
	want="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/checksums.txt")"
	[ -n "$want" ] || die "checksums.txt of release $tag lists no $archive; refusing to install a binary that cannot be verified"
	got="$(sha256 "$tmp/$archive")"
	if [ "$got" != "$want" ]; then
		die "checksum mismatch for $url: checksums.txt says sha256 $want, the download is $got. Refusing to install it. Re-run the job; if it happens again, report it at https://github.com/imagebot/imagebot/issues"
	fi

	# Only the binary is extracted, by name, so the archive cannot write
	# anywhere else.
	mkdir "$tmp/x"
	if [ "$ext" = zip ]; then
		if command -v unzip >/dev/null; then
			unzip -q "$tmp/$archive" "$bin" -d "$tmp/x"
		else
			# Windows runners' PowerShell wants Windows paths.
			local zip="$tmp/$archive" to="$tmp/x"
			if command -v cygpath >/dev/null; then
				zip="$(cygpath -w "$zip")"
				to="$(cygpath -w "$to")"
			fi
			pwsh -NoProfile -Command "Expand-Archive -LiteralPath '$zip' -DestinationPath '$to'"
		fi
	else
		tar -xzf "$tmp/$archive" -C "$tmp/x" "$bin"
	fi
	[ -f "$tmp/x/$bin" ] || die "$archive holds no $bin"
	chmod 0755 "$tmp/x/$bin"
	if ! "$tmp/x/$bin" version >&2; then
		die "the verified $bin from $archive does not run on this runner"
	fi
	mv "$tmp/x/$bin" "$dest/$bin"
	{
		echo "method=release"
		echo "path=$dest/$bin"
		echo "version=$tag"
	} >>"$out"
	say notice "installed imagebot $tag from $url (sha256 $got verified against checksums.txt)"
}

platform
action_ref
release_tag
install_release
