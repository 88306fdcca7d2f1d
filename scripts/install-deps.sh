#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/debian-packages.txt that are missing.
# Idempotent: when everything is installed it only runs `dpkg -s` and exits. Then the aiortc
# venv for the WebRTC interop tests (scripts/install-interop.sh, idempotent too).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
missing=()
while read -r pkg; do
    [[ -z "$pkg" || "$pkg" == \#* ]] && continue
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done < "$here/debian-packages.txt"
if ((${#missing[@]} == 0)); then
    "$here/install-interop.sh"
    exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then
    echo "install-deps: missing packages and not root; run as root: apt-get install ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
if ! command -v swift >/dev/null 2>&1 && [[ ! -x /opt/swift/usr/bin/swift ]]; then
    echo "install-deps: the Swift 6.3 toolchain is expected at /opt/swift (swift.org Debian 12 tarball)" >&2
    exit 1
fi
"$here/install-interop.sh"
