#!/usr/bin/env bash
# Install the host tools quarry needs when they are missing.
#   install-deps.sh image   what the offline sandbox image build needs:
#                           debootstrap and an archive keyring for testing
#   install-deps.sh test    that, and every row of scripts/host.tsv: the
#                           programs, Python modules and files the tests
#                           drive, each with its Debian package (npm rows
#                           through install-npm.sh); then every row is
#                           checked again, and what is still missing is
#                           named with its package before any test runs
#   install-deps.sh check   only that last check, installing nothing
#                           (QUARRY_HOST_TSV names another table)
# Idempotent and quiet when everything is there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log() { echo "install-deps: $*" >&2; }

mode=${1:-test}
case $mode in
image | test | check) ;;
*) log "usage: install-deps.sh image|test|check"; exit 2 ;;
esac
table=${QUARRY_HOST_TSV:-$(dirname "$0")/host.tsv}

# host_rows prints "package<TAB>kind<TAB>name" for each row of the table
# whose check fails.
host_rows() {
	local kind name pkg _
	while IFS=$'\t' read -r kind name pkg _; do
		[[ -z $kind || $kind == \#* ]] && continue
		case $kind in
		tool) command -v "$name" >/dev/null 2>&1 || [[ -x /usr/sbin/$name || -x /sbin/$name ]] && continue ;;
		python) /usr/bin/python3 -c "import $name" >/dev/null 2>&1 && continue ;;
		path) compgen -G "$name" >/dev/null && continue ;;
		npm) [[ -z $("$(dirname "$0")/install-npm.sh" --check "$name") ]] && continue ;;
		*) log "$table: unknown kind $kind (tool, python, path or npm)"; exit 2 ;;
		esac
		printf '%s\t%s\t%s\n' "$pkg" "$kind" "$name"
	done <"$table"
}

# check_host fails naming each row still missing and its package.
check_host() {
	local left
	left=$(host_rows)
	[[ -z $left ]] && return 0
	log "the tests need these, which are missing ($table):"
	while IFS=$'\t' read -r pkg kind name; do
		if [[ $kind == npm ]]; then log "  npm $name: $pkg from the npm registry (scripts/install-npm.sh)"; else log "  $kind $name: Debian package $pkg"; fi
	done <<<"$left"
	exit 1
}

if [[ $mode == check ]]; then
	check_host
	exit 0
fi

missing=()
command -v debootstrap >/dev/null 2>&1 || [[ -x /usr/sbin/debootstrap ]] || missing+=(debootstrap)
# Testing is signed with trixie's archive keys, which bookworm's keyring
# already carries; an older host needs a newer keyring.
if [[ -d /usr/share/keyrings ]] && ! ls /usr/share/keyrings/debian-archive-trixie-*.gpg >/dev/null 2>&1 &&
	command -v apt-get >/dev/null 2>&1 && grep -qi debian /etc/os-release 2>/dev/null; then
	missing+=(debian-archive-keyring)
fi
sshd=""
npm=""
if [[ $mode == test ]]; then
	while IFS=$'\t' read -r pkg kind _; do
		# openssh-server goes through ensure-sshd.sh, which starts no service;
		# npm packages through install-npm.sh, after Debian's.
		if [[ $kind == npm ]]; then npm=1; elif [[ $pkg == openssh-server ]]; then sshd=1; else missing+=("$pkg"); fi
	done < <(host_rows)
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sed '/^$/d' | sort -u)

if ((${#missing[@]} > 0)); then
	if ! command -v apt-get >/dev/null 2>&1; then
		log "missing: ${missing[*]}, and this is not a Debian/Ubuntu system: install them with your package manager"
		exit 1
	fi
	if ! as_root; then
		log "missing: ${missing[*]}. Run: sudo apt-get install -y ${missing[*]}"
		exit 1
	fi
	log "installing ${missing[*]}"
	apt_install "${missing[@]}"
fi
if [[ -n $sshd ]]; then
	if as_root; then
		"${ROOT[@]}" "$(dirname "$0")/ensure-sshd.sh"
	else
		log "missing: openssh-server. Run: sudo scripts/ensure-sshd.sh"
		exit 1
	fi
fi
[[ -n $npm ]] && "$(dirname "$0")/install-npm.sh"
[[ $mode == test ]] && check_host
exit 0
