#!/usr/bin/env bash
# Rebuilds tests/corpus/ (the public regression corpus) from local git clones of its sources, at
# the commits pinned below, and rewrites tests/corpus/manifest.tsv (kind, file, repo, commit, path).
#
#   scripts/corpus-build.sh DMI_CLONE HWLOC_CLONE TELEGRAF_CLONE PAI_CLONE DATAKIT_CLONE
#
# (git clone https://github.com/linuxhw/DMI, open-mpi/hwloc, influxdata/telegraf, microsoft/pai,
# GuanceCloud/datakit). Only needed to refresh the corpus; tests read the committed files.
set -euo pipefail
[ $# -eq 5 ] || { sed -n 2,9p "$0" >&2; exit 2; }
dmi=$1 hwloc=$2 telegraf=$3 pai=$4 datakit=$5
out="$(cd "$(dirname "$0")/.." && pwd)/tests/corpus"

DMI_COMMIT=57b21bc6fdd863380e99c228c22aafcd1509528c
HWLOC_COMMIT=3b37b024aa3fe368dd82008eea7e1ad9dca97d2c
TELEGRAF_COMMIT=ffe7345fca193ef46cba1690be8fc77c629eaa3b
TELEGRAF_V13_COMMIT=58ff61d01be05ec0d4c2f57c8c89031e026fa0b9   # v13 files later moved away
PAI_COMMIT=a95d9420e63e6d6cce2d5cd001b990bb09bf2987
DATAKIT_COMMIT=9264e037867efa903b2204bc99f4ee1886c1add0

manifest=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$work" "$manifest"' EXIT
printf 'kind\tfile\trepo\tcommit\tpath\n' >"$manifest"

# A flat, shell-friendly name: lower-case "vendor-model-HWID", HWID kept as linuxhw spells it.
flat_name() {
  local vendor model hwid
  IFS=/ read -r _ vendor _ model hwid <<<"$1"
  printf '%s-%s' "$(printf '%s-%s' "$vendor" "$model" | tr 'A-Z' 'a-z' |
    sed -e 's/[^a-z0-9.]\{1,\}/-/g' -e 's/^-//' -e 's/-$//')" "$hwid"
}

# dmidecode: every report of the Server category, plus the virtual machines filed under Desktop.
mkdir -p "$work/dmidecode"
# Reports sit at CATEGORY/VENDOR/PREFIX/MODEL/HWID; the category READMEs are left out.
git -C "$dmi" ls-tree -r --name-only "$DMI_COMMIT" -- Server "Desktop/QEMU" "Desktop/Red Hat" \
    "Desktop/Bochs" | grep -E '^[^/]+/[^/]+/[^/]+/[^/]+/[^/]+$' | while IFS= read -r path; do
  name="$(flat_name "$path").dmidecode.txt"
  # The same machine filed under two spellings of its vendor: keep both reports apart.
  [ -e "$work/dmidecode/$name" ] && name="${name%.dmidecode.txt}-2.dmidecode.txt"
  git -C "$dmi" show "$DMI_COMMIT:$path" >"$work/dmidecode/$name"
  printf 'dmidecode\t%s\tlinuxhw/DMI\t%s\t%s\n' "$name" "$DMI_COMMIT" "$path" >>"$manifest"
done
git -C "$dmi" show "$DMI_COMMIT:LICENSE" >"$out/LICENSE.linuxhw-DMI.CC-BY-4.0"
# One solid xz stream: the reports repeat each other, 68 MB of text pack into well under 1 MB.
tar -C "$work" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - dmidecode |
  xz -9e -T1 >"$out/dmidecode.tar.xz"

# nvidia-smi -q -x: the test files of telegraf, microsoft/pai and datakit, as they ship them.
mkdir -p "$out/nvidia-smi"
rm -f "$out"/nvidia-smi/*.xml
add_xml() {  # prefix repo clone commit path
  local name="$1-$(basename "$5")"
  git -C "$3" show "$4:$5" >"$out/nvidia-smi/$name"
  printf 'nvidia-smi\t%s\t%s\t%s\t%s\n' "$name" "$2" "$4" "$5" >>"$manifest"
}
t=plugins/inputs/nvidia_smi/testdata
for f in a100-sxm4-v12 a10g gtx-1070-ti gtx-1660-ti quadro-p2000-v12 quadro-p400 rtx-3060-v12 \
         rtx-3080-v12 rtx-3080-v13 rtx-3090-v12 rtx-4000-sff-ada-v13 tesla-t4; do
  add_xml telegraf influxdata/telegraf "$telegraf" "$TELEGRAF_COMMIT" "$t/$f.xml"
done
for f in 3090-v13 dual_2070-v13 dual_2080-v13 dual_a5000-v13 pro-6000-maxq-blackwell-v13; do
  add_xml telegraf influxdata/telegraf "$telegraf" "$TELEGRAF_V13_COMMIT" "$t/$f.xml"
done
for f in nvidia_smi_out_of_order nvidia_smi_outdated_gpu nvidia_smi_sample \
         nvidia_smi_sample_ecc_unsupported; do
  add_xml pai microsoft/pai "$pai" "$PAI_COMMIT" "src/job-exporter/test/data/$f.xml"
done
# (its ixsmi+-q+-x.xml is the table output of another vendor's tool, not XML: left out)
for f in gtx-1050-1 gtx-1card gtx-8card; do
  add_xml datakit GuanceCloud/datakit "$datakit" "$DATAKIT_COMMIT" \
    "internal/plugins/inputs/nvidiasmi/testdata/$f.xml"
done
git -C "$telegraf" show "$TELEGRAF_COMMIT:LICENSE" >"$out/LICENSE.telegraf.MIT"
git -C "$pai" show "$PAI_COMMIT:LICENSE" >"$out/LICENSE.microsoft-pai.MIT"
git -C "$datakit" show "$DATAKIT_COMMIT:LICENSE" >"$out/LICENSE.datakit.MIT"

# hwloc's recorded Linux trees: all real machines. Left out: its synthetic fake* trees, and
# 8ia64-2n2s2c, which holds sys/ without proc/ (gpuvet refuses it as no machine root).
mkdir -p "$out/sysroot"
rm -f "$out"/sysroot/*.tar.bz2
git -C "$hwloc" ls-tree -r --name-only "$HWLOC_COMMIT" -- tests/hwloc/linux |
  grep -E '^tests/hwloc/linux/[^/]+\.tar\.bz2$' | grep -v -E '/[0-9]*fake|/8ia64-2n2s2c\.' |
  while IFS= read -r path; do
  name=$(basename "$path")
  git -C "$hwloc" show "$HWLOC_COMMIT:$path" >"$out/sysroot/$name"
  printf 'sysroot\t%s\topen-mpi/hwloc\t%s\t%s\n' "$name" "$HWLOC_COMMIT" "$path" >>"$manifest"
done
git -C "$hwloc" show "$HWLOC_COMMIT:COPYING" >"$out/COPYING.hwloc-BSD-3"

cp "$manifest" "$out/manifest.tsv"
chmod 644 "$out/manifest.tsv"
echo "corpus rebuilt in $out: $(($(wc -l <"$out/manifest.tsv") - 1)) files"
