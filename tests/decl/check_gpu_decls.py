#!/usr/bin/env python3
"""Checks gpuvet's own NVML and CUDA driver declarations (src/gpu/*.h, the NVML bit masks in
src/model/gpu.h) against independent sources that Debian packages:

  NVML: librust-nvml-wrapper-sys-dev, bindings that rust-bindgen generated from NVIDIA's nvml.h
        (#[repr(C)] structs with their fields in order, enum values, every function signature).
  CUDA: python3-numba, whose numba/cuda/cudadrv/drvapi.py declares the driver API's signatures
        for ctypes and enums.py its result codes.

From those it derives every struct's size and field offsets (C layout rules over the Rust field
types), every constant, and each function's parameter types; struct layouts and constants are
compared in C (a generated program of sizeof/offsetof/value checks built against our headers),
function signatures here by their ABI class. Exit 0: all agree; 1: a mismatch (listed); 77: a
source package is missing (ctest reports the test as skipped, scripts/test.sh installs both).

Usage: check_gpu_decls.py SRC_DIR WORK_DIR CC
"""
import ast
import glob
import os
import re
import subprocess
import sys

RUST_BINDINGS = glob.glob("/usr/share/cargo/registry/nvml-wrapper-sys-*/src/bindings.rs")
NUMBA_CUDADRV = "/usr/lib/python3/dist-packages/numba/cuda/cudadrv"

# Our constants whose names differ from nvml.h's; every other one must carry NVIDIA's own name.
NVML_ALIASES = {
    "NVML_ECC_CORRECTED": "NVML_MEMORY_ERROR_TYPE_CORRECTED",
    "NVML_ECC_UNCORRECTED": "NVML_MEMORY_ERROR_TYPE_UNCORRECTED",
    "NVML_ECC_VOLATILE": "NVML_VOLATILE_ECC",
    "NVML_ECC_AGGREGATE": "NVML_AGGREGATE_ECC",
    "NVML_RETIRED_SBE": "NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS",
    "NVML_RETIRED_DBE": "NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR",
    "GPU_MAX_NVLINKS": "NVML_NVLINK_MAX_LINKS",
    "GPU_EVENT_GPU_IDLE": "nvmlClocksThrottleReasonGpuIdle",
    "GPU_EVENT_APP_CLOCKS": "nvmlClocksThrottleReasonApplicationsClocksSetting",
    "GPU_EVENT_SW_POWER_CAP": "nvmlClocksThrottleReasonSwPowerCap",
    "GPU_EVENT_HW_SLOWDOWN": "nvmlClocksThrottleReasonHwSlowdown",
    "GPU_EVENT_SYNC_BOOST": "nvmlClocksThrottleReasonSyncBoost",
    "GPU_EVENT_SW_THERMAL": "nvmlClocksThrottleReasonSwThermalSlowdown",
    "GPU_EVENT_HW_THERMAL": "nvmlClocksThrottleReasonHwThermalSlowdown",
    "GPU_EVENT_HW_POWER_BRAKE": "nvmlClocksThrottleReasonHwPowerBrakeSlowdown",
    "GPU_EVENT_DISPLAY_CLOCKS": "nvmlClocksThrottleReasonDisplayClockSetting",
}

# ABI classes on LP64 Linux, the only target that loads these libraries.
RUST_SCALARS = {
    "raw::c_char": ("char", 1), "raw::c_uchar": ("u8", 1), "raw::c_short": ("i16", 2),
    "raw::c_ushort": ("u16", 2), "raw::c_int": ("i32", 4), "raw::c_uint": ("u32", 4),
    "raw::c_long": ("i64", 8), "raw::c_ulong": ("u64", 8), "raw::c_longlong": ("i64", 8),
    "raw::c_ulonglong": ("u64", 8), "u8": ("u8", 1), "i8": ("i8", 1), "u16": ("u16", 2),
    "i16": ("i16", 2), "u32": ("u32", 4), "i32": ("i32", 4), "u64": ("u64", 8), "i64": ("i64", 8),
    "usize": ("u64", 8), "f32": ("f32", 4), "f64": ("f64", 8), "raw::c_void": ("void", 1),
}
C_SCALARS = {
    "char": "char", "int": "i32", "unsigned": "u32", "unsigned int": "u32", "float": "f32",
    "unsigned long": "u64", "unsigned long long": "u64", "long long": "i64", "size_t": "u64",
    "void": "void", "nvml_return": "i32", "cu_result": "i32", "cu_deviceptr": "u64",
    "nvml_device": "handle", "cu_context": "handle", "cu_stream": "handle", "cu_event": "handle",
    "cu_module": "handle", "cu_function": "handle",
}
CTYPES = {
    "c_int": "i32", "c_uint": "u32", "c_size_t": "u64", "c_float": "f32", "c_char": "char",
    "c_ulonglong": "u64", "c_void_p": "ptr", "c_char_p": "ptr:char", "cu_device": "i32",
    "cu_device_ptr": "u64", "cu_context": "handle", "cu_stream": "handle", "cu_event": "handle",
    # numba types modules and functions as c_void_p, also where the C call takes a pointer to one
    # (cuModuleLoadDataEx's CUmodule *): there its prototype says only "a pointer".
    "cu_module": "ptr", "cu_function": "ptr", "cu_jit_option": "i32", "cu_device_attribute": "i32",
}

problems, unchecked = [], []


def die_skip(why):
    print("SKIP: " + why)
    sys.exit(77)


# --- the Rust bindings ------------------------------------------------------------------------
class Bindings:
    def __init__(self, text):
        self.consts, self.aliases, self.structs, self.enums, self.functions = {}, {}, {}, set(), {}
        for m in re.finditer(r"pub const (\w+):\s*([\w:]+)\s*=\s*(-?\d+);", text):
            name, typ, value = m.group(1), m.group(2), int(m.group(3))
            # bindgen names enum members <enum>_<MEMBER>; keep the C name.
            if typ.endswith("_enum") or typ in ("nvmlGpuVirtualizationMode",) or name.startswith(typ + "_"):
                name = name[len(typ) + 1:] if name.startswith(typ + "_") else name
            self.consts.setdefault(name, value)
        for m in re.finditer(r"pub type (\w+) = ([^;]+);", text):
            self.aliases[m.group(1)] = m.group(2).strip()
        for m in re.finditer(r"pub use self::(\w+) as (\w+);", text):
            self.aliases[m.group(2)] = m.group(1)
        for m in re.finditer(r"pub type (\w+) = raw::c_uint;", text):
            if m.group(1).endswith("_enum") or m.group(1) == "nvmlGpuVirtualizationMode":
                self.enums.add(m.group(1))
        for m in re.finditer(r"#\[repr\(C\)\][^{]*?pub (struct|union) (\w+) \{(.*?)\n\}", text, re.S):
            fields = re.findall(r"pub (\w+):\s*([^,]+),", m.group(3))
            self.structs[m.group(2)] = (m.group(1), fields)
        lib = re.search(r"pub struct NvmlLib \{(.*?)\n\}", text, re.S).group(1)
        for entry in re.split(r"\n    pub ", lib):  # one member per entry: no match runs into the next
            m = re.match(r"(\w+): Result<\s*unsafe extern \"C\" fn\(([^()]*)\)\s*(?:->\s*([^,]+?))?\s*,", entry, re.S)
            if m:
                params = [p.split(":", 1)[1].strip() for p in m.group(2).split(",") if ":" in p]
                self.functions[m.group(1)] = (m.group(3) or "()", params)

    def resolve(self, t):
        t = t.strip()
        while t in self.aliases and not t.startswith("*"):
            t = self.aliases[t]
        return t

    def is_enum(self, t):
        t = t.strip()
        while True:
            if t in self.enums:
                return True
            if t not in self.aliases:
                return False
            t = self.aliases[t]

    def layout(self, t):
        """(size, alignment) of a Rust type under C rules."""
        t = self.resolve(t)
        if t.startswith("*"):
            return 8, 8
        if t in RUST_SCALARS:
            n = RUST_SCALARS[t][1]
            return n, n
        m = re.fullmatch(r"\[(.+);\s*(\d+)usize\]", t)
        if m:
            size, align = self.layout(m.group(1))
            return size * int(m.group(2)), align
        if t in self.structs:
            _, size, align = self.offsets(t)
            return size, align
        raise KeyError(t)

    def offsets(self, t):
        kind, fields = self.structs[self.resolve(t)]
        offset, align, result, size = 0, 1, [], 0  # C rules: each field at its alignment, size rounded up
        for name, ftype in fields:
            fsize, falign = self.layout(ftype)
            align = max(align, falign)
            if kind == "union":
                result.append((name, 0, fsize))
                size = max(size, fsize)
            else:
                offset = (offset + falign - 1) // falign * falign
                result.append((name, offset, fsize))
                offset += fsize
                size = offset
        return result, (size + align - 1) // align * align, align

    def abi(self, t):
        """The ABI class of a parameter type: what ours must match."""
        t = t.strip()
        m = re.fullmatch(r"\*(mut|const) (.+)", t)
        if m:
            inner = self.resolve(m.group(2))
            if self.is_enum(m.group(2)):
                return "ptr:enum"
            if inner in self.structs:
                return "ptr:struct:" + inner
            return "ptr:" + self.abi(m.group(2))
        if t == "nvmlDevice_t":
            return "handle"
        if self.is_enum(t):
            return "enum"
        r = self.resolve(t)
        if r.startswith("*"):
            return self.abi(r)
        return RUST_SCALARS[r][0]


# --- our headers --------------------------------------------------------------------------------
def c_abi(ctype):
    ctype = " ".join(ctype.replace("const ", "").split())
    stars = ctype.count("*")
    base = ctype.replace("*", "").strip()
    base = re.sub(r"\s+\w+$", "", base) if base not in C_SCALARS and " " in base and not base.startswith("struct ") else base
    if base.startswith("struct "):
        cls = "struct:" + base.split()[1]
    else:
        cls = C_SCALARS.get(base, "?" + base)
    for _ in range(stars):
        cls = "ptr:" + cls
    return cls


def our_function_fields(header, struct_name):
    body = re.search(r"struct %s \{(.*?)\n\};" % struct_name, header, re.S).group(1)
    fields = {}
    for m in re.finditer(r"^\s*([\w *]+?)\s*\(\*(\w+)\)\(([^)]*)\);", body, re.M):
        params = [p.strip() for p in m.group(3).split(",") if p.strip() and p.strip() != "void"]
        fields[m.group(2)] = (m.group(1), params)
    return fields


def resolve_lists(source):
    return {m.group(1): re.findall(r'"(\w+)"', m.group(2))
            for m in re.finditer(r"RESOLVE\((\w+),\s*(.*?)\);", source)}


def our_constants(text):
    found = {}
    for m in re.finditer(r"#define ((?:NVML|CUDA|CU_|GPU_EVENT|GPU_MAX_NVLINKS)\w*) (\w+)", text):
        if re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)(ULL|U)?", m.group(2)):
            found[m.group(1)] = m.group(1)
    for body in re.findall(r"enum \{([^}]*)\}", text):
        for name in re.findall(r"\b(NVML_\w+)\s*=", body):
            found[name] = name
    return found


def match_params(ours, theirs, struct_pairs, label):
    if len(ours) != len(theirs):
        problems.append("%s: %d parameters, the source has %d" % (label, len(ours), len(theirs)))
        return
    for i, (o, t) in enumerate(zip(ours, theirs)):
        oc = c_abi(o)
        ok = oc == t
        if t == "enum":  # a C enum is passed as a 32-bit int; gpuvet declares int or unsigned
            ok = oc in ("i32", "u32")
        elif t == "ptr:enum":
            ok = oc in ("ptr:i32", "ptr:u32")
        elif t.startswith("ptr:struct:") and oc.startswith("ptr:struct:"):
            pair = struct_pairs.setdefault(oc[len("ptr:struct:"):], t[len("ptr:struct:"):])
            ok = pair == t[len("ptr:struct:"):]
        elif t == "ptr":  # ctypes c_void_p: any pointer
            ok = oc.startswith("ptr") or oc == "handle"
        elif t == "handle":
            ok = oc == "handle"
        elif t == "ptr:ptr":  # POINTER(c_void_p): a pointer to any pointer (void **)
            ok = oc.startswith("ptr:ptr") or oc == "ptr:handle"
        if not ok:
            problems.append("%s: parameter %d is %s (%s), the source says %s" % (label, i + 1, o, oc, t))


def main():
    src, work, cc = sys.argv[1], sys.argv[2], sys.argv[3]
    if not RUST_BINDINGS:
        die_skip("librust-nvml-wrapper-sys-dev is not installed (scripts/test.sh installs it)")
    if not os.path.exists(os.path.join(NUMBA_CUDADRV, "drvapi.py")):
        die_skip("python3-numba is not installed (scripts/test.sh installs it)")
    rust = Bindings(open(RUST_BINDINGS[0]).read())
    print("NVML source: %s (%d structs, %d functions, %d constants)"
          % (RUST_BINDINGS[0], len(rust.structs), len(rust.functions), len(rust.consts)))

    read = lambda p: open(os.path.join(src, p)).read()
    nvml_h, cuda_h, model_h = read("gpu/nvml.h"), read("gpu/cuda.h"), read("model/gpu.h")

    # NVML functions: the first name we resolve that the bindings declare.
    struct_pairs = {}
    nvml_fields = our_function_fields(nvml_h, "nvml")
    checked_fn = 0
    for field, names in resolve_lists(read("gpu/nvml.c")).items():
        if field not in nvml_fields:
            problems.append("nvml.c resolves %s, which struct nvml lacks" % field)
            continue
        known = [n for n in names if n in rust.functions]
        if not known:
            unchecked.append("%s (%s): not in the bindings' nvml.h" % (field, "/".join(names)))
            continue
        ret, params = rust.functions[known[0]]
        ours_ret, ours_params = nvml_fields[field]
        if c_abi(ours_ret) != ("i32" if ret == "nvmlReturn_t" else rust.abi(ret)):
            problems.append("%s: returns %s, the source %s" % (field, ours_ret, ret))
        match_params(ours_params, [rust.abi(p) for p in params], struct_pairs, "nvml.%s <- %s" % (field, known[0]))
        checked_fn += 1

    # CUDA functions from numba's ctypes prototypes.
    drvapi = ast.parse(open(os.path.join(NUMBA_CUDADRV, "drvapi.py")).read())
    protos = {}
    for node in ast.walk(drvapi):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "API_PROTOTYPES":
            for k, v in zip(node.value.keys, node.value.values):
                protos[k.value] = [ast.unparse(e) for e in v.elts]
    def ctype_abi(t):
        m = re.fullmatch(r"POINTER\((\w+)\)", t)
        return "ptr:" + CTYPES.get(m.group(1), "?" + m.group(1)) if m else CTYPES.get(t, "?" + t)
    cuda_fields = our_function_fields(cuda_h, "cuda")
    for field, names in resolve_lists(read("gpu/cuda.c")).items():
        # numba declares the plain names; the _v2 ones differ only where a 32-bit size became size_t.
        known = [n for n in names if n in protos] or [n[:-3] for n in names if n.endswith("_v2") and n[:-3] in protos]
        if not known:
            unchecked.append("%s (%s): numba does not declare it" % (field, "/".join(names)))
            continue
        proto = protos[known[0]]
        ours_ret, ours_params = cuda_fields[field]
        if c_abi(ours_ret) != CTYPES.get(proto[0]):
            problems.append("cuda.%s: returns %s, the source %s" % (field, ours_ret, proto[0]))
        match_params(ours_params, [ctype_abi(p) for p in proto[1:]], {}, "cuda.%s <- %s" % (field, known[0]))
        checked_fn += 1
    cuda_enums = {}
    for node in ast.parse(open(os.path.join(NUMBA_CUDADRV, "enums.py")).read()).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            cuda_enums[node.targets[0].id] = node.value.value

    # Structs and constants: a C program over our headers, with the expected values derived here.
    lines = ['#include "gpu/nvml.h"', '#include "gpu/cuda.h"', '#include "model/gpu.h"',
             "#include <stddef.h>", "#include <stdio.h>", "static int bad;",
             "static void same(const char *what, long long ours, long long theirs)",
             "{ if (ours != theirs) { printf(\"MISMATCH %s: ours %lld, the source %lld\\n\", what, ours, theirs); bad = 1; } }",
             "int main(void)", "{"]
    checks = 0
    for ours, theirs in sorted(struct_pairs.items()):
        fields, size, _ = rust.offsets(theirs)
        lines.append('    same("sizeof(struct %s) vs %s", (long long)sizeof(struct %s), %d);' % (ours, theirs, ours, size))
        checks += 1
        our_body = re.search(r"struct %s \{(.*?)\};" % ours, nvml_h, re.S).group(1)
        our_names = re.findall(r"(\w+)(?:\[\d+\])?\s*[,;]", our_body)
        by_key = {n.replace("_", "").lower(): n for n in our_names}
        if len(our_names) != len(fields):
            problems.append("struct %s has %d fields, %s %d" % (ours, len(our_names), theirs, len(fields)))
        for name, offset, fsize in fields:
            mine = by_key.get(name.lower())
            if not mine:
                problems.append("struct %s lacks %s.%s" % (ours, theirs, name))
                continue
            lines.append('    same("offsetof(%s, %s) vs %s.%s", (long long)offsetof(struct %s, %s), %d);'
                         % (ours, mine, theirs, name, ours, mine, offset))
            lines.append('    same("sizeof %s.%s", (long long)sizeof(((struct %s *)0)->%s), %d);'
                         % (ours, mine, ours, mine, fsize))
            checks += 2
    for name in sorted(our_constants(nvml_h + model_h)):
        theirs = NVML_ALIASES.get(name, name)
        if theirs not in rust.consts:
            problems.append("constant %s (%s) is not in the bindings" % (name, theirs))
            continue
        lines.append('    same("%s vs %s", (long long)(%s), %d);' % (name, theirs, name, rust.consts[theirs]))
        checks += 1
    for name in sorted(our_constants(cuda_h)):
        if name not in cuda_enums:
            problems.append("constant %s is not in numba's enums.py" % name)
            continue
        lines.append('    same("%s", (long long)(%s), %d);' % (name, name, cuda_enums[name]))
        checks += 1
    lines += ["    return bad;", "}", ""]
    os.makedirs(work, exist_ok=True)
    c_file, exe = os.path.join(work, "gpu_decls_check.c"), os.path.join(work, "gpu_decls_check")
    open(c_file, "w").write("\n".join(lines))
    build = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", src, c_file, "-o", exe],
                           capture_output=True, text=True)
    if build.returncode != 0:
        problems.append("the generated check does not compile against our headers:\n" + build.stderr)
    else:
        run = subprocess.run([exe], capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(run.stdout.strip())
    print("checked: %d function signatures, %d struct pairs, %d size/offset/constant values"
          % (checked_fn, len(struct_pairs), checks))
    for u in unchecked:
        print("unchecked: " + u)
    for p in problems:
        print("MISMATCH " + p if not p.startswith("MISMATCH") else p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
