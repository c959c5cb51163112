#!/usr/bin/env bash
# Make a Docker engine reachable: nothing to do when `docker info` answers;
# start dockerd when it is installed but stopped; install Debian's docker.io
# when root (or passwordless sudo) and nothing is there; otherwise say what
# to run. Idempotent and quiet when the engine is already up.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

log() { echo "ensure-docker: $*" >&2; }

engine_up() {
	if command -v docker >/dev/null 2>&1; then
		docker info >/dev/null 2>&1
	else
		# No CLI (quarry does not need it): ask the socket directly.
		local sock="${DOCKER_HOST:-unix:///var/run/docker.sock}"
		[[ $sock == unix://* ]] || return 1
		sock="${sock#unix://}"
		[[ -S $sock ]] && command -v curl >/dev/null 2>&1 &&
			curl -fsS --max-time 5 --unix-socket "$sock" http://localhost/_ping >/dev/null 2>&1
	fi
}

if engine_up; then
	exit 0
fi

if [[ -n ${DOCKER_HOST:-} && ${DOCKER_HOST} != unix://* ]]; then
	log "the engine at DOCKER_HOST=$DOCKER_HOST does not answer; start it there, or unset DOCKER_HOST"
	exit 1
fi

if [[ $(id -u) -ne 0 && -S /var/run/docker.sock && ! -w /var/run/docker.sock ]] && pgrep -x dockerd >/dev/null 2>&1; then
	log "dockerd runs, but $(id -un) may not use /var/run/docker.sock. Run:"
	log "  sudo usermod -aG docker $(id -un)   # then log out and in again (or: newgrp docker)"
	exit 1
fi

if ! as_root; then
	if command -v dockerd >/dev/null 2>&1; then
		log "dockerd is installed but not running, and starting it needs root. Run:"
		log "  sudo systemctl start docker        # or: sudo scripts/ensure-docker.sh"
	else
		log "no Docker engine is installed. Run:"
		log "  sudo scripts/ensure-docker.sh      # installs Debian's docker.io and starts it"
	fi
	log "then let your user reach it: sudo usermod -aG docker \$USER (and log in again)"
	exit 1
fi

if ! command -v dockerd >/dev/null 2>&1; then
	log "installing docker.io (Debian package)"
	apt_install docker.io
fi

# The daemon may be up while the CLI was missing until now.
if engine_up; then
	exit 0
fi

log "starting dockerd"
if [[ $(ps -o comm= -p 1 2>/dev/null) == systemd ]] && command -v systemctl >/dev/null 2>&1; then
	"${ROOT[@]}" systemctl start docker || "${ROOT[@]}" systemctl restart docker
else
	# No systemd (containers, WSL): run the daemon in the background.
	"${ROOT[@]}" sh -c 'nohup dockerd >/var/log/quarry-dockerd.log 2>&1 &'
fi

for _ in $(seq 1 60); do
	if engine_up; then
		log "engine is up"
		exit 0
	fi
	sleep 1
done
log "dockerd did not answer within 60s; see /var/log/quarry-dockerd.log or journalctl -u docker"
exit 1
