#!/usr/bin/env bash
# Prints the extra `swift build` flags of release builds (make build-release, make bench) and
# prepares what they need: a directory of links to the static archives of OpenSSL and
# libstdc++, put first on the linker's search path so `-lssl -lcrypto -lstdc++` pick the
# archives (docs/decisions.md D7). A missing archive is left out: that library stays dynamic.
# Measured: a one-shot astra-register went from 12.0 M to 3.6 M instructions, two thirds of it
# the dynamic loader binding OpenSSL's and libstdc++'s symbols.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.build/astra-static-libs
mkdir -p "$dir"
for archive in libssl.a libcrypto.a libstdc++.a; do
    path=$(gcc -print-file-name="$archive" 2>/dev/null || true)
    if [[ -n "$path" && "$path" == /* && -f "$path" ]]; then
        ln -sf "$path" "$dir/$archive"
    else
        rm -f "$dir/$archive"
        echo "release-flags: $archive not found: that library stays dynamic" >&2
    fi
done
echo "-Xlinker -L$PWD/$dir"
