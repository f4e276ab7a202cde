"""What check_cuda_headers.py and check_cublas_headers.py share: NVIDIA's header as the compiler sees
it on LP64 Linux (macros such as CUDAAPI and the _v2 names resolved), its type names reduced to ABI
classes ('i32': int, unsigned, enums; 'i64'; 'f32'; 'ptr': pointers and handles), and its
prototypes of one return type as lists of those classes."""
import re
import subprocess


def flatten(cc, include, header):
    flat = subprocess.run([cc, "-E", "-P", "-x", "c", "-I", include, "-"], input=f"#include <{header}>\n",
                          capture_output=True, text=True, check=True).stdout
    return re.sub(r"\s+", " ", flat)


def abi_classes(flat, base):
    classes = dict(base)
    for m in re.finditer(r"typedef enum \w* ?\{[^}]*\} (\w+);", flat):
        classes[m.group(1)] = "i32"
    for m in re.finditer(r"typedef struct \w+ ?\* ?(\w+);", flat):
        classes[m.group(1)] = "ptr"
    for m in re.finditer(r"typedef enum \w+ (\w+);", flat):  # library_types.h: typedef enum cudaDataType_t cudaDataType_t;
        classes[m.group(1)] = "i32"
    for m in re.finditer(r"typedef \w+ ?\* ?(\w+);", flat):  # cublasLtMatmulDesc_t: a pointer to a typedef'd struct
        classes[m.group(1)] = "ptr"
    for _ in range(4):  # chains: CUdevice -> CUdevice_v1 -> int
        for m in re.finditer(r"typedef ([\w ]+?) (\w+);", flat):
            name_of_base, name = m.group(1).strip(), m.group(2)
            if name_of_base in classes and name not in classes:
                classes[name] = classes[name_of_base]
    return classes


def abi(param, classes):
    param = re.sub(r"\b(const|volatile|restrict|__restrict)\b", "", param).strip()
    if "*" in param:
        return "ptr"
    words = param.split()
    # "CUdeviceptr dst": drop a parameter name; "unsigned int": both words are the type.
    for n in (len(words), len(words) - 1):
        t = " ".join(words[:n])
        if t in classes:
            return classes[t]
    return "?" + param


def prototypes(flat, returns, prefix, classes):
    found = {}
    for m in re.finditer(re.escape(returns) + r" (" + prefix + r"\w+) ?\(([^()]*)\);", flat):
        params = [p for p in m.group(2).split(",") if p.strip() and p.strip() != "void"]
        found[m.group(1)] = [abi(p, classes) for p in params]
    return found
