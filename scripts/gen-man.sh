#!/usr/bin/env bash
# Regenerates docs/man/<tool>.1 (troff) and docs/man/<tool>.md from the tools' specs, by running
# each built tool with the hidden --generate-manual flag. Usage: scripts/gen-man.sh [BIN_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
tools=(astra-register astra-call astra-qr astra-pushsim astra-wakegw astra-trace)
if [[ $# -ge 1 ]]; then
    bin=$1
else
    for tool in "${tools[@]}"; do swift build --product "$tool" >&2; done
    bin=$(swift build --show-bin-path)
fi
mkdir -p docs/man
for tool in "${tools[@]}"; do
    "$bin/$tool" --generate-manual >"docs/man/$tool.1"
    "$bin/$tool" --generate-manual=markdown >"docs/man/$tool.md"
    echo "gen-man: docs/man/$tool.1 docs/man/$tool.md" >&2
done
