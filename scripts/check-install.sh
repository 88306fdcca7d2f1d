#!/usr/bin/env bash
# The install test (make test, after phase 1): `make install PREFIX=$(mktemp -d)` with the debug
# build make test has just built (CONFIG=debug: the release build would add minutes; the files
# and the layout are the same), then from that prefix:
#   - each tool's --version prints `<tool> <version>`, the same version for all;
#   - `man -l share/man/man1/astra-register.1` renders, without a groff warning;
#   - in `bash -i`, the installed completion (found by `complete -p`) completes
#     `astra-register --tr` to `--transport`, and a few more words (subcommand, enumerated value,
#     --opt=value);
#   - each zsh completion parses (`zsh -n`), when zsh is installed;
#   - `make install DESTDIR=… PREFIX=/usr/local` stages under DESTDIR, and `make uninstall`
#     leaves no file behind in either tree.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/tools.sh
prefix=$(mktemp -d)
stage=$(mktemp -d)
trap 'rm -rf "$prefix" "$stage"' EXIT
status=0
check() {  # check <what> <command...>: one line per check, ok or FAIL
    local what=$1
    shift
    if "$@"; then echo "check-install: ok: $what" >&2; else echo "check-install: FAIL: $what" >&2; status=1; fi
}
make -s install PREFIX="$prefix" CONFIG=debug 2>/dev/null || { echo "check-install: FAIL: make install PREFIX=$prefix" >&2; exit 1; }

version=
for tool in "${astra_tools[@]}"; do
    out=$("$prefix/bin/$tool" --version 2>&1)
    echo "check-install: $prefix/bin/$tool --version: $out" >&2
    [[ -z $version ]] && version=${out#"$tool "}
    check "$tool --version" test "$out" = "$tool $version"
done
check "version looks like x.y.z ($version)" eval '[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]'

man_out=$(MANWIDTH=100 MANPAGER=cat man --warnings -l "$prefix/share/man/man1/astra-register.1" 2>"$prefix/man.err")
check "man -l share/man/man1/astra-register.1 renders" eval '[[ $man_out == *ASTRA-REGISTER* && $man_out == *--transport* ]]'
check "man -l: no groff warning" test ! -s "$prefix/man.err"
rm -f "$prefix/man.err"

# complete <words...>: what the installed completion offers for the last word, in `bash -i`.
complete_words() {
    bash --norc --noprofile -i -c '
        source "$1"; shift
        function=$(complete -p "$1" 2>/dev/null | sed -n "s/.*-F \([^ ]*\) $1\$/\1/p" | head -1)
        [[ -n $function ]] || { echo "no completion registered for $1" >&2; exit 1; }
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        "$function" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix/share/bash-completion/completions/$1" "$@" 2>/dev/null
}
check "bash: astra-register --tr -> --transport" test "$(complete_words astra-register --tr)" = "--transport"
check "bash: astra-register --transport w -> ws wss" test "$(complete_words astra-register --transport w | tr '\n' ' ')" = "ws wss "
check "bash: astra-register --transport = t -> tcp tls" test "$(complete_words astra-register --transport = t | tr '\n' ' ')" = "tcp tls "
check "bash: astra-qr en -> encode" test "$(complete_words astra-qr en)" = "encode"
check "bash: astra-qr encode --type P -> PNG PGM" test "$(complete_words astra-qr encode --type P | tr '\n' ' ')" = "PNG PGM "
check "bash: astra-call dial --for -> --format" test "$(complete_words astra-call dial --for)" = "--format"
if command -v zsh >/dev/null; then
    for tool in "${astra_tools[@]}"; do check "zsh -n _$tool" zsh -n "$prefix/share/zsh/site-functions/_$tool"; done
else
    echo "check-install: zsh not installed: zsh completions not parsed" >&2
fi

make -s uninstall PREFIX="$prefix" 2>/dev/null
check "make uninstall PREFIX leaves no file" test -z "$(find "$prefix" -type f -o -type l)"
make -s install DESTDIR="$stage" PREFIX=/usr/local CONFIG=debug 2>/dev/null
check "make install DESTDIR stages under DESTDIR" test -x "$stage/usr/local/bin/astra-register" -a -f "$stage/usr/local/share/man/man1/astra-register.1"
make -s uninstall DESTDIR="$stage" PREFIX=/usr/local 2>/dev/null
check "make uninstall DESTDIR leaves no file" test -z "$(find "$stage" -type f -o -type l)"
bad=$(make -s install PREFIX=relative/dir 2>&1 >/dev/null)
check "make install PREFIX=relative: one clear line, exit 64" eval '[[ $bad == *"PREFIX must be an absolute path"* ]] && { PREFIX=relative/dir scripts/install.sh install 2>/dev/null; [[ $? -eq 64 ]]; }'
exit $status
