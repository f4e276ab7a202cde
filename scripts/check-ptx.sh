#!/usr/bin/env bash
# Assembles `bench gpu`'s PTX kernels (src/bench/gpu_kernels.c) with NVIDIA's own PTX assembler for
# every GPU architecture that ptxas still supports (its --help lists them: CUDA 12 from sm_52,
# CUDA 13 from sm_75), and, where cuobjdump is beside it, checks in the machine code that each kernel
# does what it claims: gpuvet_fma keeps its 256 FP32 FMAs per iteration (none optimised away),
# gpuvet_copy moves 16 bytes per load and store, gpuvet_check counts errors with a 64-bit atomic add.
# No GPU is needed; it is the check a machine without one can make before the driver JITs the same
# text (cuModuleLoadDataEx). Not part of the test suite: ptxas is in Debian's non-free
# nvidia-cuda-toolkit (84 MB download), which the project does not depend on.
#
#   scripts/check-ptx.sh [PTXAS]    PTXAS: a ptxas binary (/usr/local/cuda/bin/ptxas, a CUDA
#                                   toolkit's); without it the package is downloaded
#                                   into a temporary folder (apt with its own lists and cache:
#                                   nothing is installed and the system's sources are not changed)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ptxas=${1:-}
cuobjdump=
if [ -z "$ptxas" ]; then
  echo "check-ptx: fetching nvidia-cuda-toolkit (Debian bookworm non-free) into $work" >&2
  mkdir -p "$work/lists/partial"
  echo "deb http://deb.debian.org/debian bookworm non-free" > "$work/sources.list"
  apt_opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o Dir::State::Lists="$work/lists" -o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" update > /dev/null
  (cd "$work" && apt-get "${apt_opts[@]}" download nvidia-cuda-toolkit > /dev/null)
  dpkg-deb -x "$work"/nvidia-cuda-toolkit_*.deb "$work/toolkit"
  ptxas=$work/toolkit/usr/bin/ptxas
  cuobjdump=$work/toolkit/usr/bin/cuobjdump
else
  cuobjdump=$(dirname "$ptxas")/cuobjdump
fi
[ -x "$ptxas" ] || { echo "check-ptx: $ptxas: not an executable ptxas" >&2; exit 2; }
if [ ! -x "$cuobjdump" ]; then
  echo "check-ptx: no cuobjdump beside $ptxas: assembling only, the machine code is not inspected" >&2
  cuobjdump=
fi
"$ptxas" --version | tail -1
# The real architectures (sm_XY, no a/f suffix) this ptxas accepts for --gpu-name.
help=$("$ptxas" --help)
archs=$(printf '%s\n' "$help" | awk '/--gpu-name/ { f = 1 } f && /Default value/ { exit } f' | grep -o "'sm_[0-9]*'" |
  tr -d "'" | sort -u -V)
[ -n "$archs" ] || { echo "check-ptx: $ptxas --help lists no sm_ architecture" >&2; exit 2; }

# The PTX exactly as gpuvet hands it to the driver.
printf '#include <stdio.h>\n#include "bench/gpu_kernels.h"\nint main(void) { fputs(gpu_kernels_ptx, stdout); return 0; }\n' \
  > "$work/dump.c"
cc -std=c11 -Isrc "$work/dump.c" src/bench/gpu_kernels.c -o "$work/dump"
"$work/dump" > "$work/kernels.ptx"

# count SASS FUNCTION PATTERN: how many instructions of FUNCTION match PATTERN.
count() { awk -v f="$2" '/Function :/ { cur = $3 } cur == f' "$1" | grep -cE "$3" || true; }
failed=0
check() { # check ARCH WHAT GOT WANT
  if [ "$3" -lt "$4" ]; then echo "  $1: $2: $3, want at least $4" >&2; failed=1; fi
}
fmas=$(sed -n 's/^#define GPU_FMA_PER_ITERATION \([0-9]*\).*/\1/p' src/bench/gpu_kernels.h)
for arch in $archs; do
  if ! "$ptxas" --gpu-name "$arch" --warning-as-error "$work/kernels.ptx" -o "$work/$arch.cubin" 2> "$work/$arch.log"; then
    echo "  $arch: ptxas refused the PTX:" >&2
    cat "$work/$arch.log" >&2
    failed=1
    continue
  fi
  if [ -z "$cuobjdump" ]; then
    echo "$arch: assembled"
    continue
  fi
  "$cuobjdump" -sass "$work/$arch.cubin" > "$work/$arch.sass"
  fma=$(count "$work/$arch.sass" gpuvet_fma 'FFMA')
  check "$arch" "gpuvet_fma FFMA instructions" "$fma" "$fmas"
  check "$arch" "gpuvet_fma stores of the sum" "$(count "$work/$arch.sass" gpuvet_fma 'STG')" 1
  check "$arch" "gpuvet_copy 128-bit loads" "$(count "$work/$arch.sass" gpuvet_copy 'LDG\.E\.128')" 1
  check "$arch" "gpuvet_copy 128-bit stores" "$(count "$work/$arch.sass" gpuvet_copy 'STG\.E\.128')" 1
  check "$arch" "gpuvet_check 64-bit atomic adds" "$(count "$work/$arch.sass" gpuvet_check '(RED|ATOM)[A-Z]*\.E\.ADD\.(U?64)')" 1
  check "$arch" "gpuvet_fill stores" "$(count "$work/$arch.sass" gpuvet_fill 'STG')" 1
  echo "$arch: assembled; gpuvet_fma $fma FFMA"
done
[ "$failed" = 0 ] && echo "check-ptx: every kernel assembles on every target$([ -n "$cuobjdump" ] && echo ' and keeps its work')"
exit "$failed"
