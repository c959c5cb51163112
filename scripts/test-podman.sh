#!/usr/bin/env bash
# The tests again on Podman, run as root by `make test-podman` (CI calls it
# after `make test`):
#   rootful Podman: the whole sandbox suite, the image carried over from
#     Docker (quarry sandbox save/load, in a test), the headless variance report;
#   rootless Podman, as the non-root user quarry-ci with its own socket: the
#     adversarial suite and the variance report.
# A Podman store without the sandbox image gets it from Docker through
# quarry sandbox save/load, the way an air-gapped machine would.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
BIN=${BIN:-./quarry}
user=${QUARRY_ROOTLESS_USER:-quarry-ci}
export CI=${CI:-}

log() { echo "test-podman: $*" >&2; }
[[ $(id -u) -eq 0 ]] || { log "run as root (it installs Podman, adds the user $user and starts services): sudo make test-podman"; exit 1; }
[[ -x $BIN ]] || { log "no quarry binary at $BIN: make build"; exit 1; }

# The machine is left as found: the Podman services (and the rootless
# user's processes) this run starts are stopped at its end; those that ran
# before are left running.
services() { pgrep -f 'podman system service' | sort || true; }
user_procs() { id "$user" >/dev/null 2>&1 && pgrep -u "$user" | sort || true; }
services_before=$(services)
user_before=$(user_procs)
socket_before=""
if command -v systemctl >/dev/null 2>&1 && [[ $(ps -o comm= -p 1 2>/dev/null) == systemd ]]; then
	socket_before=$(systemctl is-active podman.socket 2>/dev/null || true)
fi
work=""
leave_as_found() {
	[[ -n $work ]] && rm -rf "$work"
	local pid new
	for pid in $(comm -13 <(echo "$services_before") <(services)) $(comm -13 <(echo "$user_before") <(user_procs)); do
		kill "$pid" 2>/dev/null || true
	done
	if [[ -n $socket_before && $socket_before != active ]]; then
		systemctl stop podman.socket podman.service >/dev/null 2>&1 || true
	fi
	for _ in $(seq 1 50); do
		new=$(comm -13 <(echo "$services_before") <(services))
		[[ -z $new ]] && return 0
		sleep 0.2
	done
	for pid in $new; do kill -9 "$pid" 2>/dev/null || true; done
	log "Podman services still running after the run: $(ps -o pid=,args= -p "${new//$'\n'/,}" 2>/dev/null)"
	return 1
}
trap leave_as_found EXIT

rootful=$(scripts/ensure-podman.sh)
rootless=$(scripts/podman-rootless.sh "$user")
scripts/ensure-sshd.sh

# Everything the user runs lives here: the repository may sit in a folder
# that user cannot enter.
work=$(mktemp -d /var/tmp/quarry-podman-test.XXXXXX)
chmod 0755 "$work"
install -m 0755 "$BIN" "$work/quarry"
home=$(getent passwd "$user" | cut -d: -f6)
uid=$(id -u "$user")
as_user() {
	(cd "$work" && runuser -u "$user" -- env -i HOME="$home" USER="$user" LOGNAME="$user" \
		PATH=/usr/local/bin:/usr/bin:/bin XDG_RUNTIME_DIR="/run/user/$uid" DOCKER_HOST="$rootless" \
		CI="$CI" TMPDIR=/tmp "$@")
}

t0=$(date +%s)
phase() { log "$1 ($(($(date +%s) - t0))s)"; }

if ! DOCKER_HOST=$rootful "$BIN" sandbox status >/dev/null 2>&1 || ! as_user ./quarry sandbox status >/dev/null 2>&1; then
	phase "carrying the sandbox image from Docker to Podman with quarry sandbox save/load"
	"$BIN" sandbox save "$work/sandbox.tar"
	chmod 0644 "$work/sandbox.tar"
	DOCKER_HOST=$rootful "$BIN" sandbox load "$work/sandbox.tar" >/dev/null
	as_user ./quarry sandbox load "$work/sandbox.tar" >/dev/null
	rm -f "$work/sandbox.tar"
fi
DOCKER_HOST=$rootful "$BIN" sandbox status
as_user ./quarry sandbox status

rc=0
run() { # name, command...: the output on stdout, the verdict in rc, skips repeated at the end
	local name=$1
	shift
	phase "$name"
	"$@" 2>&1 | tee "$work/out.txt" || rc=1
	grep -- '--- SKIP' "$work/out.txt" | sed "s|^|    $name: |" >>"$work/skips.txt" || true
}

run "rootful Podman: go test ./engine ./image ./sandbox/..." \
	env DOCKER_HOST="$rootful" "$GO" test -count=1 -timeout 25m -v ./engine ./image ./sandbox/...
run "Docker to rootful Podman: the image through a sandbox archive" \
	env QUARRY_TEST_LOAD_HOST="$rootful" "$GO" test -count=1 -timeout 10m -v -run '^TestSaveLoadAcrossEngines$' ./image
grep -q -- '--- PASS: TestSaveLoadAcrossEngines' "$work/out.txt" || { log "the save/load round trip did not pass"; rc=1; }
run "rootful Podman: the headless variance report" \
	env DOCKER_HOST="$rootful" "$GO" test -count=1 -timeout 10m -v -run '^TestVarianceReport' ./e2e

# The user runs test binaries built here, with the files they read beside them.
"$GO" test -c -o "$work/sandbox.test" ./sandbox
"$GO" test -c -o "$work/image.test" ./image
"$GO" test -c -o "$work/e2e.test" ./e2e
mkdir -p "$work/sandbox" "$work/image" "$work/e2e"
cp -r sandbox/testdata "$work/sandbox/"
cp -r image/testdata image/recipe "$work/image/"
chmod -R a+rX "$work"
run "rootless Podman as $user: the adversarial suite" \
	as_user sh -c 'cd sandbox && ../sandbox.test -test.count=1 -test.timeout 25m -test.v -test.run "^(TestAdversarial|TestLimits|TestStartVolumes|TestMemoryBomb|TestKernelDeath|TestEngineRefusal|TestRuntimeFallback)"'
run "rootless Podman as $user: the image imported" \
	as_user sh -c 'cd image && ../image.test -test.count=1 -test.timeout 10m -test.v -test.run "^TestImportRootfs"'
run "rootless Podman as $user: the headless variance report" \
	as_user env QUARRY_TEST_BINARY="$work/quarry" sh -c 'cd e2e && ../e2e.test -test.count=1 -test.timeout 10m -test.v -test.run "^TestVarianceReport"'

if [[ -s $work/skips.txt ]]; then
	log "skipped:"
	cat "$work/skips.txt" >&2
fi
leave_as_found || rc=1
trap - EXIT
phase "done, $( ((rc == 0)) && echo passed || echo FAILED)"
exit $rc
