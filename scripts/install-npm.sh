#!/usr/bin/env bash
# Install the npm rows of scripts/host.tsv (the official MCP Inspector, the
# MCP conformance suite and the Node 22 they need, which Debian does not
# ship) at their pinned versions into one folder of their own, never
# globally: QUARRY_NPM_DIR, default ${XDG_CACHE_HOME:-~/.cache}/quarry/npm.
# package hosttest finds them there (hosttest.NPM). Installs npm itself
# from Debian when it is missing. Quiet when everything is there.
#   install-npm.sh               install what is missing
#   install-npm.sh --check [NAME]  only print the missing rows' name@version
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log() { echo "install-npm: $*" >&2; }

table=${QUARRY_HOST_TSV:-$(dirname "$0")/host.tsv}
dir=${QUARRY_NPM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/quarry/npm}

# npm_missing prints the spec (name@version) of each npm row (named $1,
# when given) not installed at its version in $dir.
npm_missing() {
	local only=${1:-} kind name spec _ want have
	while IFS=$'\t' read -r kind name spec _; do
		[[ $kind == npm ]] || continue
		[[ -z $only || $only == "$name" ]] || continue
		want=${spec##*@}
		have=$(sed -n 's/^  "version": *"\([^"]*\)".*/\1/p' "$dir/node_modules/$name/package.json" 2>/dev/null | head -1 || true)
		[[ $have == "$want" ]] || printf '%s\n' "$spec"
	done <"$table"
}

if [[ ${1:-} == --check ]]; then
	npm_missing "${2:-}"
	exit 0
fi
mapfile -t specs < <(npm_missing)
((${#specs[@]} == 0)) && exit 0
if ! command -v npm >/dev/null 2>&1; then
	if ! as_root; then
		log "npm is missing. Run: sudo apt-get install -y npm"
		exit 1
	fi
	log "installing npm"
	apt_install npm
fi
mkdir -p "$dir"
log "installing ${specs[*]} into $dir"
# No install scripts: the packages need none (the Node binary comes in
# the package), and none runs at install time.
npm install --prefix "$dir" --save-exact --no-audit --no-fund --ignore-scripts --loglevel=error "${specs[@]}" >/dev/null
left=$(npm_missing)
if [[ -n $left ]]; then
	log "still missing after the install: $left"
	exit 1
fi
