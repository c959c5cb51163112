#!/usr/bin/env bash
# Install the host tools quarry's build and tests use when they are missing:
# debootstrap (offline sandbox image build), tmux (TUI end-to-end tests),
# python3-nbformat (the exported notebook is validated against nbformat's
# schema), chromium (the exported HTML is opened in a headless browser), and
# for the screenshots of the chat in real terminals: Xvfb, xterm, kitty,
# mlterm, xdotool, ImageMagick and a font.
# Idempotent and quiet when everything is there.
set -euo pipefail

log() { echo "install-deps: $*" >&2; }

missing=()
command -v debootstrap >/dev/null 2>&1 || [[ -x /usr/sbin/debootstrap ]] || missing+=(debootstrap)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
/usr/bin/python3 -c 'import nbformat' >/dev/null 2>&1 || missing+=(python3-nbformat)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
command -v xterm >/dev/null 2>&1 || missing+=(xterm)
command -v kitty >/dev/null 2>&1 || missing+=(kitty)
command -v mlterm >/dev/null 2>&1 || missing+=(mlterm)
command -v xdotool >/dev/null 2>&1 || missing+=(xdotool)
command -v import >/dev/null 2>&1 || missing+=(imagemagick)
[[ -e /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]] || missing+=(fonts-dejavu-core)
# bookworm's keyring already carries trixie's keys; older hosts need a newer one.
if [[ -d /usr/share/keyrings ]] && ! ls /usr/share/keyrings/debian-archive-trixie-*.gpg >/dev/null 2>&1 &&
	command -v apt-get >/dev/null 2>&1 && grep -qi debian /etc/os-release 2>/dev/null; then
	missing+=(debian-archive-keyring)
fi
((${#missing[@]} == 0)) && exit 0

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO=(sudo -n)
	else
		log "missing: ${missing[*]}. Run: sudo apt-get install -y ${missing[*]}"
		exit 1
	fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
	log "missing: ${missing[*]}, and this is not a Debian/Ubuntu system: install them with your package manager"
	exit 1
fi
log "installing ${missing[*]}"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
