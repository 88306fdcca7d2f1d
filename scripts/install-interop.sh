#!/usr/bin/env bash
# Installs aiortc (PyPI) into a venv for the WebRTC interop tests (docs/decisions.md D15):
# an independent ICE + DTLS-SRTP implementation that Tests/MediaTests/DTLSInteropTests.swift
# runs against (scripts/run-tests.sh exports ASTRA_AIORTC_PYTHON when the venv is ready).
# Idempotent: exits at once when the venv already imports aiortc. PEP 668 forbids pip on
# Debian's system Python, hence the venv; on a fresh Debian 12 `python3 -m venv` needs
# python3-venv, installed here when root. A failure (e.g. no network) is reported, not fatal:
# the interop tests then say they were skipped — and fail under CI=true.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/interop/venv.sh"
astra_interop_ready && exit 0
log() { echo "install-interop: $*" >&2; }
python=$(command -v python3 || true)
if [[ -z "$python" ]]; then
    log "no python3: the aiortc interop tests will be skipped"
    exit 0
fi
if ! "$python" -m venv --help >/dev/null 2>&1 || ! "$python" -c 'import ensurepip' >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]]; then
        log "installing python3-venv"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null \
            || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null; }
    fi
fi
log "creating $ASTRA_INTEROP_VENV with aiortc (scripts/interop/requirements.txt)"
rm -rf "$ASTRA_INTEROP_VENV"
if ! "$python" -m venv "$ASTRA_INTEROP_VENV" >&2; then
    log "python3 -m venv failed: the aiortc interop tests will be skipped"
    exit 0
fi
if ! "$ASTRA_INTEROP_VENV/bin/pip" install -q --disable-pip-version-check -r "$here/interop/requirements.txt" >&2; then
    log "pip install aiortc failed (no network?): the aiortc interop tests will be skipped"
    exit 0
fi
astra_interop_ready && log "ready: $ASTRA_INTEROP_VENV/bin/python" || log "aiortc does not import: interop tests will be skipped"
exit 0
