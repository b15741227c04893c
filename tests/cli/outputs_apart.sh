#!/bin/bash
# outputs_apart.sh GRAPHPROF REPORT DOT: no output of an offline command replaces one of its
# inputs or another of its outputs (the same file, also through a symbolic link): exit 2 naming
# both, and every file is left as it was. Outputs that are different files still work.
set -u
gp=$1; report=$2; dot=$3
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
status=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; status=1; }
cp "$report" "$dir/base.json"; cp "$(dirname "$report")/r1_same.json" "$dir/cand.json"; cp "$dot" "$dir/g.dot"
ln -s base.json "$dir/link.json"  # a link to an input is that input
mkdir "$dir/side"; cp "$report" "$dir/side/a.json"
sums() { (cd "$dir" && find . -type f | sort | xargs md5sum); }
# expect_clash PATTERN ARGS...: exit 2, stderr matching PATTERN, no file changed or added.
expect_clash() {
  local pattern=$1; shift
  local before after err rc
  before=$(sums)
  err=$(cd "$dir" && timeout 60 "$gp" "$@" 2>&1 >/dev/null); rc=$?
  after=$(sums)
  if [ $rc != 2 ]; then bad "$*: exit $rc, expected 2; stderr: ${err:0:300}"; return; fi
  if ! grep -Eq -- "$pattern" <<<"$err"; then bad "$*: stderr does not match /$pattern/: ${err:0:300}"; return; fi
  if [ $(wc -l <<<"$err") != 1 ]; then bad "$*: more than one line: $err"; return; fi
  if [ "$before" != "$after" ]; then bad "$*: files changed"; return; fi
  ok "$*: $err"
}
expect_clash "^graphprof: --json g.dot: the same file as the DOT dump g.dot" analyze g.dot --json g.dot
expect_clash "^graphprof: --json base.json: the same file as --report base.json" analyze g.dot --report base.json --json base.json
expect_clash "^graphprof: -o base.json: the same file as the report base.json" merge base.json cand.json -o base.json
expect_clash "^graphprof: -o link.json: the same file as the report base.json" merge base.json cand.json -o link.json
expect_clash "^graphprof: --json base.json: the same file as the baseline base.json" compare base.json cand.json --json base.json
expect_clash "^graphprof: --markdown link.json: the same file as the baseline base.json" compare base.json cand.json --markdown link.json
expect_clash "^graphprof: --junit side/a.json: the same file as the baseline's report side/a.json" compare side cand.json --junit side/a.json
expect_clash "^graphprof: --junit x.out: the same file as --markdown x.out" compare base.json cand.json --markdown x.out --junit x.out
expect_clash "^graphprof: --markdown x.out: the same file as --json ./x.out" compare base.json cand.json --markdown x.out --json ./x.out
expect_clash "^graphprof: --csv a.html: the same file as -o a.html" report base.json -o a.html --csv a.html
ln -s base.json "$dir/page.html"
expect_clash "^graphprof: -o page.html: the same file as the report base.json" report base.json -o page.html
expect_clash "^graphprof: --csv base.json: the same file as the report base.json" report base.json --csv base.json
# A dangling link and the file it names are one new file.
ln -s new.csv "$dir/dangling.html"
expect_clash "^graphprof: --csv new.csv: the same file as -o dangling.html" report base.json -o dangling.html --csv new.csv
rm "$dir/dangling.html"
# The render of a copy named .svg: a DOT input whose name is the output's (render refuses .dot outputs first).
cp "$dot" "$dir/g.svg"
expect_clash "^graphprof: -o g.svg: the same file as the DOT dump g.svg" render g.svg -o g.svg
# Different files: the commands work as before.
if (cd "$dir" && "$gp" compare base.json cand.json --json c.json --markdown c.md > /dev/null 2>&1; [ $? = 5 ] && [ -s c.json ] && [ -s c.md ]); then
  ok "compare with two distinct outputs (exit 5: one run a side)"
else bad "compare with two distinct outputs failed"; fi
if (cd "$dir" && "$gp" report base.json -o r.html --csv r.csv > /dev/null 2>&1 && [ -s r.html ] && [ -s r.csv ]); then
  ok "report with two distinct outputs"
else bad "report with two distinct outputs failed"; fi
if (cd "$dir" && "$gp" analyze g.dot --json /dev/null > /dev/null 2>&1); then ok "analyze --json /dev/null"
else bad "analyze --json /dev/null failed"; fi
exit $status
