#!/bin/sh
# Regenerates po/gpuvet.pot from the marked strings in src/ (_() and N_(), util/i18n.h; N_() marks
# table text, never a printf format: "80 % of" is not a conversion; the format of the helpers that
# keep an English and a local text, watch_set_text, bench_skipped, bench_set_text, i18n_asprintf,
# probe/virt.c's add_evidence and machine_problem, is one) and merges
# it into every po/LANG.po. Then translate the new or fuzzy entries (po/README.md) and rebuild.
# --check: write into a temporary copy and fail when any message is untranslated or fuzzy (ctest
# po_complete runs this, so a new English string without its translation fails the tests).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
check=false
[ "${1:-}" = --check ] && check=true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
find src -name '*.c' | LC_ALL=C sort > "$tmp/files"
# The GPU table's notes and confidence words are data, printed through _() by `gpuvet gpus`: a C
# file of N_() lines made from data/gpus.csv puts them in the catalogue (a --data table's own
# notes, not in it, print as they are).
python3 - data/gpus.csv > "$tmp/gpu_table_text.c" <<'PY'
import csv, json, sys
rows = csv.reader(line for line in open(sys.argv[1], encoding="utf-8") if not line.startswith("#"))
header = next(rows)
texts = set()
for row in rows:
    for column in ("confidence", "notes"):
        i = header.index(column)
        if i < len(row) and row[i]:
            texts.add((column, row[i]))
for column, text in sorted(texts):
    print("/* TRANSLATORS: the %s column of data/gpus.csv (gpuvet gpus NAME). */" % column)
    print("N_(%s);" % json.dumps(text, ensure_ascii=False))
# The Xid table's actions and descriptions (data/xid-codes.csv): GPU_XID_ERRORS prints them.
rows = csv.reader(line for line in open("data/xid-codes.csv", encoding="utf-8") if not line.startswith("#"))
header = next(rows)
xid_rows = [row for row in rows if row]
for column in ("action", "description"):
    for text in sorted({row[header.index(column)] for row in xid_rows}):
        print("/* TRANSLATORS: the %s column of data/xid-codes.csv (GPU_XID_ERRORS). */" % column)
        print("N_(%s);" % json.dumps(text, ensure_ascii=False))
PY
echo "$tmp/gpu_table_text.c" >> "$tmp/files"
xgettext --language=C --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=i18n_plural:1,2 \
    --keyword=watch_set_text:3 --keyword=bench_skipped:1 --keyword=bench_set_text:3 \
    --keyword=i18n_asprintf:2 --flag=i18n_asprintf:2:c-format --keyword=i18n_snprintf:3 --flag=i18n_snprintf:3:c-format \
    --keyword=add_evidence:2 --flag=add_evidence:2:c-format \
    --keyword=machine_problem:3 --flag=machine_problem:3:c-format \
    --flag=N_:1:no-c-format --add-comments=TRANSLATORS: --package-name=gpuvet --msgid-bugs-address=gpuvet@users.noreply.github.com \
    --no-location --sort-output --files-from="$tmp/files" -o "$tmp/gpuvet.pot"
status=0
for po in po/*.po; do
    lang=$(basename "$po" .po)
    if $check; then
        cp "$po" "$tmp/$lang.po"
        msgmerge --quiet --no-fuzzy-matching --update --backup=none "$tmp/$lang.po" "$tmp/gpuvet.pot"
        stats=$(LC_ALL=C msgfmt --check --statistics -o /dev/null "$tmp/$lang.po" 2>&1)
        echo "$lang: $stats"
        case "$stats" in
        *untranslated* | *fuzzy*)
            echo "$lang: not complete (po/README.md says how to add the translations); without one:" >&2
            { msgattrib --untranslated --no-wrap "$tmp/$lang.po"; msgattrib --only-fuzzy --no-wrap "$tmp/$lang.po"; } |
                grep '^msgid' | grep -v '^msgid ""$' | head -50 >&2 || true
            status=1 ;;
        esac
    else
        msgmerge --quiet --update --backup=none "$po" "$tmp/gpuvet.pot"
        LC_ALL=C msgfmt --check --statistics -o /dev/null "$po"
    fi
done
$check || cp "$tmp/gpuvet.pot" po/gpuvet.pot
exit $status
