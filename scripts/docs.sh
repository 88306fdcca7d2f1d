#!/usr/bin/env bash
# make docs: API documentation of the library products with the toolchain's own docc
# (docs/decisions.md D38). Symbol graphs come from the debug build (`swift package
# dump-symbol-graph`: the same build flags, so nothing is rebuilt), one `docc convert` per product
# with its catalog Modules/<Module>/<Module>.docc (the landing page), static-hosting output under
# .build/docs/<Module>/ and an index at .build/docs/index.html. Fails on any docc warning — a
# broken symbol link, a parameter documented that does not exist — so the docs cannot rot.
# Usage: scripts/docs.sh [MODULE…]   (default: every library product)
# Serve it (docc sites load their JSON by fetch, so file:// does not work):
#   python3 -m http.server -d .build/docs -b 127.0.0.1 8000   → http://127.0.0.1:8000/
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
products=("$@")
[[ ${#products[@]} -gt 0 ]] || products=(SIPCore SIPTransport SIPDialog Media CallSession Provisioning PushKitEmu AstraJSON Metrics)
out=.build/docs
started=$SECONDS
echo "== docs: symbol graphs (swift package dump-symbol-graph)" >&2
swift package dump-symbol-graph --minimum-access-level public >.build/docs-symbol-graph.log 2>&1 || {
    cat .build/docs-symbol-graph.log >&2
    echo "docs: swift package dump-symbol-graph failed" >&2
    exit 1
}
graphs=$(sed -n 's/^Files written to //p' .build/docs-symbol-graph.log | tail -n 1)
[[ -n $graphs && -d $graphs ]] || graphs="$(swift build --show-bin-path)/../symbolgraph"
[[ -d $graphs ]] || { echo "docs: no symbol graphs under $graphs" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out" .build/docs-graphs
status=0
index=""
for module in "${products[@]}"; do
    catalog=Modules/$module/$module.docc
    [[ -d $catalog ]] || { echo "docs: $catalog is missing (every product has a catalog)" >&2; status=1; continue; }
    # Only this module's graphs: its own and its extensions of other modules' types (Module@Other).
    own=.build/docs-graphs/$module
    rm -rf "$own" && mkdir -p "$own"
    cp "$graphs/$module.symbols.json" "$own/" 2>/dev/null || { echo "docs: no symbol graph for $module" >&2; status=1; continue; }
    cp "$graphs/$module@"*.symbols.json "$own/" 2>/dev/null || true
    echo "== docs: $module" >&2
    if ! docc convert "$catalog" --additional-symbol-graph-dir "$own" --output-path "$out/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.astrasip.$module" \
        --transform-for-static-hosting --hosting-base-path "$module" --warnings-as-errors \
        >".build/docs-$module.log" 2>&1; then
        grep -E 'warning|error' ".build/docs-$module.log" >&2 || cat ".build/docs-$module.log" >&2
        echo "docs: FAIL $module (docc diagnostics above; links to another module's symbols go in single backticks)" >&2
        status=1
        continue
    fi
    lower=$(tr '[:upper:]' '[:lower:]' <<<"$module")
    index+="<li><a href=\"$module/documentation/$lower\">$module</a></li>"
done
cat >"$out/index.html" <<HTML
<!doctype html><meta charset="utf-8"><title>AstraSIP API</title>
<h1>AstraSIP library products</h1><ul>$index</ul>
HTML
echo "== docs: ${products[*]} in $((SECONDS - started)) s → $out/index.html" >&2
exit $status
