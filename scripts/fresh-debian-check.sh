#!/usr/bin/env bash
# Maintainer check, not part of the test suite: runs the README's Quick start in a brand-new
# Debian 12 chroot (debootstrap minbase), as a new user on a fresh machine would. Needs root,
# debootstrap and network access to a Debian mirror. Usage: sudo scripts/fresh-debian-check.sh [DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/tmp/gpuvet-fresh-debian}
mirror=${MIRROR:-http://deb.debian.org/debian}

[ -x "$root/bin/bash" ] || debootstrap --variant=minbase bookworm "$root" "$mirror"
cp /etc/resolv.conf "$root/etc/resolv.conf"
for fs in proc sys dev; do
  mountpoint -q "$root/$fs" || mount --rbind "/$fs" "$root/$fs"
done
trap 'for fs in dev sys proc; do umount -R "$root/$fs" 2>/dev/null || true; done' EXIT
rm -rf "$root/root/gpuvet"
git clone -q "$repo" "$root/root/gpuvet"
chroot "$root" /bin/bash -c 'cd /root/gpuvet && ./scripts/setup.sh && ./scripts/test.sh'
