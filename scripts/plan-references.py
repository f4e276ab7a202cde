#!/usr/bin/env python3
"""Runs gpuvet plan on every row of tests/references/plan-references.tsv and prints (or, with
--update, writes back) gpuvet's figure and its ratio to the published one. --part fit|check limits
the run to one part (fit the model on "fit" without running "check"). Bands are fixed: throughput
+-30 %, memory +-15 %, fit exact (docs/plan-references.md)."""
import argparse, json, os, subprocess, sys

BANDS = {"throughput": 0.30, "memory": 0.15}


def figure(gpuvet, row):
    isl, osl = int(row["isl"]), int(row["osl"])
    # weights "checkpoint": as the model's checkpoint ships them (gpt-oss's MXFP4 experts), no --weights
    weights = [] if row["weights"] == "checkpoint" else ["--weights", row["weights"]]
    args = [gpuvet, "plan", "--workload", "llm-infer", "--model", row["model"], "--gpus", row["gpus"],
            "--tensor-parallel", row["gpus"].split("x")[0], *weights, "--kv", row["kv"], "--context", str(isl + osl),
            "--prompt", str(isl), "--json"]
    out = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, LANG="C"))
    try:
        t = json.loads(out.stdout)["plan"]["throughput"]
        return t.get("output_tokens_s")
    except (ValueError, KeyError):
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuvet", default="build/gpuvet")
    ap.add_argument("--table", default="tests/references/plan-references.tsv")
    ap.add_argument("--part")
    ap.add_argument("--update", action="store_true")
    a = ap.parse_args()
    lines = open(a.table).read().splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, l.split("\t"))) for l in lines[1:] if l and not l.startswith("#")]
    score = {}
    for r in rows:
        if a.part and r["part"] != a.part:
            continue
        got = figure(a.gpuvet, r)
        pub = float(r["published"])
        ratio = got / pub if got else None
        inside = ratio is not None and abs(ratio - 1) <= BANDS[r["kind"]] + 1e-9
        s = score.setdefault(r["part"], [0, 0])
        s[0] += inside
        s[1] += 1
        print(f"{r['part']:5} {'ok  ' if inside else 'MISS'} {ratio or 0:6.2f} {got or 0:9.0f} {pub:9.0f}  {r['id']}")
        if a.update:
            r["gpuvet"] = f"{got:.0f}" if got else "unknown"
            r["ratio"] = f"{ratio:.2f}" if ratio else ""
            r["status"] = "" if inside else "miss"
    for p, (ok, n) in score.items():
        print(f"{p}: {ok}/{n} inside the band")
    if a.update:
        with open(a.table, "w") as f:
            f.write("\t".join(head) + "\n")
            for r in rows:
                f.write("\t".join(r[h] for h in head) + "\n")


if __name__ == "__main__":
    sys.exit(main())
