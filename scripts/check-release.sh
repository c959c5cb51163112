#!/usr/bin/env bash
# Checks what `goreleaser release --snapshot --clean` left in dist/: the
# checksums, what each archive holds (binary, completions, man page, docs),
# the .deb's dependency and files, the .rpm's magic, the Homebrew cask; then
# installs the .deb in a fresh Debian container made from the sandbox image
# (the root file system the debootstrap path builds), networkless and
# removed afterwards, and runs quarry --version there.
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
BIN=${BIN:-./quarry}

fail() { echo "check-release: $*" >&2; exit 1; }
log() { echo "check-release: $*" >&2; }

(cd "$dist" && sha256sum --quiet --strict -c checksums.txt) || fail "dist/checksums.txt does not match the files"
log "checksums match ($(wc -l <"$dist/checksums.txt") files)"

want=(README.md completions/quarry.bash completions/quarry.zsh completions/quarry.fish completions/quarry.powershell manpages/quarry.1.gz)
n=0
for a in "$dist"/quarry_*.tar.gz "$dist"/quarry_*.zip; do
	case $a in
	*.zip)
		list=$(python3 -m zipfile -l "$a" | awk 'NR > 1 {print $1}')
		bin=quarry.exe
		;;
	*)
		list=$(tar -tzf "$a")
		bin=quarry
		;;
	esac
	for f in "$bin" "${want[@]}"; do
		grep -qx "$f" <<<"$list" || fail "$(basename "$a") lacks $f"
	done
	n=$((n + 1))
done
((n == 6)) || fail "$n archives, want 6 (linux, darwin, windows on amd64 and arm64)"
log "$n archives hold the binary, completions, man page and docs"

deb=$(ls "$dist"/quarry_*_linux_amd64.deb)
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends == "docker.io | podman" ]] || fail "$(basename "$deb") depends on '$depends', want 'docker.io | podman'"
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/quarry ./usr/share/man/man1/quarry.1.gz ./usr/share/bash-completion/completions/quarry \
	./usr/share/zsh/vendor-completions/_quarry ./usr/share/fish/vendor_completions.d/quarry.fish ./usr/share/doc/quarry/README.md; do
	grep -qx "$f" <<<"$files" || fail "$(basename "$deb") lacks $f"
done
for rpm in "$dist"/quarry_*_linux_*.rpm; do
	[[ $(head -c 4 "$rpm" | od -An -tx1 | tr -d ' \n') == edabeedb ]] || fail "$(basename "$rpm") is not an RPM package"
done
cask="$dist/homebrew/Casks/quarry.rb"
[[ -s $cask ]] || fail "no Homebrew cask at $cask"
for arch in amd64 arm64; do
	sum=$(awk -v f="quarry_.*_darwin_${arch}.tar.gz" '$2 ~ f {print $1}' "$dist/checksums.txt")
	grep -q "sha256 \"$sum\"" "$cask" || fail "the cask does not carry the darwin $arch archive's checksum"
done
log "package metadata and the cask are right"

ref=$("$BIN" sandbox ref)
docker image inspect "$ref" >/dev/null 2>&1 || fail "no $ref in Docker to install the .deb into: make image"
log "installing $(basename "$deb") in a fresh container of $ref"
docker run --rm --network none --user 0 --label io.quarry.test=release \
	-v "$(realpath "$dist"):/dist:ro" --entrypoint /bin/sh "$ref" -ec "
deb=/dist/$(basename "$deb")
# Without an engine installed, dpkg names the dependency and stops.
if dpkg -i \"\$deb\" >/tmp/dpkg.out 2>&1; then echo 'installed without docker.io or podman'; exit 1; fi
grep -q 'depends on docker.io | podman' /tmp/dpkg.out
# The engine may be elsewhere (DOCKER_HOST): installed despite it, the binary runs.
dpkg --force-depends -i \"\$deb\" >/dev/null 2>&1 || true
dpkg-query -W -f='\${Status}\n' quarry | grep -q 'install ok installed'
test -s /usr/share/man/man1/quarry.1.gz
test -s /usr/share/bash-completion/completions/quarry
quarry --version
"
log "the .deb installs and quarry --version runs"
