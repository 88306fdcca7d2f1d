# Sourced by scripts/install-interop.sh and scripts/run-tests.sh: where the aiortc venv lives.
# ASTRA_INTEROP_VENV wins; root (CI) uses /opt/astra-interop so a CI run on the same machine
# reuses it; anyone else gets .venv-interop in the checkout.
if [[ -z "${ASTRA_INTEROP_VENV:-}" ]]; then
    if [[ $(id -u) -eq 0 ]]; then
        ASTRA_INTEROP_VENV=/opt/astra-interop
    else
        ASTRA_INTEROP_VENV="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv-interop"
    fi
fi
astra_interop_ready() { "$ASTRA_INTEROP_VENV/bin/python" -c 'import aiortc, av' >/dev/null 2>&1; }
