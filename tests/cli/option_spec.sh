#!/usr/bin/env bash
# option_spec.sh - every command's options come from its declared table
# (cli/options.h), so every command refuses bad usage alike (issue 32 item
# 3). For each command `mgpulab --list-commands` names, and for the global
# options, from its own `--list-options`:
#   - an unknown option exits 2 and names it;
#   - each option with a bad value (a word no kind accepts, an empty value,
#     a value given to a flag) exits 2 and names the option;
#   - each option that is not repeatable, given twice, exits 2 with "given twice";
#   - `--help` shows every declared option.
# Nothing is run: every case is refused while the command line is read.
set -u
bin=$1
tmp=$(mktemp -d /tmp/mgpu-option-spec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config LANG=C LC_ALL=C
unset MGPULAB_CLASS
fail=0; pass=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

# refused PATTERN ARGS...: exit 2 and PATTERN (a fixed string) on stderr
refused() {
  local pat=$1; shift
  timeout 60 "$bin" "$@" >"$tmp/o" 2>"$tmp/e"; local rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$pat" "$tmp/e"; then ok
  else bad "mgpulab $* -> rc=$rc (want 2 and '$pat' on stderr)"; head -c 400 "$tmp/e"; fi
}

# A value the option takes: the first choice, the range's low end, a word.
good_value() { # KIND VALUES
  case $1 in
    enum) echo "${2%%,*}" ;;
    int|double|size) if [ "$2" = - ]; then echo 64; else
                       awk -v r="$2" 'BEGIN { split(r, a, /\.\./); v = a[1] + 0; if (v == 0 && a[2] + 0 > 1) v = (a[2] + 0) / 2; printf "%.0f\n", v }'; fi ;;
    seconds) echo 5 ;;
    *) echo word ;;
  esac
}

# check_options WHO PREFIX...: the cases for one option table; PREFIX is
# the words before an option ("topo" for the global options, "run" ...).
check_options() {
  local who=$1; shift
  local list help
  local asked=("$@")
  [ "$who" = global ] && asked=() # the global table is mgpulab's own
  list=$(timeout 60 "$bin" "${asked[@]}" --list-options 2>&1) || { bad "$who --list-options failed: $list"; return; }
  help=$(timeout 60 "$bin" "${asked[@]}" --help 2>&1) || { bad "$who --help failed"; return; }
  [ -n "$list" ] || [ "$who" = reset ] || bad "$who lists no options"
  refused "unknown option '--no-such-option'" "$@" --no-such-option
  local name short kind values times
  while IFS=$'\t' read -r name short kind values times; do
    [ -n "$name" ] || continue
    # --help shows it (an alias on its entry's line)
    if grep -qF -- "$name" <<<"$help"; then ok; else bad "$who --help does not show $name"; fi
    # a bad value, and the message names the option (or its short name)
    local want=$name
    [ "$short" != - ] && want=$short
    case $kind in
      flag) refused "$name" "$@" "$name=1" ;;
      string) refused "$name" "$@" "$name=" ;;
      *) timeout 60 "$bin" "$@" "$name" 'no@value' >"$tmp/o" 2>"$tmp/e"; local rc=$?
         if [ $rc -eq 2 ] && { grep -qF -- "$name" "$tmp/e" || grep -qF -- "$want" "$tmp/e"; }; then ok
         else bad "mgpulab $* $name no@value -> rc=$rc, the option not named"; head -c 400 "$tmp/e"; fi ;;
    esac
    # given twice
    if [ "$times" = once ]; then
      if [ "$kind" = flag ]; then refused "given twice" "$@" "$name" "$name"
      else local v; v=$(good_value "$kind" "$values"); refused "given twice" "$@" "$name" "$v" "$name" "$v"; fi
    fi
  done <<<"$list"
}

cmds=$(timeout 60 "$bin" --list-commands | cut -f1)
[ "$(wc -w <<<"$cmds")" -ge 12 ] && ok || bad "--list-commands: $cmds"
for c in $cmds; do check_options "$c" "$c"; done
# the global options, before a command that takes none of them itself
check_options global topo

echo "option_spec: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
