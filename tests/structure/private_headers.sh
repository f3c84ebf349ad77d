#!/usr/bin/env bash
# private_headers.sh - one module, one folder: a file in engine/FOLDER/ may
# include its own folder's headers ("FOLDER/x.h") and the public ones
# ("mgpu/x.h", engine/include/mgpu/), never another folder's private header;
# cli/ and shell/ reach the engine only through mgpu/. Unit tests may look
# inside a module (they test its internals) and are not checked.
#
# usage: private_headers.sh [MGPULAB] - the argument (the binary CTest
# passes) is ignored; the tree checked is MGPU_SOURCE_DIR or this checkout.
# Before checking the real tree the checker is run on a fixture with one
# bad include and must catch it, so this test can fail.
set -uo pipefail
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

# check ROOT: print "file: includes header (another folder's private header)"
# for every offence under ROOT; exit 1 when there is one.
check() {
    local root=$1 bad=0 rel inc folder top
    # one grep over the tree: "path:header" for every quoted include with a folder
    while IFS=: read -r rel inc; do
        rel=${rel#"$root"/}
        case $rel in
            engine/include/*) continue ;;
            engine/*/*) folder=${rel#engine/}; folder=${folder%%/*} ;;
            *) folder="" ;;  # cli/ and shell/
        esac
        top=${inc%%/*}
        [[ $top == mgpu || $top == "$folder" ]] && continue
        # cli/ and shell/ may include each other's headers; only the engine's
        # folders are private.
        [[ -z $folder && ! -d $root/engine/$top ]] && continue
        echo "${rel}: includes \"$inc\" (private to engine/$top; use a public header in engine/include/mgpu/)"
        bad=1
    done < <(grep -rHo --include='*.c' --include='*.h' --include='*.cu' \
                 -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*/[^"]*"' \
                 "$root/engine" "$root/cli" "$root/shell" 2>/dev/null |
             sed -E 's/^([^:]*):.*"([^"]*)".*/\1:\2/' | sort)
    return $bad
}

fixture=$(mktemp -d)
trap 'rm -rf "$fixture"' EXIT
mkdir -p "$fixture/engine/topo" "$fixture/engine/dev" "$fixture/engine/include/mgpu" "$fixture/cli"
printf '#include "dev/backend.h"\n' > "$fixture/engine/topo/discover.c"
printf '#include "dev/backend.h"\n#include "mgpu/dev.h"\n' > "$fixture/engine/dev/dev.c"
printf '#include "mgpu/dev.h"\n#include "cmd.h"\n' > "$fixture/cli/main.c"
out=$(check "$fixture")
if [[ $? -eq 0 || $out != *"engine/topo/discover.c: includes \"dev/backend.h\""* || $(wc -l <<<"$out") -ne 1 ]]; then
    echo "FAIL: the checker did not catch exactly the fixture's one bad include:"
    echo "$out"
    exit 1
fi
echo "ok - the checker catches a folder including another folder's private header"

if ! check "$src"; then
    echo "FAIL: the files above include another folder's private header"
    exit 1
fi
echo "ok - no file includes another folder's private header"
