#!/usr/bin/env bash
# Release files made from the command line itself, before goreleaser packs
# them: shell completions (bash, zsh, fish, PowerShell) in completions/ and
# the man page in manpages/quarry.1.gz. Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
rm -rf completions manpages
mkdir -p completions manpages
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
"$GO" build -o "$bin/quarry" .
for sh in bash zsh fish powershell; do
	"$bin/quarry" completion "$sh" >"completions/quarry.$sh"
done
"$bin/quarry" man | gzip -9n >manpages/quarry.1.gz
