#!/usr/bin/env bash
# layers.sh - a file calls down, never up: every call (or use of a global)
# from one folder into another, and every header a file's compilation
# reads from another folder, goes down docs/ARCHITECTURE.md's layer order
# (its "Layer order" line, read here so the page and the test cannot
# drift). Folders on one rank ("bench, whatif, lua") are peers and may not
# call each other either. It also finds the call circles, groups of files
# that reach each other through calls, and fails on one wider than two
# files (issue 32): a pair calling each other is a file and its helper, a
# wider circle is a file calling back up what calls it (split the shared
# piece into a third file, or pass it down).
#
# How: the compiler's own output, nothing parsed from the sources. For each
# object the build compiled (compile_commands.json: the source and its -o),
# `nm` says which symbols the file defines and which it uses undefined; a
# use resolves to the file that defines it. The headers a file read are its
# dependency file (X.o.d, written by -MD). A public header
# (engine/include/mgpu/) is every folder's; its functions count where they
# are defined, through nm.
#
# usage: layers.sh MGPULAB - the binary CTest passes: its directory is the
# build tree whose objects are checked. Before checking the real tree the
# checker runs on two fixtures (objects compiled here: one calling up, one
# a circle of three files) and must catch each, so this test can fail.
set -uo pipefail
src=${MGPU_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${1:?usage: layers.sh MGPULAB (its directory is the build tree checked)}
build=$(cd "$(dirname "$bin")" && pwd)
command -v nm >/dev/null || { echo "FAIL: nm (binutils) is needed"; exit 1; }

# check SRC BUILD DOC: the layer check on one build tree; exit 1 on an
# upward (or sideways) call or include, or a call circle of three or more
# files.
check() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, os, re, shlex, subprocess, sys
src, build, doc = (os.path.realpath(p) for p in sys.argv[1:4])

# The layer order, bottom up: "a -> b -> c, d -> e" (c and d are peers).
order = None
for line in open(doc, encoding='utf-8'):
    m = re.match(r'\s*Layer order[^:]*:\s*(.*?)\s*\.?\s*$', line)
    if m:
        order = m.group(1)
        break
if not order:
    sys.exit(f'FAIL: {doc} has no "Layer order (...): a -> b -> ..." line')
rank = {}
for r, step in enumerate(order.split('->')):
    for name in step.split(','):
        rank[name.strip().strip('`')] = r

def folder(path):
    """The layer a source or header belongs to, or None (public, outside)."""
    rel = os.path.relpath(os.path.realpath(os.path.join(src, path)), src)
    parts = rel.split(os.sep)
    if parts[0] == 'engine' and len(parts) > 2 and parts[1] != 'include':
        return parts[1]           # engine/dev/mem/x.c is dev's
    if parts[0] in ('cli', 'shell') and len(parts) > 1:
        return parts[0]
    return None

# The objects the build compiled for the program, with their sources (the
# top directory's targets: tests compile some cli/ files again, elsewhere).
objs = {}
for e in json.load(open(os.path.join(build, 'compile_commands.json'))):
    f = os.path.realpath(e['file'])
    if folder(f) is None or os.path.realpath(e['directory']) != build:
        continue
    args = shlex.split(e['command'])
    if '-o' not in args:
        continue
    o = args[args.index('-o') + 1]
    objs[os.path.relpath(f, src)] = os.path.join(e['directory'], o)
unknown = sorted({folder(f) for f in objs} - set(rank))
if unknown:
    sys.exit(f'FAIL: folders not in the layer order: {", ".join(unknown)} (add them to {doc})')

defs, uses = {}, {}
for f, o in sorted(objs.items()):
    if not os.path.exists(o):
        sys.exit(f'FAIL: {o} is missing: build the tree first')
    out = subprocess.run(['nm', '-P', o], capture_output=True, text=True, check=True).stdout
    uses[f] = set()
    for line in out.splitlines():
        w = line.split()
        if len(w) < 2:
            continue
        if w[1] == 'U':
            uses[f].add(w[0])
        elif w[1] in 'TDBRCG':    # strong global definitions (not weak, not local)
            defs.setdefault(w[0], f)

bad = []
calls = {f: set() for f in objs}
for f in sorted(uses):
    for sym in sorted(uses[f]):
        g = defs.get(sym)
        if not g or g == f:
            continue
        calls[f].add(g)
        a, b = folder(f), folder(g)
        if a != b and rank[b] >= rank[a]:
            how = 'up' if rank[b] > rank[a] else 'sideways, to a peer'
            bad.append(f'{f}: calls {sym} in {g} ({a} -> {b}: {how})')

# Headers: what each compilation read (the -MD dependency file).
for f, o in sorted(objs.items()):
    d = o + '.d'
    if not os.path.exists(d):
        continue
    text = open(d, encoding='utf-8', errors='replace').read().replace('\\\n', ' ')
    deps = text.split(':', 1)[1].split() if ':' in text else []
    a = folder(f)
    for h in sorted(set(deps)):
        if not h.endswith(('.h', '.cuh')):
            continue
        hp = h if os.path.isabs(h) else os.path.join(os.path.dirname(o), h)
        b = folder(hp)
        if b and b != a and b in rank and rank[b] >= rank[a]:
            how = 'up' if rank[b] > rank[a] else 'sideways, to a peer'
            bad.append(f'{f}: reads {os.path.relpath(os.path.realpath(hp), src)} ({a} -> {b}: {how})')

for line in bad:
    print('  ' + line)
ncalls = sum(1 for l in bad if ': calls ' in l)
print(f'{ncalls} upward calls, {len(bad) - ncalls} upward includes '
      f'({len(objs)} files, {sum(len(v) for v in calls.values())} file-to-file calls)')

# Call circles: strongly connected groups of files (Tarjan, iterative).
index, low, on, stack, sccs, n = {}, {}, set(), [], [], 0
for root in sorted(calls):
    if root in index:
        continue
    work = [(root, iter(sorted(calls[root])))]
    index[root] = low[root] = n; n += 1; stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = n; n += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(calls[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop(); on.discard(w); scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                sccs.append(sorted(scc))
sccs.sort(key=lambda s: (-len(s), s))
width = len(sccs[0]) if sccs else 1
wide = [s for s in sccs if len(s) > 2]
print(f'call circles: {len(sccs)}, the widest {width} files')
for s in wide:
    print(f'  a call circle of {len(s)} files (two at most): {" ".join(s)}')
sys.exit(1 if bad or wide else 0)
PY
}

# fixture DIR FILE...: compile the fixture's sources (written under DIR)
# into DIR/build with their compile_commands.json and dependency files,
# as the real build leaves them, and a layer order of core -> lab -> cli.
cc=${CC:-cc}
fixture() {
    local dir=$1 f o entries=()
    shift
    mkdir -p "$dir/build" "$dir/docs"
    printf 'Layer order (bottom up): core -> lab -> cli\n' > "$dir/docs/ARCHITECTURE.md"
    for f in "$@"; do
        o=$dir/build/${f//\//_}.o
        "$cc" -c -MD -MF "$o.d" "$dir/$f" -o "$o" || { echo "FAIL: cannot compile the fixture with $cc"; exit 1; }
        entries+=("{\"directory\": \"$dir/build\", \"file\": \"$dir/$f\", \"command\": \"$cc -MD -MF $o.d -c $dir/$f -o $o\"}")
    done
    (IFS=,; printf '[%s]\n' "${entries[*]}") > "$dir/build/compile_commands.json"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The first fixture: engine/core/a.c calls lab_b() of engine/lab/b.c (up)
# and includes lab's b.h (up), and b.c calls core_a() back (down, fine):
# exactly one upward call, one upward include and one circle of two files.
up=$tmp/up
mkdir -p "$up/engine/core" "$up/engine/lab"
printf 'int lab_b(void);\n' > "$up/engine/lab/b.h"
printf '#include "../lab/b.h"\nint core_a(void) { return lab_b(); }\n' > "$up/engine/core/a.c"
printf 'int core_a(void);\nint lab_b(void) { return 1; }\nint lab_c(void) { return core_a(); }\n' \
    > "$up/engine/lab/b.c"
fixture "$up" engine/core/a.c engine/lab/b.c
out=$(check "$up" "$up/build" "$up/docs/ARCHITECTURE.md")
if [[ $? -eq 0 || $out != *"engine/core/a.c: calls lab_b in engine/lab/b.c (core -> lab: up)"* ||
      $out != *"engine/core/a.c: reads engine/lab/b.h (core -> lab: up)"* ||
      $out != *"1 upward calls, 1 upward includes"* || $out != *"call circles: 1, the widest 2 files"* ||
      $out == *"a call circle of"* ]]; then
    echo "FAIL: the checker did not catch exactly the fixture's one upward call and include:"
    echo "$out"
    exit 1
fi
echo "ok - the checker catches a call and an include up the layers"

# The second fixture: three files of one folder, each calling the next
# (x -> y -> z -> x), as a model calling back up into its renderer and the
# renderer into the command would: no call goes up a layer, and the
# circle of three alone must fail the check, named file by file.
wide=$tmp/wide
mkdir -p "$wide/cli"
printf 'int y(void);\nint x(void) { return y(); }\n' > "$wide/cli/x.c"
printf 'int z(void);\nint y(void) { return z(); }\n' > "$wide/cli/y.c"
printf 'int x(void);\nint z(void) { return x(); }\n' > "$wide/cli/z.c"
fixture "$wide" cli/x.c cli/y.c cli/z.c
out=$(check "$wide" "$wide/build" "$wide/docs/ARCHITECTURE.md")
if [[ $? -eq 0 || $out != *"0 upward calls, 0 upward includes"* ||
      $out != *"a call circle of 3 files (two at most): cli/x.c cli/y.c cli/z.c"* ]]; then
    echo "FAIL: the checker did not fail on the fixture's circle of three files:"
    echo "$out"
    exit 1
fi
echo "ok - the checker fails on a call circle of three files and names them"

if [[ ! -f $build/compile_commands.json ]]; then
    echo "FAIL: $build has no compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS is on in CMakeLists.txt)"
    exit 1
fi
if ! check "$src" "$build" "$src/docs/ARCHITECTURE.md"; then
    echo "FAIL: the calls or includes above go up (or sideways) docs/ARCHITECTURE.md's layer order, or files"
    echo "      call each other in a circle wider than two (move what they share into a file below them)"
    exit 1
fi
echo "ok - every call and include goes down the layer order, and no call circle is wider than two files"
