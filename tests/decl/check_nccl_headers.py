#!/usr/bin/env python3
"""Checks gpuvet's NCCL declarations (src/gpu/nccl.h, the names src/gpu/nccl.c resolves) against
NVIDIA's own nccl.h, where a CUDA toolkit with NCCL is installed (CUDA_INCLUDE, default
/usr/local/cuda-13.0/include), as check_cublas_headers.py does for cuBLAS: every call's parameter
count and ABI classes (32-bit integer or enum, 64-bit integer, pointer or handle), returning
ncclResult_t (ncclGetErrorString: const char *), and every constant's value (each NCCL_ define
names nccl.h's enumerator in its comment). Exit 0: all agree; 1: a mismatch (listed); 77: no
nccl.h here (ctest reports the test as skipped, and says so).

Usage: check_nccl_headers.py SRC_DIR CC
"""
import os
import re
import sys

SRC, CC = sys.argv[1], sys.argv[2]
INCLUDE = os.environ.get("CUDA_INCLUDE", "/usr/local/cuda-13.0/include")
HEADER = os.path.join(INCLUDE, "nccl.h")
if not os.path.exists(HEADER):
    print(f"skipped: no {HEADER} (install NVIDIA's CUDA toolkit with NCCL, or set CUDA_INCLUDE, to check the "
          "NCCL declarations against NVIDIA's header)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvidia_header  # noqa: E402

flat = nvidia_header.flatten(CC, INCLUDE, "nccl.h")
classes = nvidia_header.abi_classes(flat, {"int": "i32", "unsigned int": "i32", "size_t": "i64", "long long": "i64", "int64_t": "i64"})
prototypes = nvidia_header.prototypes(flat, "ncclResult_t", "nccl", classes)
# The one call that returns text: its parameters, the same way.
m = re.search(r"const char ?\* ?ncclGetErrorString ?\(([^()]*)\);", flat)
if m:
    prototypes["ncclGetErrorString"] = [nvidia_header.abi(p, classes) for p in m.group(1).split(",") if p.strip()]

header_text = open(os.path.join(SRC, "gpu/nccl.h")).read()
ours_h = re.sub(r"\s+", " ", header_text)
ours_c = open(os.path.join(SRC, "gpu/nccl.c")).read()
our_types = {"nccl_result": "i32", "nccl_comm": "ptr", "cu_stream": "ptr", "int": "i32", "size_t": "i64"}
members = {}
for m in re.finditer(r"(?:nccl_result|const char \*)\s?\(\*(\w+)\)\(([^)]*)\);", ours_h):
    params = [p.strip() for p in m.group(2).split(",") if p.strip() and p.strip() != "void"]
    members[m.group(1)] = ["ptr" if "*" in p else our_types.get(re.sub(r"\bconst\b", "", p).strip().split()[0], "?" + p)
                           for p in params]

problems, checked = [], 0
for m in re.finditer(r'DL_RESOLVE\(n->library, n->(\w+), "(\w+)"', ours_c):
    member, name = m.group(1), m.group(2)
    if name not in prototypes:
        problems.append(f"{name} (for {member}): not declared by {HEADER}")
        continue
    theirs, ours = prototypes[name], members.get(member)
    if ours is None:
        problems.append(f"{member}: no such member in src/gpu/nccl.h")
    elif ours != theirs:
        problems.append(f"{name}: ours ({', '.join(ours) or 'none'}), nccl.h's ({', '.join(theirs) or 'none'})")
    checked += 1

defines = {}
for m in re.finditer(r"#define (NCCL_[A-Z0-9_]+) \(?(-?\d+)\)? +/\* (nccl\w+) \*/", header_text):
    defines[m.group(1)] = (int(m.group(2)), m.group(3))
for name, (value, theirs) in sorted(defines.items()):
    m = re.search(r"\b" + theirs + r" ?= ?(-?0x[0-9a-fA-F]+|-?\d+)", flat)
    if not m:
        problems.append(f"{name} ({theirs}): not in {HEADER}")
    elif int(m.group(1), 0) != value:
        problems.append(f"{name} ({theirs}): ours {value}, nccl.h's {int(m.group(1), 0)}")

for p in problems:
    print("mismatch:", p)
print(f"{checked} NCCL calls and {len(defines)} constants checked against {HEADER}: "
      f"{'all agree' if not problems else f'{len(problems)} problems'}")
sys.exit(1 if problems or checked == 0 or not defines else 0)
