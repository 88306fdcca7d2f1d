#!/usr/bin/env bash
# Runs the whole test suite. Real-peer suites (Kamailio, sipp, zbarimg) start their peers
# themselves on 127.0.0.1 (scripts/kamailio.sh) and skip nothing silently.
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift test
