#!/usr/bin/env python3
"""Checks gpuvet's CUDA driver declarations (src/gpu/cuda.h, the names src/gpu/cuda.c resolves,
and the CUDA constants of src/bench/gpu.c) against NVIDIA's own cuda.h, where a CUDA toolkit is
installed (CUDA_INCLUDE, default /usr/local/cuda-13.0/include).

For every driver call gpuvet resolves, the first (newest) name it asks for must be a function that
cuda.h declares (after its own #define of the versioned names, e.g. cuMemAlloc -> cuMemAlloc_v2),
with the same number of parameters, each of the same ABI class (32-bit integer or enum, 64-bit
integer, float, pointer or handle), returning CUresult. Every CUDA constant gpuvet defines must
have cuda.h's value. Exit 0: all agree; 1: a mismatch (listed); 77: no cuda.h here (ctest reports
the test as skipped, and says so).

Usage: check_cuda_headers.py SRC_DIR CC
"""
import os
import re
import sys

SRC, CC = sys.argv[1], sys.argv[2]
INCLUDE = os.environ.get("CUDA_INCLUDE", "/usr/local/cuda-13.0/include")
CUDA_H = os.path.join(INCLUDE, "cuda.h")
if not os.path.exists(CUDA_H):
    print(f"skipped: no {CUDA_H} (install NVIDIA's CUDA toolkit, or set CUDA_INCLUDE, to check the "
          "CUDA driver declarations against NVIDIA's header)")
    sys.exit(77)

# cuda.h as the compiler sees it on LP64 Linux: macros (CUDAAPI, the _v2 names) resolved.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvidia_header  # noqa: E402

flat = nvidia_header.flatten(CC, INCLUDE, "cuda.h")
classes = nvidia_header.abi_classes(flat, {"int": "i32", "unsigned int": "i32", "unsigned": "i32", "float": "f32", "size_t": "i64",
     "unsigned long long": "i64", "long long": "i64", "unsigned long": "i64", "CUresult": "i32"})
prototypes = nvidia_header.prototypes(flat, "CUresult", "cu", classes)

# Ours: the member's C type in src/gpu/cuda.h, the names src/gpu/cuda.c resolves it by.
ours_h = open(os.path.join(SRC, "gpu/cuda.h")).read()
ours_c = open(os.path.join(SRC, "gpu/cuda.c")).read()
our_types = {"cu_result": "i32", "cu_context": "ptr", "cu_stream": "ptr", "cu_event": "ptr", "cu_module": "ptr",
             "cu_function": "ptr", "cu_deviceptr": "i64", "int": "i32", "unsigned": "i32", "size_t": "i64",
             "float": "f32"}
members = {}
for m in re.finditer(r"cu_result \(\*(\w+)\)\(([^)]*)\);", re.sub(r"\s+", " ", ours_h)):
    params = [p.strip() for p in m.group(2).split(",") if p.strip()]
    members[m.group(1)] = ["ptr" if "*" in p else our_types.get(re.sub(r"\bconst\b", "", p).strip(), "?" + p)
                           for p in params]

problems, checked = [], 0
for m in re.finditer(r'RESOLVE\((\w+), "(\w+)"', ours_c):
    member, name = m.group(1), m.group(2)
    if name not in prototypes:
        problems.append(f"{name} (for {member}): not declared by {CUDA_H}")
        continue
    theirs, ours = prototypes[name], members.get(member)
    if ours is None:
        problems.append(f"{member}: no such member in src/gpu/cuda.h")
    elif ours != theirs:
        problems.append(f"{name}: ours ({', '.join(ours)}), cuda.h's ({', '.join(theirs)})")
    checked += 1

# Constants: every CUDA_/CU_ name we define, with cuda.h's value.
defines = {}
for path in ("gpu/cuda.h", "bench/gpu.c"):
    for m in re.finditer(r"#define ((?:CUDA|CU)_[A-Z0-9_]+) (\d+)", open(os.path.join(SRC, path)).read()):
        defines[m.group(1)] = int(m.group(2))
for name, value in sorted(defines.items()):
    m = re.search(r"\b" + name + r" ?= ?(0x[0-9a-fA-F]+|\d+)", flat)
    if not m:
        problems.append(f"{name}: not in {CUDA_H}")
    elif int(m.group(1), 0) != value:
        problems.append(f"{name}: ours {value}, cuda.h's {int(m.group(1), 0)}")

for p in problems:
    print("mismatch:", p)
print(f"{checked} driver calls and {len(defines)} constants checked against {CUDA_H}: "
      f"{'all agree' if not problems else f'{len(problems)} problems'}")
sys.exit(1 if problems else 0)
