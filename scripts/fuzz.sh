#!/usr/bin/env bash
# libFuzzer over every parser that takes outside bytes (docs/fuzzing.md).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   each target for SECONDS (make fuzz: FUZZ_SECONDS, 300)
#        scripts/fuzz.sh --smoke [TARGET...]     each target for FUZZ_SMOKE_SECONDS (10) from its seeds
#                                                only, debug build (CI: phase 5 of scripts/run-tests.sh)
#        scripts/fuzz.sh --build                 build .build-fuzz/release/astra-fuzz only
#
# The fuzz build is a release (smoke: debug) build of astra-fuzz (Fuzz/astra-fuzz, every target
# in one binary) in its own scratch path (.build-fuzz): Swift code instrumented for coverage (edges, comparisons)
# and AddressSanitizer; the C shims over OpenSSL, libsrtp, zbar, libqrencode and libpng also get
# UndefinedBehaviorSanitizer; libFuzzer's driver without its main (astra-fuzz calls it).
#
# Per target: seeds are written fresh to .build-fuzz/seeds/TARGET (from the vectors and golden
# files); new corpus entries are kept in Fuzz/corpus/TARGET and crashes go to
# Fuzz/artifacts/TARGET/ (both git-ignored). One JSON line per target on stdout; libFuzzer's own
# log in .build-fuzz/logs/TARGET.log. Exit 1 when any target crashed or did not run.
#
# Environment: FUZZ_JOBS (targets run at once; 1, smoke 2), FUZZ_NICE (19, smoke 0: campaigns yield the
# CPU to builds and tests), FUZZ_SMOKE_SECONDS (10), FUZZ_FLAGS (extra libFuzzer flags),
# FUZZ_CONFIG (release; smoke: debug), FUZZ_SCRATCH (.build-fuzz), FUZZ_TIMEOUT (10, smoke 60: seconds one
# input may take; libFuzzer counts wall time, so a campaign at nice 19 on a loaded machine
# needs more, or the scheduler's pauses are reported as timeouts).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
export SWIFT_BACKTRACE=enable=no
# ASan: leaks are reported by libFuzzer itself (-detect_leaks); stop at the first UB report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

mode=campaign
seconds=300
case "${1:-}" in
    --smoke) mode=smoke; shift; seconds=${FUZZ_SMOKE_SECONDS:-10} ;;
    --build) mode=build; shift ;;
    [0-9]*) seconds=$1; shift ;;
esac
# Seconds one input may take: a smoke on a loaded machine counts the scheduler's pauses too.
unit_timeout=$([[ $mode == smoke ]] && echo 60 || echo 10)
jobs=${FUZZ_JOBS:-$([[ $mode == smoke ]] && echo 2 || echo 1)}
# The smoke builds -Onone (a third of the release build's CPU; ~5x fewer executions, enough to
# run every seed and mutate from it); campaigns build release.
config=${FUZZ_CONFIG:-$([[ $mode == smoke ]] && echo debug || echo release)}
# The smoke is part of `make test` and runs at the tests' own priority: at nice 19 beside a busy
# CPU (CI runs beside stress-ng) it got ~1/70 of a core, and libFuzzer's wall-clock -timeout
# fired on the empty input. A campaign yields the CPU (nice 19).
niceness=${FUZZ_NICE:-$([[ $mode == smoke ]] && echo 0 || echo 19)}

out=${FUZZ_SCRATCH:-.build-fuzz}
runtime=$(dirname "$(command -v swiftc)")/../lib/clang
runtime=$(ls -d "$runtime"/*/lib/linux | head -1)
coverage=edge,trace-cmp,inline-8bit-counters,pc-table

build() {
    echo "fuzz: building $out/$config/astra-fuzz ($config, coverage, ASan; UBSan in the C shims)" >&2
    local started=$SECONDS
    swift build --scratch-path "$out" -c "$config" --product astra-fuzz \
        --sanitize=address \
        -Xswiftc -sanitize-coverage=$coverage \
        -Xcc -fsanitize=address,undefined -Xcc -fno-sanitize-recover=undefined \
        -Xcc -fsanitize-coverage=$coverage \
        -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld \
        -Xlinker --undefined=LLVMFuzzerRunDriver \
        -Xlinker "$runtime/libclang_rt.fuzzer_no_main-x86_64.a" \
        -Xlinker "$runtime/libclang_rt.ubsan_standalone-x86_64.a" \
        -Xlinker -lstdc++ >&2 || return 1
    echo "fuzz: built in $((SECONDS - started)) s" >&2
}

build || { echo '{"target":"build","ok":false}'; exit 1; }
[[ $mode == build ]] && exit 0
bin="$out/$config/astra-fuzz"

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <("$bin" list | cut -f1)
fi

count_findings() { find "$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l; }
count_slow() { find "$1" -maxdepth 1 -type f -name 'slow-unit-*' | wc -l; }

# One target: seeds, libFuzzer, then its JSON line from libFuzzer's final statistics.
run_target() {
    local t=$1 seeds="$out/seeds/$1" log="$out/logs/$1.log" artifacts="Fuzz/artifacts/$1/" corpus
    rm -rf "$seeds"
    mkdir -p "$out/seeds" "$out/logs" "$artifacts"
    if [[ $mode == smoke ]]; then
        corpus="$out/smoke-corpus/$t"
        rm -rf "$corpus"
    else
        corpus="Fuzz/corpus/$t"
    fi
    mkdir -p "$corpus"
    local before after status
    # Findings are libFuzzer's crash-/leak-/timeout-/oom- files; slow-unit- files (an input that
    # took longer than -report_slow_units but finished within -timeout) are reported apart, since
    # a bounded but costly input is a finding to look at, not a crash (docs/fuzzing.md).
    before=$(count_findings "$artifacts"); slow_before=$(count_slow "$artifacts")
    "$bin" seeds "$t" "$seeds" 2>"$log" || { echo "{\"target\":\"$t\",\"ok\":false,\"error\":\"no seeds\"}"; return 1; }
    nice -n "$niceness" "$bin" "$t" "$corpus" "$seeds" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-$unit_timeout}" \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix="$artifacts" -print_final_stats=1 \
        ${FUZZ_FLAGS:-} >>"$log" 2>&1
    status=$?
    after=$(count_findings "$artifacts"); slow_after=$(count_slow "$artifacts")
    awk -v t="$t" -v s="$seconds" -v status="$status" -v crashes="$((after - before))" -v slow="$((slow_after - slow_before))" -v artifacts="$artifacts" '
        /^#[0-9]+/ { for (i = 1; i <= NF; i++) { if ($i == "cov:") cov = $(i + 1); if ($i == "ft:") ft = $(i + 1); if ($i == "corp:") { split($(i + 1), c, "/"); corp = c[1] } } }
        /^stat::number_of_executed_units:/ { runs = $2 }
        /^stat::average_exec_per_sec:/ { eps = $2 }
        /^stat::new_units_added:/ { added = $2 }
        /^stat::peak_rss_mb:/ { rss = $2 }
        /^SUMMARY: / && !finding && !/slow-unit/ { finding = substr($0, 10); gsub(/["\\]/, "", finding) }
        END {
            ok = (status == 0 && crashes == 0 && runs > 0) ? "true" : "false"
            printf "{\"target\":\"%s\",\"seconds\":%d,\"executions\":%d,\"exec_per_sec\":%d,\"coverage\":%d,\"features\":%d,\"corpus\":%d,\"new_units\":%d,\"peak_rss_mb\":%d,\"crashes\":%d,\"slow_units\":%d", t, s, runs, eps, cov, ft, corp, added, rss, crashes, slow
            if (finding != "") printf ",\"finding\":\"%s\",\"artifacts\":\"%s\"", finding, artifacts
            printf ",\"exit\":%d,\"ok\":%s}\n", status, ok
        }' "$log"
    [[ $status -eq 0 && $after -eq $before ]]
}

failed=0
running=0
for t in "${targets[@]}"; do
    if [[ $jobs -le 1 ]]; then
        run_target "$t" || failed=1
        continue
    fi
    run_target "$t" &
    running=$((running + 1))
    if [[ $running -ge $jobs ]]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
done
while [[ $running -gt 0 ]]; do
    wait -n || failed=1
    running=$((running - 1))
done
exit $failed
