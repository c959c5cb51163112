#!/usr/bin/env bash
# Install the host tools quarry needs when they are missing.
#   install-deps.sh image   what the offline sandbox image build needs:
#                           debootstrap and an archive keyring for testing
#   install-deps.sh test    that, and what the tests drive: tmux (the chat's
#                           end-to-end tests), python3-nbformat (exported
#                           notebooks validated against nbformat's schema),
#                           python3-nbclient, python3-ipykernel and
#                           python3-pandas (notebooks run in Jupyter's own
#                           kernel on the host, and as plain Python),
#                           chromium (the exported HTML in a headless
#                           browser), and for screenshots of the chat in real
#                           terminals Xvfb, xterm, kitty, mlterm, xdotool,
#                           ImageMagick and a font, and PostgreSQL (the
#                           database sources' tests start their own server
#                           from its programs, on a Unix socket)
# Idempotent and quiet when everything is there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log() { echo "install-deps: $*" >&2; }

mode=${1:-test}
case $mode in
image | test) ;;
*) log "usage: install-deps.sh image|test"; exit 2 ;;
esac

missing=()
command -v debootstrap >/dev/null 2>&1 || [[ -x /usr/sbin/debootstrap ]] || missing+=(debootstrap)
# Testing is signed with trixie's archive keys, which bookworm's keyring
# already carries; an older host needs a newer keyring.
if [[ -d /usr/share/keyrings ]] && ! ls /usr/share/keyrings/debian-archive-trixie-*.gpg >/dev/null 2>&1 &&
	command -v apt-get >/dev/null 2>&1 && grep -qi debian /etc/os-release 2>/dev/null; then
	missing+=(debian-archive-keyring)
fi
if [[ $mode == test ]]; then
	command -v tmux >/dev/null 2>&1 || missing+=(tmux)
	/usr/bin/python3 -c 'import nbformat' >/dev/null 2>&1 || missing+=(python3-nbformat)
	/usr/bin/python3 -c 'import nbclient' >/dev/null 2>&1 || missing+=(python3-nbclient)
	/usr/bin/python3 -c 'import ipykernel' >/dev/null 2>&1 || missing+=(python3-ipykernel)
	/usr/bin/python3 -c 'import pandas, matplotlib' >/dev/null 2>&1 || missing+=(python3-pandas python3-matplotlib)
	command -v chromium >/dev/null 2>&1 || missing+=(chromium)
	command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
	command -v xterm >/dev/null 2>&1 || missing+=(xterm)
	command -v kitty >/dev/null 2>&1 || missing+=(kitty)
	command -v mlterm >/dev/null 2>&1 || missing+=(mlterm)
	command -v xdotool >/dev/null 2>&1 || missing+=(xdotool)
	command -v import >/dev/null 2>&1 || missing+=(imagemagick)
	[[ -e /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]] || missing+=(fonts-dejavu-core)
	ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
fi
((${#missing[@]} == 0)) && exit 0

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
