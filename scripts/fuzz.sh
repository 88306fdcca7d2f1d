#!/usr/bin/env bash
# libFuzzer over the SIPCore parser, typed headers, serializer and stream framer.
# Usage: scripts/fuzz.sh SECONDS   (make fuzz: FUZZ_SECONDS, default 600)
# Built outside SwiftPM: swiftc over Modules/SIPCore/*.swift + Fuzz/SIPFuzz.swift in one module.
# Seeds: the RFC 4475/5118/7118 vectors. New corpus entries go to Fuzz/corpus-work/, crashes to
# Fuzz/artifacts/ (both git-ignored); add each crash as a regression test in Tests/SIPCoreTests.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
export PATH=/opt/swift/usr/bin:$PATH
export SWIFT_BACKTRACE=enable=no
out=.build-fuzz
mkdir -p "$out" Fuzz/corpus-work Fuzz/artifacts
bin="$out/sip-fuzz"
sources=(Modules/SIPCore/*.swift Fuzz/SIPFuzz.swift)
if [[ ! -x "$bin" ]] || [[ -n "$(find "${sources[@]}" -newer "$bin" 2>/dev/null)" ]]; then
    echo "fuzz: building $bin" >&2
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
        -module-name SIPCore -package-name AstraSIP \
        -I Modules/COpenSSL -lssl -lcrypto -use-ld=lld \
        "${sources[@]}" -o "$bin"
fi
echo "fuzz: running for ${seconds}s" >&2
"$bin" Fuzz/corpus-work Tests/SIPCoreTests/Vectors Tests/SIPCoreTests/Vectors/derived/rfc5118_wire \
    -dict=Fuzz/sip.dict -max_len=8192 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=Fuzz/artifacts/ -print_final_stats=1
