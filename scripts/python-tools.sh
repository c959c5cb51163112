#!/usr/bin/env bash
# The kernel's Python tools, pytest, ruff and mypy, over pykernel/ in a
# test-only image: the sandbox image (which has the kernel's libraries)
# plus Debian's python3-pytest, ruff and mypy, built by quarry's own
# packages-on-demand path (quarry sandbox add, offline in a container with
# no network) into the repository quarry-pytest, never into the image users
# run. Built once per recipe; the sandbox image must exist (make image).
#
#   scripts/python-tools.sh pytest [PYTEST ARGS]   the tests (pykernel/tests)
#   scripts/python-tools.sh lint                   ruff check, ruff format --check, mypy
#
# A mirror frozen at a snapshot has an expired Release file: the build is
# then tried again accepting it (the packages' signatures still count),
# as quarry sandbox add suggests; this image is the tests' alone.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-./quarry}
repo=quarry-pytest
tools=(python3-pytest ruff mypy)

ref=$("$BIN" sandbox ref)
img="$repo:${ref#*:}-extras"
if ! docker image inspect "$img" >/dev/null 2>&1; then
	echo "python-tools: building $img (the sandbox image with ${tools[*]})" >&2
	if ! out=$(QUARRY_SANDBOX_REPO=$repo "$BIN" sandbox add --deb "${tools[@]}" 2>&1 >/dev/null); then
		if [[ $out != *"QUARRY_APT_ALLOW_EXPIRED"* ]]; then
			echo "$out" >&2
			exit 1
		fi
		echo "python-tools: the mirror's Release file is expired (a snapshot): building with QUARRY_APT_ALLOW_EXPIRED=1" >&2
		QUARRY_APT_ALLOW_EXPIRED=1 QUARRY_SANDBOX_REPO=$repo "$BIN" sandbox add --deb "${tools[@]}" >/dev/null
	fi
fi

# As the sandbox runs: no network, the code read-only.
run() {
	docker run --rm --network none --read-only --tmpfs /tmp -e HOME=/tmp \
		-v "$PWD/pykernel:/src:ro" -w /src "$img" "$@"
}

case "${1:-}" in
pytest)
	shift
	run python3 -m pytest "$@"
	;;
lint)
	run sh -c 'ruff check --no-cache . && ruff format --no-cache --check . && mypy --cache-dir=/tmp/mypy'
	;;
*)
	echo "usage: scripts/python-tools.sh pytest [ARGS] | lint" >&2
	exit 2
	;;
esac
