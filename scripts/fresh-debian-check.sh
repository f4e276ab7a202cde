#!/usr/bin/env bash
# Maintainer check, not part of the test suite: in a brand-new Debian 12 chroot (debootstrap
# minbase), as a new user on a fresh machine would,
#   - default: runs the README's Quick start (setup.sh, then test.sh) from a clone;
#   - --deb FILE.deb: installs the package with apt (which pulls its Depends from Debian) and runs
#     the installed gpuvet: version, the GPU table, an audit of the chroot that names the installed
#     tables, a "did you mean" in English and in Chinese (the installed catalogue), the man pages
#     rendered by groff without a warning, its changelog (whose version is the installed package's)
#     and its copyright file; then purges it and checks that none of its files is left.
# Needs root, debootstrap and network access to a Debian mirror.
# Usage: sudo scripts/fresh-debian-check.sh [--deb FILE.deb] [DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
deb=""
if [ "${1:-}" = "--deb" ]; then
  deb=$(realpath "$2")
  shift 2
fi
root=${1:-/tmp/gpuvet-fresh-debian}
mirror=${MIRROR:-http://deb.debian.org/debian}

[ -x "$root/bin/bash" ] || debootstrap --variant=minbase bookworm "$root" "$mirror"
cp /etc/resolv.conf "$root/etc/resolv.conf"
for fs in proc sys dev; do
  mountpoint -q "$root/$fs" || mount --rbind "/$fs" "$root/$fs"
done
trap 'for fs in dev sys proc; do umount -R "$root/$fs" 2>/dev/null || true; done' EXIT

if [ -n "$deb" ]; then
  cp "$deb" "$root/tmp/gpuvet.deb"
  chroot "$root" /bin/bash -c '
    set -euo pipefail
    apt-get update -qq
    # A package left by an interrupted run would make apt skip installing this one (same version).
    if dpkg -s gpuvet >/dev/null 2>&1; then DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq gpuvet; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/gpuvet.deb groff-base
    gpuvet --version
    gpuvet gpus h100 > /tmp/gpus.txt && grep -q "^h100-sxm5-80gb: " /tmp/gpus.txt
    cd / && { gpuvet audit --sample 0 --json > /tmp/audit.json 2>/dev/null || [ $? -eq 1 ]; }
    grep -q "\"path\": \"/usr/share/gpuvet/cpu-platforms.csv\"" /tmp/audit.json
    { gpuvet audi 2> /tmp/audi.txt || true; } && grep -q "did you mean audit?" /tmp/audi.txt
    for page in /usr/share/man/man1/gpuvet*.1.gz; do
      [ -z "$(zcat "$page" | groff -ww -man -Tutf8 2>&1 >/dev/null)" ] || { echo "groff warns on $page"; exit 1; }
    done
    { gpuvet --lang zh audi 2> /tmp/audi-zh.txt || true; } && grep -q "未知命令" /tmp/audi-zh.txt
    version=$(dpkg-query -W -f "\${Version}" gpuvet)
    [ "$(zcat /usr/share/doc/gpuvet/changelog.gz | head -n 1)" = "gpuvet ($version) UNRELEASED; urgency=medium" ] ||
      { echo "changelog.gz does not start with version $version"; exit 1; }
    grep -qx "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" /usr/share/doc/gpuvet/copyright ||
      { echo "no machine-readable /usr/share/doc/gpuvet/copyright"; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq gpuvet
    left=$(ls -d /usr/bin/gpuvet /usr/share/gpuvet /usr/share/man/man1/gpuvet* \
      /usr/share/locale/zh_CN/LC_MESSAGES/gpuvet.mo /usr/share/bash-completion/completions/gpuvet \
      /usr/share/doc/gpuvet 2>/dev/null || true)
    [ -z "$left" ] || { echo "left after purge: $left"; exit 1; }
    echo "gpuvet package: installed, working and removed cleanly on a fresh Debian 12"'
  exit
fi
rm -rf "$root/root/gpuvet"
git clone -q "$repo" "$root/root/gpuvet"
# Each Quick-start command is measured as the README reports it: packages it added, what apt
# downloaded (the archive cache, which a debootstrap chroot keeps) and installed, and wall time.
cat > "$root/root/quick-start-measured.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
cd /root/gpuvet
packages() { dpkg-query -W -f='${binary:Package}\n' | wc -l; }
downloaded_mb() { du -sm /var/cache/apt/archives | cut -f1; }
installed_mb() { dpkg-query -W -f='${Installed-Size}\n' | awk '{s += $1} END {print int(s / 1024)}'; }
measure() {
  local name=$1 p0 d0 i0 t0 tenths
  shift
  p0=$(packages); d0=$(downloaded_mb); i0=$(installed_mb); t0=$(date +%s)
  "$@"
  tenths=$(( ($(date +%s) - t0) * 10 / 60 ))
  printf '%s: %d packages, %d MB downloaded, %d MB installed, %d.%d min\n' "$name" \
    $(( $(packages) - p0 )) $(( $(downloaded_mb) - d0 )) $(( $(installed_mb) - i0 )) \
    $(( tenths / 10 )) $(( tenths % 10 )) >> /root/quick-start-figures.txt
}
: > /root/quick-start-figures.txt
measure "first command (scripts/setup.sh)" ./scripts/setup.sh
measure "second command (scripts/test.sh)" ./scripts/test.sh
cat /root/quick-start-figures.txt
EOF
chroot "$root" /bin/bash /root/quick-start-measured.sh
