# class_lib.bash - a simulated workshop for the class report tests (sourced,
# not a test itself). Each learner is a private state directory ($USER set to
# the learner's id) running the real mgpulab on the sim under the class
# configuration; their exports land in one folder as at a workshop.
#
#   class_config FILE    writes the class configuration (labs 0 and 1 on
#                        sim dgx-h100, a roster of nine) and exports it
#   learner ID           the following mgpulab calls act as learner ID
#   as_learner ID CMD..  one call as learner ID
#   solve ID LAB FILE    copies the reference solution into ID's workspace
#   make_class DIR       the whole class below, exports into DIR
#   make_NAME DIR        one learner of it (make_ada DIR, ...)
#
# The class (labs 00-welcome and 01-topology):
#   ada       everything of lab 0 right (hello.lua on her second run), lab 1
#             step 1 right
#   alan      lab 0 step 2 wrong twice (gpus 4, then 16) before 8; hello.lua
#             unsolved (two failed runs, two hints); lab 1 step 1 unanswered
#   grace     exported twice: early (grace2.json) and later (grace.json,
#             step 2 answered gpus=4)
#   ghopper   a second "Grace Hopper": step 1 only
#   linus     lab 0 on the SIMULATED pcie-4gpu, not the class's dgx-h100
#   margaret  read step 1, then edited progress.json to say every step passed
#   katherine on the roster, never started
#   barbara   "Barbara | Liskov": asked for hello.lua's solution and passed
#   dennis    read step 1; his export then edited by hand: attempts -1, a
#             state "done", a lab the class does not run
#   ken       not on the roster: read step 1
# plus damaged.json (an upload cut short) and foreign.json (not a report).

: "${bin:?set bin to the mgpulab under test}" "${src:?set src to the source tree}" "${tmp:?set tmp}"

CLASS_IDS="ada alan grace ghopper linus margaret katherine barbara dennis"

class_config() {
    cat >"$1" <<'J'
{"name": "Test class", "backend": "sim", "machine": "dgx-h100",
 "labs": ["00-welcome", "01-topology"],
 "roster": [{"id": "ada", "name": "Ada Lovelace"}, {"id": "alan", "name": "Alan Turing"},
            {"id": "grace", "name": "Grace Hopper"}, {"id": "ghopper"}, {"id": "linus", "name": "Linus Torvalds"},
            {"id": "margaret", "name": "Margaret Hamilton"}, {"id": "katherine", "name": "Katherine Johnson"},
            {"id": "barbara"}, {"id": "dennis", "name": "Dennis Ritchie"}]}
J
    export MGPULAB_CLASS=$1
}

learner() {
    export USER=$1 XDG_STATE_HOME=$tmp/learners/$1
    mkdir -p "$XDG_STATE_HOME"
}

as_learner() {
    local id=$1
    shift
    (learner "$id" && "$bin" "$@")
}

solve() {
    local dir=$tmp/learners/$1/mgpulab/work/$2
    mkdir -p "$dir"
    cp "$src/labs/$2/solutions/$3" "$dir/$3"
}

# mgpulab quietly (the verdicts are not what these tests read)
q() { "$@" >/dev/null 2>&1; }

make_ada() {
    q as_learner ada run 0 --answer backend=sim --answer gpus=8 --answer emulated=no
    solve ada 00-welcome hello.lua
    q as_learner ada run 0 --step 3
    q as_learner ada run 1 --step 1 --answer link01=NV18 --answer nvdomain=8 --answer peak01=450
    q as_learner ada report --export "$1/ada.json" --name "Ada Lovelace" --id ada
}

make_alan() {
    q as_learner alan run 0 --answer backend=sim --answer gpus=4 --answer emulated=no
    sleep 1 # time on task: the pass comes seconds after the first run
    q as_learner alan run 0 --step 2 --answer gpus=16
    sleep 1
    q as_learner alan run 0 --step 2 --answer gpus=8
    q as_learner alan run 0 --step 3
    q as_learner alan hint 0 --step 3
    q as_learner alan hint 0 --step 3
    q as_learner alan run 1 --step 1
    q as_learner alan report --export "$1/alan.json" --name "Alan Turing"
}

make_grace() {
    q as_learner grace run 0 --step 1
    q as_learner grace report --export "$1/grace2.json" --name "Grace Hopper"
    sleep 1 # a newer export: "created" counts seconds
    q as_learner grace run 0 --step 2 --answer backend=sim --answer gpus=4 --answer emulated=no
    q as_learner grace report --export "$1/grace.json" --name "Grace Hopper"
}

make_ghopper() {
    q as_learner ghopper run 0 --step 1
    q as_learner ghopper report --export "$1/ghopper.json" --name "Grace Hopper"
}

make_linus() {
    q as_learner linus run 0 --machine pcie-4gpu --answer backend=sim --answer gpus=4 --answer emulated=no
    q as_learner linus report --export "$1/linus.json" --name "Linus Torvalds"
}

make_margaret() {
    q as_learner margaret run 0 --step 1
    python3 - "$tmp/learners/margaret/mgpulab/progress.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for lab, steps in {"00-welcome": ["shell", "backends", "hello", "progress"],
                   "01-topology": ["matrix", "affinity", "peer", "xml"]}.items():
    for s in steps:
        p["labs"].setdefault(lab, {"steps": {}})["steps"][s] = {"state": "passed", "attempts": 1, "last_run": 1796500000}
json.dump(p, open(sys.argv[1], "w"))
PY
    q as_learner margaret report --export "$1/margaret.json" --name "Margaret Hamilton"
}

make_barbara() {
    q as_learner barbara run 0 --step 1
    q as_learner barbara run 0 --step 2 --answer backend=sim --answer gpus=8 --answer emulated=no
    q as_learner barbara hint 0 --step 3 --solution
    solve barbara 00-welcome hello.lua
    q as_learner barbara run 0 --step 3
    q as_learner barbara report --export "$1/barbara.json" --name "Barbara | Liskov"
}

make_dennis() {
    q as_learner dennis run 0 --step 1
    q as_learner dennis report --export "$1/dennis.json" --name "Dennis Ritchie"
    python3 - "$1/dennis.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = {s["id"]: s for s in d["labs"][0]["steps"]}
steps["hello"].update(state="failed", attempts=-1)
steps["progress"].update(state="done", attempts=1)
d["labs"].append({"id": "03-p2p", "title": "P2P", "steps": [{"id": "pinned", "title": "Pinned", "state": "passed",
                                                               "attempts": 1}]})
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
}

make_ken() {
    q as_learner ken run 0 --step 1
    q as_learner ken report --export "$1/ken.json" --name "Ken Thompson"
}

# damaged.json (an upload cut short) and foreign.json (not a report)
make_bad_files() {
    head -c 700 "$1/$2" >"$1/damaged.json"
    echo '{"some": "other tool"}' >"$1/foreign.json"
}

make_class() {
    mkdir -p "$1"
    for who in ada alan grace ghopper linus margaret barbara dennis ken; do "make_$who" "$1"; done
    make_bad_files "$1" ada.json
}
