#!/usr/bin/env python3
"""Runs `gpuvet audit --dmidecode` over the two-socket server reports of a linuxhw/DMI checkout
(https://github.com/linuxhw/DMI, CC BY 4.0) and prints, for MEM_CHANNELS_UNDERPOPULATED and
MEM_SPEED_DOWNCLOCKED, how many reports pass / warn / fail / are unknown, and the unknown reasons.

usage: linuxhw-memory-survey.py GPUVET_BINARY DMI_SERVER_DIR [--json OUT]
A report counts as two-socket when two SMBIOS type-4 processors say "Status: Populated".
A report's verdict is its worst finding: unknown if any socket is unknown, else fail, warn, pass.
"""
import collections, json, os, re, subprocess, sys

RULES = ("MEM_CHANNELS_UNDERPOPULATED", "MEM_SPEED_DOWNCLOCKED")


def populated_sockets(text):
    n = 0
    for block in re.split(r"\n(?=Handle 0x)", text):
        if "DMI type 4," in block and re.search(r"\tStatus: Populated", block):
            n += 1
    return n


def verdict(severities):
    for sev in ("unknown", "fail", "warn", "info", "pass"):
        if sev in severities:
            return sev
    return "absent"


def reason_class(message):
    """Groups unknown messages: numbers and names vary per report, the cause does not."""
    m = re.sub(r"\"[^\"]*\"", '"…"', message)
    m = re.sub(r"\([^()]*\)", "(…)", m)
    m = re.sub(r"\d+", "N", m)
    return m[:150]


def main():
    argv = sys.argv[1:]
    out_json = None
    if "--json" in argv and argv.index("--json") + 1 < len(argv):
        i = argv.index("--json")
        out_json = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) != 2:
        sys.exit(__doc__)
    binary, root = argv
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)
    per_report, counts = {}, {r: collections.Counter() for r in RULES}
    reasons = {r: collections.Counter() for r in RULES}
    for path in files:
        with open(path, errors="replace") as fh:
            text = fh.read()
        if populated_sockets(text) != 2:
            continue
        run = subprocess.run([binary, "audit", "--dmidecode", path, "--json"], capture_output=True, text=True)
        try:
            doc = json.loads(run.stdout)
        except ValueError:
            per_report[path] = {"error": run.stderr[:200]}
            for r in RULES:
                counts[r]["error"] += 1
            continue
        entry = {"cpu": doc["machine"]["cpu"].get("model"),
                 "scheme": doc["machine"]["memory"].get("locator_scheme")}
        for r in RULES:
            fs = [f for f in doc["findings"] if f["id"] == r]
            v = verdict([f["severity"] for f in fs])
            counts[r][v] += 1
            msgs = [f["message"] for f in fs if f["severity"] == "unknown"]
            for m in set(reason_class(m) for m in msgs):
                reasons[r][m] += 1
            entry[r] = {"verdict": v, "messages": [f["message"] for f in fs]}
        per_report[os.path.relpath(path, root)] = entry
    n = len(per_report)
    print(f"{n} two-socket reports under {root}")
    for r in RULES:
        c = counts[r]
        print(f"\n{r}: " + ", ".join(f"{k} {v} ({100.0 * v / n:.1f} %)" for k, v in c.most_common()))
        for m, k in reasons[r].most_common(25):
            print(f"  {k:5d}  {m}")
    if out_json:
        with open(out_json, "w") as fh:
            json.dump(per_report, fh, indent=0)


if __name__ == "__main__":
    main()
