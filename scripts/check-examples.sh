#!/usr/bin/env bash
# Builds and runs the client examples (Examples/README.md) through astra-pushsim's client
# protocol, as CI does: each correct client must pass `check` (exit 0), each buggy one must fail
# it (exit 1) naming its rule. The Swift example package also runs its own tests, which judge
# its handler with the PushKitEmu library product directly.
# Usage: scripts/check-examples.sh [BIN_DIR]   (default: the debug build of this package)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
bin=${1:-$(swift build --show-bin-path)}
pushsim="$bin/astra-pushsim"
[[ -x $pushsim ]] || { echo "check-examples: $pushsim is not built (swift build)" >&2; exit 1; }
status=0
swift_example=Examples/swift-client
echo "== check-examples: building $swift_example" >&2
swift build --package-path "$swift_example" >&2 || exit 1
swift test --package-path "$swift_example" >&2 || status=1
example_bin=$(swift build --package-path "$swift_example" --show-bin-path)
# The library examples (verify-line, call-and-record, sip-message) are built here, once, and run
# against Kamailio by KamailioTests.LibraryExamplesTests in phase 4 (which builds them itself
# when run alone).
echo "== check-examples: building Examples/library" >&2
swift build --package-path Examples/library >&2 || status=1

# name | client command | expected exit | rules the verdict must name, comma-separated (empty: none)
cases=(
    "python correct|python3 Examples/python-client/correct_client.py|0|"
    "python buggy (networking before the report)|python3 Examples/python-client/buggy_client.py|1|R1"
    "python naive sealed (trusts pushes it could not verify, never renews its grants)|python3 Examples/python-client/naive_sealed_client.py|1|R5,GRANT"
    "swift correct|$example_bin/correct-client|0|"
    "swift buggy (second CallKit call for the INVITE)|$example_bin/buggy-client|1|R5"
)
for entry in "${cases[@]}"; do
    IFS='|' read -r name command want rule <<<"$entry"
    out=$("$pushsim" check --client-cmd "$command" 2>/tmp/check-examples.$$.err)
    got=$?
    verdict=$(tail -n 1 <<<"$out")
    err=$(cat /tmp/check-examples.$$.err)
    rm -f /tmp/check-examples.$$.err
    ok=1
    [[ $got == "$want" ]] || ok=0
    if [[ -n $rule ]]; then
        [[ $verdict == *"\"rules\":[\"${rule//,/\",\"}\"]"* && $err == *"broke ${rule//,/, } "* ]] || ok=0
    else
        [[ $verdict == *'"ok":true'* && -z $err ]] || ok=0
    fi
    if [[ $ok == 1 ]]; then
        echo "check-examples: ok   $name: exit $got${rule:+, names $rule}" >&2
    else
        echo "check-examples: FAIL $name: exit $got (want $want${rule:+, rule $rule}); verdict: $verdict; stderr: $err" >&2
        status=1
    fi
done
exit $status
