#!/usr/bin/env bash
# Regenerates docs/man/<tool>.1 (troff), docs/man/<tool>.md and the shell completions
# docs/completions/<tool>.bash and docs/completions/_<tool> (zsh) from the tools' specs, by running
# each built tool with the hidden --generate-manual and --generate-completion=bash|zsh flags.
# `make install` installs these checked-in files; GeneratedDocsTests keeps them fresh.
# Usage: scripts/gen-man.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
source scripts/tools.sh
tools=("${astra_tools[@]}")
if [[ $# -ge 1 ]]; then
    bin=$1
else
    for tool in "${tools[@]}"; do swift build --product "$tool" >&2; done
    bin=$(swift build --show-bin-path)
fi
mkdir -p docs/man docs/completions
for tool in "${tools[@]}"; do
    "$bin/$tool" --generate-manual >"docs/man/$tool.1"
    "$bin/$tool" --generate-manual=markdown >"docs/man/$tool.md"
    "$bin/$tool" --generate-completion=bash >"docs/completions/$tool.bash"
    "$bin/$tool" --generate-completion=zsh >"docs/completions/_$tool"
    echo "gen-man: docs/man/$tool.1 docs/man/$tool.md docs/completions/$tool.bash docs/completions/_$tool" >&2
done
