#!/usr/bin/env bash
# lab_dir_link.sh - a lab directory that is a symbolic link to a folder
# outside the labs root loaded (issue 34, low): its files all lay "inside
# the lab", so lab.read and the step texts reached whatever the link named.
# It must be refused as a linked file is ("leads out of the ... directory"),
# while a link to another lab inside the root still loads.
. "$(dirname "$0")/hostile_lib.bash"
labs=$tmp/labs
export MGPULAB_LABS=$labs MGPULAB_CHECKS=$src/tests/data/labs/checks
mkdir -p "$labs/01-inside/steps" "$tmp/outside/steps"
printf 'return { title = "Inside", steps = { { id = "t", title = "T", text = "steps/t.md" } } }\n' >"$labs/01-inside/lab.lua"
echo "# Inside" >"$labs/01-inside/steps/t.md"
printf 'return { title = "Outside", steps = { { id = "t", title = "T", text = "steps/t.md" } } }\n' >"$tmp/outside/lab.lua"
echo "OUTSIDE-TEXT" >"$tmp/outside/steps/t.md"
ln -s "$tmp/outside" "$labs/02-outside"
ln -s "$labs/01-inside" "$labs/03-alias"

hrun "$tmp/list" list
[ $rc -eq 0 ] && ok || { bad "list: exit $rc"; cat "$tmp/list"; }
has "$tmp/list" "02-outside +BROKEN .*leads out of the labs directory" && ok ||
  { bad "a lab directory linked from outside the labs root loads"; cat "$tmp/list"; }
! has "$tmp/list" "Outside" && ok || { bad "the outside lab's title was read"; cat "$tmp/list"; }
[ "$(grep -cE '^ *[13] +Inside ' "$tmp/list")" = 2 ] && ok ||
  { bad "the lab inside the root, or a link to it from beside it, does not load"; cat "$tmp/list"; }
hrun "$tmp/t" run 2 --text
! has "$tmp/t" "OUTSIDE-TEXT" && ok || { bad "run --text printed the outside lab's step"; cat "$tmp/t"; }
finish
