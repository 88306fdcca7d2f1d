#!/usr/bin/env bash
# `make install` / `make uninstall`: the tools, their man pages and their bash and zsh completions
# under PREFIX (default /usr/local), staged under DESTDIR for packagers:
#   $DESTDIR$PREFIX/bin/<tool>                                  (mode 755)
#   $DESTDIR$PREFIX/share/man/man1/<tool>.1                     (docs/man, generated from the spec)
#   $DESTDIR$PREFIX/share/bash-completion/completions/<tool>    (docs/completions/<tool>.bash)
#   $DESTDIR$PREFIX/share/zsh/site-functions/_<tool>            (docs/completions/_<tool>)
# uninstall removes exactly these files (and no directory: bin/ and share/ are shared).
#
# CONFIG=release (default) builds the tools as `make build-release` does (static Swift runtime,
# scripts/release-flags.sh); CONFIG=debug installs the debug build (the install test). The build
# runs as the owner of .build only: when root runs `make install` over a tree another user built
# (`make build-release && sudo make install`), nothing is rebuilt into it as root, the built tools
# are installed as they are, and a missing one is an error.
# Usage: scripts/install.sh install|uninstall   Exit: 0 done, 64 usage (bad PREFIX, CONFIG), 1 failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
source scripts/tools.sh
verb=${1:-}
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
config=${CONFIG:-release}
fail() { echo "install: $2" >&2; exit "$1"; }
[[ $verb == install || $verb == uninstall ]] || fail 64 "usage: scripts/install.sh install|uninstall"
[[ $prefix == /* ]] || fail 64 "PREFIX must be an absolute path, got '$prefix'"
[[ -z $destdir || $destdir == /* ]] || fail 64 "DESTDIR must be an absolute path, got '$destdir'"
[[ $config == release || $config == debug ]] || fail 64 "CONFIG must be release or debug, got '$config'"
root=$destdir${prefix%/}

# One line per installed file: <mode> <source> <destination below $root>.
manifest() {
    local tool
    for tool in "${astra_tools[@]}"; do
        echo "755 $bin/$tool bin/$tool"
        echo "644 docs/man/$tool.1 share/man/man1/$tool.1"
        echo "644 docs/completions/$tool.bash share/bash-completion/completions/$tool"
        echo "644 docs/completions/_$tool share/zsh/site-functions/_$tool"
    done
}

if [[ $verb == uninstall ]]; then
    bin=-
    manifest | while read -r _ _ target; do
        if [[ -e $root/$target || -L $root/$target ]]; then
            rm -f -- "$root/$target"
            echo "uninstall: removed $root/$target" >&2
        fi
    done
    exit 0
fi

flags=(-c "$config")
[[ $config == release ]] && flags+=(--static-swift-stdlib $(scripts/release-flags.sh))
owner=$(stat -c %u .build 2>/dev/null || id -u)
if [[ $owner == "$(id -u)" && $config == debug ]]; then
    swift build >&2  # one no-op run after `swift build --build-tests`, instead of six
elif [[ $owner == "$(id -u)" ]]; then
    for tool in "${astra_tools[@]}"; do swift build "${flags[@]}" --product "$tool" >&2; done
else
    echo "install: .build belongs to uid $owner: installing what is built there, not rebuilding as uid $(id -u)" >&2
fi
bin=$(swift build -c "$config" --show-bin-path)
for tool in "${astra_tools[@]}"; do
    [[ -x $bin/$tool ]] || fail 1 "$bin/$tool is not built: run 'make build-release' (as the owner of .build) first"
done
manifest | while read -r mode source target; do
    install -D -m "$mode" -- "$source" "$root/$target"
    echo "install: $root/$target" >&2
done
