#!/usr/bin/env bash
# Install Debian's openssh-server for the remote-engine test (an sshd the
# test starts itself on a loopback port with its own keys) without leaving a
# system sshd running: services are kept from starting during the install,
# and under systemd the ssh service is disabled again. Nothing to do when
# /usr/sbin/sshd exists. Run as root.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log() { echo "ensure-sshd: $*" >&2; }

[[ -x /usr/sbin/sshd ]] && exit 0
if [[ $(id -u) -ne 0 ]]; then
	log "openssh-server is not installed; the ssh test needs it: sudo scripts/ensure-sshd.sh"
	exit 1
fi
command -v apt-get >/dev/null 2>&1 || { log "not a Debian/Ubuntu system: install openssh-server with your package manager"; exit 1; }

log "installing openssh-server (Debian package; no service is started)"
ROOT=()
apt_install_no_services ssh.service ssh.socket -- openssh-server
