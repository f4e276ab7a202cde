#!/usr/bin/env bash
# Keeps the README's Layout table true: every `#include "folder/..."` in src/<layer>/ must name its
# own folder or one that the table's "may include" column lists for that layer (backticked
# folder names; "everything" allows all). Prints each breach and exits 1 when there is one.
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
    continue
  fi
  [ "${allowed[$layer]}" = "*" ] && continue
  while IFS=: read -r file line include; do
    target=$(sed 's/.*#include "\([a-z_]*\)\/.*/\1/' <<<"$include")
    [ "$target" = "$layer" ] && continue
    case "${allowed[$layer]} " in
      *" $target "*) ;;
      *) echo "check-layers: $file:$line includes $target/, which src/$layer/ may not (README, Layout)"; status=1 ;;
    esac
  done < <(grep -Hn '^#include "[a-z_]*/' "$dir"*.[ch] || true)
done
# Byte units have one home, util/units.h: no file defines its own GiB or GB or spells 1024 x 1024.
while IFS= read -r hit; do
  echo "check-layers: $hit: a byte unit outside util/units.h (use KIB..TIB, KB..GB from there)"
  status=1
done < <(grep -rnE '#define (KIB|MIB|GIB|TIB|KB|MB|GB|TB|PB)\b|1024(\.0)? \* 1024|1073741824' src --include='*.[ch]' |
         grep -v '^src/util/units.h:' || true)
[ $status -eq 0 ] && echo "check-layers: every include follows the Layout table; byte units come from util/units.h"
exit $status
