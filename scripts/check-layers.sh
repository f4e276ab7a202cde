#!/usr/bin/env bash
# Keeps the README's Layout table true: every `#include "folder/..."` in src/<layer>/ must name its
# own folder or one that the table's "may include" column lists for that layer (backticked
# folder names; "everything" allows all). What a header pulls in counts as included by every file
# that includes it: src/<layer>/x.c including model/y.h, which includes probe/z.h, reaches probe/
# through model/, and breaches the table where <layer> may not include probe/ (the chain is
# printed). Only src/pipeline/ calls probe_machine and fsroot_set. Prints each breach and exits 1
# when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A allowed
while IFS='|' read -r _ folder _ may _; do
  layer=$(grep -o '`src/[a-z_]*/`' <<<"$folder" | head -1 | sed 's/`src\///; s/\/`//') || true
  [ -n "$layer" ] || continue
  if grep -q 'everything' <<<"$may"; then
    allowed[$layer]="*"
  else
    allowed[$layer]=" $( (grep -o "\`[a-z_]*/\`" <<<"$may" || true) | tr -d "\`/" | tr "\n" " ")"
  fi
done < <(sed -n '/^## Layout/,/^## /p' README.md | grep '^| `src/')

status=0
for dir in src/*/; do
  layer=$(basename "$dir")
  if [ -z "${allowed[$layer]+set}" ]; then
    echo "check-layers: src/$layer/ has no row in the README's Layout table"
    status=1
  fi
done

# One awk pass over every include in src/ ("FILE:LINE:#include ..."): each file's includes, then for
# each file of a layer with a row, every header reached depth-first (each once), with the chain of
# headers it came through.
breaches=$(
  for layer in "${!allowed[@]}"; do printf 'allow %s %s\n' "$layer" "${allowed[$layer]}"; done
  grep -rHn '^#include "[a-z_]*/' src --include='*.[ch]' || true
) || true
breaches=$(awk '
  $1 == "allow" && $3 == "*" { allow[$2] = "*"; next }
  $1 == "allow" { allow[$2] = " "; for (i = 3; i <= NF; i++) allow[$2] = allow[$2] $i " "; next }
  {
    split($0, part, ":"); file = part[1]
    header = $0; sub(/^[^"]*"/, "", header); sub(/".*/, "", header)
    n[file]++; inc[file, n[file]] = "src/" header; at[file, n[file]] = part[2]; files[file] = 1
  }
  function layer_of(path,   p) { split(path, p, "/"); return p[2] }
  function walk(file, chain,   i, h, target) {
    for (i = 1; i <= n[file]; i++) {
      h = inc[file, i]
      if (h in seen) continue
      seen[h] = 1
      target = layer_of(h)
      if (target != own && allow[own] != "*" && index(allow[own], " " target " ") == 0) {
        if (chain == "")
          printf "check-layers: %s:%s includes %s/, which src/%s/ may not (README, Layout)\n", top, at[file, i], target, own
        else
          printf "check-layers: %s pulls in %s through %s: %s/, which src/%s/ may not include (README, Layout)\n", top, substr(h, 5), chain, target, own
      }
      walk(h, chain (chain == "" ? "" : " -> ") substr(h, 5))
    }
  }
  END {
    for (top in files) {
      own = layer_of(top)
      if (!(own in allow)) continue
      delete seen
      walk(top, "")
    }
  }' <<<"$breaches" | sort)
if [ -n "$breaches" ]; then
  printf '%s\n' "$breaches"
  status=1
fi
# Byte units have one home, util/units.h: no file defines its own GiB or GB or spells 1024 x 1024.
while IFS= read -r hit; do
  echo "check-layers: $hit: a byte unit outside util/units.h (use KIB..TIB, KB..GB from there)"
  status=1
done < <(grep -rnE '#define (KIB|MIB|GIB|TIB|KB|MB|GB|TB|PB)\b|1024(\.0)? \* 1024|1073741824' src --include='*.[ch]' |
         grep -v '^src/util/units.h:' || true)
# One door to the machine: src/pipeline/ is the only caller of probe_machine and fsroot_set (README,
# Layout), so that every command reads the machine through audit_run and its request. Their own
# declarations and definitions (a return type before the name) are not calls.
while IFS= read -r hit; do
  echo "check-layers: $hit: only src/pipeline/ may call probe_machine and fsroot_set (go through audit_run)"
  status=1
done < <(grep -rnE '(^|[^a-z_])(probe_machine|fsroot_set)[[:space:]]*\(' src --include='*.[ch]' |
         grep -vE '^src/pipeline/|^[^:]*:[0-9]+:(int|void) (probe_machine|fsroot_set)\(' || true)
[ $status -eq 0 ] && echo "check-layers: every include, and every header those pull in, follows the Layout table; byte units come from util/units.h; only src/pipeline/ calls probe_machine and fsroot_set"
exit $status
