#!/usr/bin/env bash
# hostile_labs.sh - labs that try to read outside their directory, block the
# reader, or let an exercise pass its own check (issue 16 items 6, 12, 15).
. "$(dirname "$0")/hostile_lib.bash"
labs=$tmp/labs
export MGPULAB_LABS=$labs MGPULAB_CHECKS=$src/tests/data/labs/checks
secret=$tmp/secret.txt
echo "TOP-SECRET-LINE" >"$secret"
mk() { mkdir -p "$labs/$1/steps" "$labs/$1/exercises"; }

# 01: a step text and an exercise that are links to a file outside the lab
mk 01-textlink
ln -s "$secret" "$labs/01-textlink/steps/t.md"
printf 'return { title = "Text link", steps = { { id = "t", title = "T", text = "steps/t.md" } } }\n' \
  >"$labs/01-textlink/lab.lua"
mk 02-exlink
ln -s "$secret" "$labs/02-exlink/exercises/ex.lua"
printf 'return { title = "Exercise link", steps = { { id = "e", title = "E", exercise = "ex.lua",\n  run = function(lab) return lab.read(lab.exercise) end } } }\n' \
  >"$labs/02-exlink/lab.lua"
# 03: a step text linked to /dev/zero (streamed for ever by the reader)
mk 03-zero
ln -s /dev/zero "$labs/03-zero/steps/z.md"
printf 'return { title = "Zero", steps = { { id = "z", title = "Z", text = "steps/z.md" } } }\n' >"$labs/03-zero/lab.lua"
# 04: lab.lua is a FIFO nobody writes to
mkdir -p "$labs/04-fifo" && mkfifo "$labs/04-fifo/lab.lua"
# 05: an exercise that replaces the check library and its own check
mk 05-cheat
cat >"$labs/05-cheat/exercises/sum.lua" <<'LUA'
checks.equals = function() return { ok = true, msg = "all good" } end
return function(a, b) return 0 end
LUA
cat >"$labs/05-cheat/lab.lua" <<'LUA'
return { title = "Cheat", steps = { { id = "sum", title = "Sum", exercise = "sum.lua",
  run = function(lab) local ok, f = pcall(lab.load, lab.exercise); return { ok = ok, f = f } end,
  check = function(lab, r)
    return checks.equals{ value = r.ok and type(r.f) == "function" and r.f(2, 3) or tostring(r.f),
                          expected = 5, what = "sum(2, 3)", where = "sum.lua" }
  end } } }
LUA
# 06: 50000 steps load (the id check was quadratic, then capped at 256);
# 07: the same with the last id a repeat of the first, which is named
mk 06-many
mk 07-dup
{ echo 'local s = {}'
  echo 'for i = 1, 50000 do s[i] = { id = "s" .. i, title = "S" } end'
  echo 'return { title = "Many", steps = s }'; } >"$labs/06-many/lab.lua"
sed 's/return {/s[#s].id = "s1"; return {/' "$labs/06-many/lab.lua" >"$labs/07-dup/lab.lua"
# 08: ranks = 2^32 + 2, which a bare cast read as 2 ranks (second pass of
# issue 34); 09: a fraction
mk 08-ranks
mk 09-ranks
printf 'return { title = "Ranks", ranks = (1 << 32) + 2, steps = { { id = "r", title = "R" } } }\n' >"$labs/08-ranks/lab.lua"
printf 'return { title = "Ranks", ranks = 2.5, steps = { { id = "r", title = "R" } } }\n' >"$labs/09-ranks/lab.lua"

hrun "$tmp/list" list
[ $rc -eq 0 ] && ok || { bad "list: exit $rc (a FIFO lab.lua or /dev/zero text blocks it?)"; cat "$tmp/list"; }
has "$tmp/list" "01-textlink +BROKEN .*leads out of the lab" && ok || { bad "a text linked out of the lab loads"; cat "$tmp/list"; }
has "$tmp/list" "02-exlink +BROKEN .*leads out of the lab" && ok || { bad "an exercise linked out of the lab loads"; cat "$tmp/list"; }
has "$tmp/list" "03-zero +BROKEN .*(leads out of the lab|not a regular file)" && ok || { bad "a text linked to /dev/zero loads"; cat "$tmp/list"; }
has "$tmp/list" "04-fifo +BROKEN .*FIFO" && ok || { bad "a FIFO lab.lua is not named"; cat "$tmp/list"; }
has "$tmp/list" " Many +0/0 passed, 0/50000 read" && ok || { bad "a lab of 50000 steps does not load"; cat "$tmp/list"; }
has "$tmp/list" '07-dup +BROKEN .*steps 1 and 50000 share the id "s1"' && ok || { bad "a repeated id among 50000 steps"; cat "$tmp/list"; }
has "$tmp/list" '08-ranks +BROKEN .*labs/08-ranks/lab.lua: `ranks` must be an integer 1..4096, got 4294967298' && ok ||
  { bad "ranks = 2^32 + 2 loads"; grep 08-ranks "$tmp/list"; }
has "$tmp/list" '09-ranks +BROKEN .*`ranks` must be an integer 1..4096, got a number with a fraction' && ok ||
  { bad "ranks = 2.5 is not named"; grep 09-ranks "$tmp/list"; }
! grep -rq "TOP-SECRET" "$tmp/list" "$XDG_STATE_HOME" 2>/dev/null && ok || bad "the secret reached the output or the workspace"
hrun "$tmp/t" run 1 --text
! has "$tmp/t" "TOP-SECRET" && ok || { bad "run --text printed a file outside the lab"; cat "$tmp/t"; }
hrun "$tmp/e" run 2 --backend sim
! has "$tmp/e" "TOP-SECRET" && ok || { bad "lab.read(lab.exercise) returned a file outside the lab"; cat "$tmp/e"; }

hrun "$tmp/c" run 5 --backend sim
has "$tmp/c" "^FAIL" && ! has "$tmp/c" "^PASS" && has "$tmp/c" "belongs to the lab" && ok ||
  { bad "an exercise replaced checks.equals and passed"; cat "$tmp/c"; }

# corrupt state: progress.json as a FIFO must be named, not block every command
mkdir -p "$XDG_STATE_HOME/mgpulab" && rm -f "$XDG_STATE_HOME/mgpulab/progress.json"
mkfifo "$XDG_STATE_HOME/mgpulab/progress.json"
hrun "$tmp/pf" list
[ $rc -ne 137 ] && has "$tmp/pf" "progress.json is not a regular file" && ok || { bad "a FIFO progress.json: exit $rc"; cat "$tmp/pf"; }
finish
