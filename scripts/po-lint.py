#!/usr/bin/env python3
"""Mechanical checks of a translation catalogue (po/README.md, "Checking a catalogue").

usage: po-lint.py [--stats] po/zh_CN.po
       po-lint.py --self-test

Fails (exit 1, one line per problem: the msgid's first words and what is wrong) on
  - glossary: a term the glossary replaces (GLOSSARY_AVOID below; po/README.md lists the chosen
    terms), or an English term whose chosen Chinese term is missing (GLOSSARY_REQUIRE);
  - half-width punctuation (, . : ; ? ! ( )) between Chinese characters;
  - spacing: Chinese written directly against Latin letters or digits (the catalogue's rule is one
    space between them, as most entries wrote it), or a space before/after full-width punctuation;
  - conversions: the msgstr's printf conversions are not the msgid's (same order, or all numbered
    %n$ and the same set); options (--name), `code` spans and rule IDs of the msgid missing from the
    msgstr;
  - English words left in the msgstr that are not units, IDs, commands, paths or product names
    (ALLOWED_LATIN below lists the ones that stay);
  - leading/trailing whitespace or newlines that differ from the msgid's.
--stats prints the counts per class and exits 0; --self-test checks that each class still fires on
a bad entry (and not on a good one).
Python's standard library only; the parser reads what msgmerge writes (no #~ obsolete entries).
"""
import re
import sys

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
FULLWIDTH_PUNCT = "，。：；？！（）、“”‘’《》【】"


def unquote(s):
    out, i = [], 0
    s = s[1:-1]
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}.get(n, "\\" + n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Entry:
    def __init__(self):
        self.flags, self.comments = [], []
        self.msgid = self.msgid_plural = None
        self.msgstr = []  # msgstr or msgstr[0..n]
        self.line = 0


def parse(path):
    entries, cur, field = [], Entry(), None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            if cur.msgid is not None:
                entries.append(cur)
            cur, field = Entry(), None
            continue
        if line.startswith("#,"):
            cur.flags += [x.strip() for x in line[2:].split(",")]
        elif line.startswith("#"):
            cur.comments.append(line)
        elif line.startswith("msgid_plural "):
            cur.msgid_plural, field = unquote(line[13:]), "plural"
        elif line.startswith("msgid "):
            cur.msgid, field, cur.line = unquote(line[6:]), "id", no
        elif line.startswith("msgstr"):
            cur.msgstr.append(unquote(line[line.index('"'):]))
            field = "str"
        elif line.startswith('"'):
            if field == "id":
                cur.msgid += unquote(line)
            elif field == "plural":
                cur.msgid_plural += unquote(line)
            elif field == "str":
                cur.msgstr[-1] += unquote(line)
    if cur.msgid is not None:
        entries.append(cur)
    return [e for e in entries if e.msgid != ""]


# --- glossary -------------------------------------------------------------------------------
# Terms the glossary replaced: (pattern in msgstr, the glossary's term, why).
GLOSSARY_AVOID = [
    (r"显卡内存|视频内存|GPU ?内存", "显存", "GPU memory"),
    (r"頻|寬|記憶體|記憶|記|內存|顯", "简体字", "traditional characters"),
    (r"记忆体|主记忆", "内存", "host memory (Taiwan usage)"),
    (r"频宽", "带宽", "bandwidth (Taiwan usage)"),
    (r"网络卡|网络适配器", "网卡", "NIC"),
    (r"驱动程序", "驱动", "driver"),
    (r"计算能力(?!\s*(?:\d|%d|x\.y))", "算力", "compute (计算能力 only for CUDA compute capability x.y)"),
    (r"内存[^，。；\n]{0,12}降频|降频[^，。；\n]{0,6}(?:的)?内存|链路[^，。；\n]{0,12}降频",
     "降速", "memory or a link below its rated speed is 降速; 降频 is for clocks"),
    (r"(?:时钟|频率)[^，。；\n]{0,8}降速", "降频", "a clock that throttles is 降频"),
    (r"不是降频", "不是降速", "memory below its rated speed is 降速"),
    (r"超线程核", "线程", "thread"),
    (r"裸机", "物理机", "bare metal"),
    (r"提供商|供应商(?!规格)", "服务商", "provider"),
    (r"发现项|调查结果|检查发现", "检查结果", "finding"),
    (r"固定内存|页锁定内存", "锁页内存", "pinned memory"),
    (r"吞吐率", "吞吐量", "throughput"),
    (r"交换机芯片|PCIe 开关|PCIe 交换机", "PCIe 交换芯片", "PCIe switch"),
    (r"根联合体|根复合体端口", "根复合体 / 根端口", "root complex"),
    (r"数据装载", "数据加载", "data loader"),
]

# English term in the msgid -> the glossary's term the msgstr must contain (one of).
GLOSSARY_REQUIRE = [
    (r"\bGPU memory\b", ("显存",)),
    (r"\bmemory channels?\b", ("内存通道", "通道")),
    (r"\bNUMA nodes?\b", ("NUMA 节点", "NUMA")),
    (r"\bbandwidth\b", ("带宽",)),
    (r"\bpinned memory\b", ("锁页内存",)),
    (r"\bpersistence mode\b", ("持久模式",)),
    (r"\bPCIe switch(es)?\b", ("PCIe 交换芯片", "交换芯片")),
    # the term: memory below its rated speed is 降速 (a clock that throttles is 降频)
    (r"(?s)(DIMM|MT/s|memory).*downclock|downclock.*(DIMM|MT/s|memory)", ("降速",)),
    (r"\bbare[- ]metal\b", ("物理机", "宿主机")),
]

# --- Latin words that may stay in a msgstr --------------------------------------------------
# Units, product and vendor names, tools, file and field names, abbreviations an engineer reads
# as they are. Anything in `code`, an option, a path, a %-conversion or an UPPER-CASE rule ID is
# skipped before this list is looked at.
ALLOWED_LATIN = set("""
gpuvet nvidia smi nvidia-smi dcgm dcgmi nvml cuda cudnn cublas cublasgemmex nccl rocm rocm-smi amd intel arm nvlink nvswitch
pcie pci lspci lscpu dmidecode sysfs procfs proc sys dev cpu cpus gpu gpus numa smt ht ecc rdimm lrdimm udimm
dimm dimms ddr ddr4 ddr5 hbm hbm2 hbm2e hbm3 hbm3e lpddr5 lpddr5x gddr6 gddr6x mt gt gb gib mb mib kb kib tb tib
tflops pflops flops fp fp8 fp16 bf16 fp32 fp64 tf32 int8 int4 w watt watts tdp mhz ghz hz ms us ns s min h
json csv html markdown prometheus slurm tmux bash zsh man utf utf-8 lang lc_all
llm lora qlora unsloth peft zero deepspeed megatron fsdp vllm sglang tensorrt trt pytorch torch resnet resnet-50 bert gpt
llama kv rdma ib infiniband roce ethernet nic nvme ssd hdd fio iperf ior
h100 h200 a100 a800 h800 h20 l40 l40s l4 a10 a10g a30 a40 t4 v100 p100 rtx 4090 3090 5090 b200 gb200 mi300x mi250x
epyc xeon genoa milan rome bergamo turin sapphire rapids emerald granite ice lake cascade skylake
aws gcp azure autodl lambda runpod vast coreweave
os linux kernel debian ubuntu centos rhel grub iommu acs ats aer mps mig sriov sr-iov vfio kvm qemu
irq msi msi-x aspm mrrs mps tlp bar bar1 vbios bios uefi bmc ipmi psu
io i/o iops p50 p95 p99 tok tokens token/s tok/s img img/s
dmon pmon cgroup cgroups cpuset docker kubernetes k8s pod container systemd
cv nlp moe gqa mha attn
sxm sxm4 sxm5 pcie4 pcie5 gen gen3 gen4 gen5 x16 x8 x4 x1
url id ids uuid pid ok yes no
swap swappiness steal iowait irq softirq user system triad stream worker workers token tokens rank ranks
epoch epochs batch cpufreq performance powersave schedutil ondemand numactl taskset isolcpus nohz_full
tmpfs ramfs ext4 xfs rotational madvise always never khugepaged thp sudo root modprobe tar pip wheel
libcuda libcudart libturbojpeg pillow python tfrecord hwloc gpudirect optane xid vcpu mpix jpeg jpegs
tensor logits sbh head lm kaplan korthikanti dettmers hu rajbhandari adam nf4 qwen mistral
ampere volta hopper grace blackwell infinity fabric manager dell lenovo supermicro gold platinum silver
smbios dmtf dsp0134 edac ce ue netdev operstate carrier bifurcation hw slowdown thermal brake power
throttle uint8 uint ctrl stdout stderr schema docs textfile pswpin pswpout
nvmldevicegetpciethroughput item mode compile graphs prefetch factor shuffle top
audit bench watch snapshot plan cost fleet compare explain health decode latency storage jitter
memory help en zh full selective none offload count name util samples type stas tp topo jpg multi
bank locator true eager struct crashkernel ext page scripts general hpc render currency int tf flash
xa bf qv detector node problem subject update scontrol supply channel data
family model flags features hypervisor rate xml cpulist cpumask cpumap realpath statvfs overlay
hugging face inf nan optimizer all
turing max gbps bit
nvmlinit cuinit cueventcreate benchmarks
network slurmd syslog feature discovery
dmesg journalctl syslog kmsg sxid gsp
cublaslt cublasltcreate cublasltmatmul cublasltmatmuldesccreate cublasltmatrixlayoutcreate ada
mixtral deepseek gemma
""".split())
# One letter: a variable of a formula (s, b, h), a unit (B, k, M), the A and B of `gpuvet compare`.
ALLOWED_LATIN |= set("abcdefghijklmnopqrstuvwxyz")

# `info`, `unknown` ... in a rationale are the report's severities: they are translated (提示, 未知)
# like the report prints them, not kept as code.
SEVERITY_WORDS = {"fail", "warn", "unknown", "info", "pass"}

# Entries a rule does not fit, each with the reason. Keep this short: fix the entry where possible.
EXCEPTIONS = {
    ("spacing", "%sCPU use%s "): "a label of the text report's 8-column header column (CPU 占用 + space is 9)",
}

CONV = re.compile(r"%(?:(\d+)\$)?[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|z|j|t)?([diouxXeEfFgGaAcspn%])")


def conversions(s):
    """(number or None, conversion without its n$) per conversion; %.0s (an English plural's s,
    printed as nothing) counts as %s."""
    out = []
    for m in CONV.finditer(s):
        if m.group(2) == "%":
            continue
        c = m.group(0) if not m.group(1) else m.group(0).replace(m.group(1) + "$", "")
        out.append((m.group(1), "%s" if c == "%.0s" else c))
    return out


def protected_spans(s):
    """Parts of a text that are code, not words: `code`, options, paths, conversions, IDs, URLs."""
    pat = (r"`[^`]*`|https?://\S+|--?[A-Za-z][\w-]*(?:=\S*)?|(?:~|\.)?/[\w./*{}<>-]+|"
           r"\b\d+[a-z][\w^]*|\b\w+/[\w./-]+|%(?:\d+\$)?[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|z|j|t)?[diouxXeEfFgGaAcsp]|"
           r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b|\b[\w.-]+\.(?:csv|json|md|html|txt|py|sh|conf|log|yaml|toml)\b|"
           r"\b[a-z][\w]*_[\w]+\b|\b[a-z]+(?:-[a-z0-9]+)+\b|<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}|\$\w+|"
           r"'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|“[^”\n]{1,40}”|\w+(?:\|[\w-]+)+|\b\w+\.\w[\w.]*\b|\b\w+=\S*|\w+\(")
    return re.findall(pat, s)


def strip_protected(s):
    for p in sorted(set(protected_spans(s)), key=len, reverse=True):
        s = s.replace(p, " ")
    return s


def edge(s):
    lead = re.match(r"^\s*", s).group(0)
    trail = re.search(r"\s*$", s).group(0)
    return lead, trail


def check(e, allowed):
    """Yield (class, message) for each problem of one entry."""
    has_cjk = re.compile("[" + CJK + "]")
    strs = e.msgstr if e.msgid_plural is None else e.msgstr[:1]
    for t in strs:
        if t == "" or "fuzzy" in e.flags:
            continue  # po_complete reports these
        src = e.msgid
        # whitespace at the edges
        (sl, st), (tl, tt) = edge(src), edge(t)
        if sl.count("\n") != tl.count("\n") or st.count("\n") != tt.count("\n"):
            yield "whitespace", "leading/trailing newlines differ from the msgid's"
        # Spaces at the edges: a fragment glued to Chinese text drops them (", " -> "、"), and a
        # padded column keeps at least two; otherwise they are the msgid's.
        for a, b, inner in ((sl, tl, t.lstrip()[:1]), (st, tt, t.rstrip()[-1:])):
            a, b = a.replace("\n", ""), b.replace("\n", "")
            if a == b or (len(a) >= 2 and len(b) >= 2):
                continue
            if len(a) == 1 and b == "" and inner and re.match("[%s%s]" % (CJK, FULLWIDTH_PUNCT), inner):
                continue
            yield "whitespace", "spaces at the edges (%r) are not the msgid's (%r)" % (b, a)
        if src.count("\n") and t.count("\n") == 0:
            yield "whitespace", "the msgid has line breaks, the msgstr none"
        # glossary
        for pat, good, why in GLOSSARY_AVOID:
            m = re.search(pat, t)
            if m:
                yield "glossary", "'%s': use %s (%s)" % (m.group(0), good, why)
        for pat, goods in GLOSSARY_REQUIRE:
            if re.search(pat, src, re.I) and not any(g in t for g in goods):
                yield "glossary", "msgid says /%s/, msgstr has none of %s" % (pat, "/".join(goods))
        # half-width punctuation between Chinese characters
        m = re.search("[" + CJK + "][,.:;?!] ?[" + CJK + "]", t) or \
            re.search("[" + CJK + "] ?\\([^()`]*[" + CJK + "][^()`]*\\)", t) or \
            re.search("\\([^()`]*[" + CJK + "][^()`]*\\) ?[" + CJK + "]", t)
        if m:
            yield "punctuation", "half-width punctuation in Chinese text: '%s'" % m.group(0)
        m = re.search("[" + CJK + "][,;?!]|[,;] ?[" + CJK + "]", t)
        if m:
            yield "punctuation", "half-width punctuation after Chinese text: '%s'" % m.group(0)
        # spacing between Chinese and Latin letters or digits
        # %s may hold a colour code or a word of its own; numbers (%d, %.1f) are spaced like digits.
        plain = re.sub(r"`[^`]*`", "`x`", t)
        plain = re.sub(r"%(?:\d+\$)?(?:\.0)?s", "\x00", plain)
        plain = CONV.sub("0", plain)
        m = re.search("[" + CJK + "][A-Za-z0-9]|[A-Za-z0-9][" + CJK + "]", plain)
        if m:
            yield "spacing", "no space between Chinese and Latin/digits: '%s'" % m.group(0)
        # One space beside full-width punctuation (two or more pad a column).
        m = re.search("[^\\s] [，。：；？！）]|[，。：；？！（] (?! )[^\\s]", t)
        if m:
            yield "spacing", "space next to full-width punctuation: '%s'" % m.group(0)
        # conversions
        if "c-format" in e.flags:
            cs, ct = conversions(src), conversions(t)
            numbered = [c for c in ct if c[0]]
            if numbered and len(numbered) != len(ct):
                yield "conversion", "some conversions numbered (%n$), some not"
            elif numbered:
                order = sorted(ct, key=lambda c: int(c[0]))
                if [c[1] for c in order] != [c[1] for c in cs] and \
                        [c[1] for c in order] != [c[1] for c in conversions(e.msgid_plural or src)]:
                    yield "conversion", "numbered conversions are not the msgid's"
            elif [c[1] for c in ct] != [c[1] for c in cs] and not (
                    e.msgid_plural and [c[1] for c in ct] == [c[1] for c in conversions(e.msgid_plural)]):
                yield "conversion", "conversions %s, msgid has %s" % (
                    "".join(c[1] for c in ct), "".join(c[1] for c in cs))
        for tok in re.findall(r"`[^`]+`|(?<![\w-])--[a-z][\w-]*|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", src):
            if tok not in t and tok.strip("`") not in SEVERITY_WORDS:
                yield "verbatim", "'%s' of the msgid is missing from the msgstr" % tok
        # English words left over
        if has_cjk.search(t):
            rest = strip_protected(t)
            words = [w for w in re.findall(r"[A-Za-z][\w'/-]*[A-Za-z0-9]|[A-Za-z]", rest)]
            left = [w for w in words if w.lower() not in allowed and not re.match(r"^[A-Z0-9/_-]{2,}$", w)
                    and not re.search(r"[\d_]", w)
                    and not re.match(r"^[A-Z][a-z]+[A-Z0-9]", w)]
            if left:
                yield "english", "English words left: %s" % " ".join(sorted(set(left)))


# One bad entry per class: --self-test fails unless each is reported with its class, and a clean
# entry is not (ctest po_lint runs it, so a check that stopped working shows up).
SELF_TEST = [
    ("glossary", None, "GPU memory %d GB", "GPU 内存 %d GB"),
    ("glossary", None, "slow DIMMs, not a downclock", "内存条慢，不是降频"),
    ("punctuation", None, "no GPU, no driver", "没有 GPU,没有驱动"),
    ("punctuation", None, "a (b) c", "一个(两个)三个"),
    ("spacing", None, "%d GPUs found", "找到%d 个GPU"),
    ("spacing", None, "found: none", "找到 ：无"),
    ("conversion", "c-format", "%d of %s", "%s 的 %d"),
    ("conversion", "c-format", "%d of %s", "%2$s 的 %d"),
    ("verbatim", None, "run `gpuvet bench` with --json", "运行 gpuvet bench 并输出 JSON"),
    ("verbatim", None, "see PCIE_SLOT_CAPPED", "见槽位限制规则"),
    ("english", None, "the link is degraded", "链路 is degraded"),
    ("whitespace", None, "line\n", "一行"),
    ("whitespace", None, "  indented", "缩进"),
    (None, "c-format", "%d GPUs on %s (`nvidia-smi -q`), --json", "%2$s 上有 %1$d 个 GPU（`nvidia-smi -q`），--json"),
]


def self_test():
    bad = 0
    for want, flag, msgid, msgstr in SELF_TEST:
        e = Entry()
        e.msgid, e.msgstr = msgid.replace("\\n", "\n"), [msgstr]
        e.flags = [flag] if flag else []
        got = {cls for cls, _ in check(e, ALLOWED_LATIN)}
        if (want and want not in got) or (not want and got):
            print("po-lint self-test: %r -> %r: expected %s, got %s" % (msgid, msgstr, want or "nothing",
                                                                        sorted(got) or "nothing"))
            bad += 1
    print("po-lint self-test: %d cases, %d failed" % (len(SELF_TEST), bad))
    return 1 if bad else 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    stats = "--stats" in argv
    paths = [a for a in argv[1:] if not a.startswith("--")]
    if len(paths) != 1:
        sys.stderr.write(__doc__)
        return 2
    path = paths[0]
    try:
        entries = parse(path)
    except (OSError, UnicodeDecodeError) as err:
        sys.stderr.write("po-lint: %s: %s\n" % (path, err))
        return 2
    allowed = set(ALLOWED_LATIN)
    # Words that stay as they are in this project: names from the msgid that the msgstr keeps
    # too are not flagged when they are capitalised names (Intel, DeepSpeed) or lower-case tools.
    counts, problems = {}, 0
    for e in entries:
        for cls, msg in check(e, allowed):
            if (cls, e.msgid) in EXCEPTIONS:
                continue
            counts[cls] = counts.get(cls, 0) + 1
            problems += 1
            if not stats:
                first = e.msgid.strip().split("\n")[0][:60]
                print("%s:%d: %s: %s  [msgid \"%s\"]" % (path, e.line, cls, msg, first))
    if stats:
        for cls in sorted(counts):
            print("%-12s %d" % (cls, counts[cls]))
        print("%d entries, %d problems" % (len(entries), problems))
        return 0
    if problems:
        print("po-lint: %d problems in %d entries (po/README.md: glossary and rules)" % (problems, len(entries)))
        return 1
    print("po-lint: %s: %d entries, no problems" % (path, len(entries)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
