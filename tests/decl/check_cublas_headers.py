#!/usr/bin/env python3
"""Checks gpuvet's cuBLAS and cuBLASLt declarations (src/gpu/cublas.h, the names src/gpu/cublas.c
resolves) against NVIDIA's own cublas_api.h and cublasLt.h, where a CUDA toolkit is installed
(CUDA_INCLUDE, default /usr/local/cuda-13.0/include), as check_cuda_headers.py does for the driver:
every call's parameter count and ABI classes (32-bit integer or enum, 64-bit integer, pointer or
handle), returning cublasStatus_t, and every CUBLAS_/CUBLASLT_/CUDA_R_ constant's value. Exit 0: all
agree; 1: a mismatch (listed); 77: no cublas_api.h here (ctest reports the test as skipped, and says
so).

Usage: check_cublas_headers.py SRC_DIR CC
"""
import os
import re
import sys

SRC, CC = sys.argv[1], sys.argv[2]
INCLUDE = os.environ.get("CUDA_INCLUDE", "/usr/local/cuda-13.0/include")
HEADER = os.path.join(INCLUDE, "cublas_api.h")
if not os.path.exists(HEADER):
    print(f"skipped: no {HEADER} (install NVIDIA's CUDA toolkit, or set CUDA_INCLUDE, to check the "
          "cuBLAS declarations against NVIDIA's header)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvidia_header  # noqa: E402

# cublasLt.h includes cublas_api.h: one flattened text holds both libraries' prototypes and constants.
flat = nvidia_header.flatten(CC, INCLUDE, "cublasLt.h")
classes = nvidia_header.abi_classes(flat, {"int": "i32", "unsigned int": "i32", "size_t": "i64", "long long": "i64",
                                           "int64_t": "i64", "uint64_t": "i64"})
prototypes = nvidia_header.prototypes(flat, "cublasStatus_t", "cublas", classes)

header_text = open(os.path.join(SRC, "gpu/cublas.h")).read()
ours_h = re.sub(r"\s+", " ", header_text)
ours_c = open(os.path.join(SRC, "gpu/cublas.c")).read()
our_types = {"cublas_status": "i32", "cublas_handle": "ptr", "cu_stream": "ptr", "int": "i32", "size_t": "i64",
             "cublaslt_handle": "ptr", "cublaslt_matmul_desc": "ptr", "cublaslt_layout": "ptr", "uint64_t": "i64",
             "int64_t": "i64"}


def members_of(struct):
    """The function-pointer members of `struct <struct> { ... };` as ABI class lists."""
    body = re.search(r"struct " + struct + r" \{(.*?)\};", ours_h)
    found = {}
    for m in re.finditer(r"cublas_status \(\*(\w+)\)\(([^)]*)\);", body.group(1) if body else ""):
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        found[m.group(1)] = ["ptr" if "*" in p else our_types.get(re.sub(r"\bconst\b", "", p).strip().split()[0], "?" + p)
                             for p in params]
    return found


problems, checked = [], 0
for struct, var in (("cublas", "b"), ("cublaslt", "lt")):
    members = members_of(struct)
    for m in re.finditer(r"DL_RESOLVE\(" + var + r"->library, " + var + r'->(\w+), "(\w+)"', ours_c):
        member, name = m.group(1), m.group(2)
        if name not in prototypes:
            problems.append(f"{name} (for {struct}.{member}): not declared by NVIDIA's headers in {INCLUDE}")
            continue
        theirs, ours = prototypes[name], members.get(member)
        if ours is None:
            problems.append(f"{member}: no such member of struct {struct} in src/gpu/cublas.h")
        elif ours != theirs:
            problems.append(f"{name}: ours ({', '.join(ours)}), NVIDIA's ({', '.join(theirs)})")
        checked += 1

defines = {}
for m in re.finditer(r"#define ((?:CUBLASLT|CUBLAS|CUDA_R)_[A-Z0-9_]+) \(?(-?\d+)\)?", header_text):
    defines[m.group(1)] = int(m.group(2))
for name, value in sorted(defines.items()):
    m = re.search(r"\b" + name + r" ?= ?(-?0x[0-9a-fA-F]+|-?\d+)", flat)
    if not m:
        problems.append(f"{name}: not in NVIDIA's headers in {INCLUDE}")
    elif int(m.group(1), 0) != value:
        problems.append(f"{name}: ours {value}, NVIDIA's {int(m.group(1), 0)}")

for p in problems:
    print("mismatch:", p)
print(f"{checked} cuBLAS and cuBLASLt calls and {len(defines)} constants checked against {INCLUDE}/cublas_api.h "
      f"and cublasLt.h: {'all agree' if not problems else f'{len(problems)} problems'}")
sys.exit(1 if problems or checked == 0 else 0)
