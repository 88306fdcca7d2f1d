#!/usr/bin/env bash
# The last step of `make test` (scripts/run-tests.sh): the whole test output must not hold a
# secret — the test passwords, push tokens and credentials the suites use, nor any SRTP key,
# ICE password, digest response, bearer token, push token or PEM private key in clear (those are
# made at run time, so they are found by their shape: a PEM header that ends its line or runs
# into its body, never the redactor's `-----BEGIN PRIVATE KEY-----<redacted>` nor the words
# "PEM private key" in a usage text). Prints the line number and the kind of each hit,
# never the secret itself; exit 1 when there is one.
#   scripts/check-test-secrets.sh LOG
set -uo pipefail
log=${1:?usage: check-test-secrets.sh LOG}
[[ -r "$log" ]] || { echo "check-test-secrets: cannot read $log" >&2; exit 64; }
# kind<TAB>extended regex (grep -E); the redactor's placeholder never matches.
patterns=$(cat <<'PATTERNS'
Kamailio test password	astra10[0-9]{2}([^0-9]|$)
test password	zanzibar|secret1001|correct horse|s3cr3t-PW|Circle of Life|TheMatrIX|pw-Secret-42|alice-secret|dave-secret|hunter2|turnpass|astra-turn-secret
test push token	TOKEN-123|8f3c9d2e7a4b1f6e|ab12cd34ef56ab12cd34
SDES key in clear	inline:[A-Za-z0-9+/]{30,}
ICE password in clear	ice-pwd:[A-Za-z0-9+/]{16,}
digest response in clear	response="?[0-9a-f]{32}
push token in clear	pn-prid=[0-9A-Za-z:_-]{16,}
bearer token in clear	Bearer [A-Za-z0-9._~+/-]{20,}
PEM private key	-----BEGIN [A-Z ]*PRIVATE KEY-----(\\n)?($|[A-Za-z0-9+/=]{4,})
PATTERNS
)
hits=0
while IFS=$'\t' read -r kind regex; do
    [[ -n "$kind" ]] || continue
    while IFS=: read -r number _; do
        echo "check-test-secrets: $log:$number: $kind" >&2
        hits=$((hits + 1))
    done < <(grep -nE -- "$regex" "$log" | cut -d: -f1 | sed 's/$/:/')
done <<< "$patterns"
if (( hits > 0 )); then
    echo "check-test-secrets: $hits secret(s) in the test output" >&2
    exit 1
fi
echo "check-test-secrets: no secret in $(wc -l < "$log") lines of test output" >&2
