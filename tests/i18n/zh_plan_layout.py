#!/usr/bin/env python3
"""`gpuvet --lang zh plan` and `cost` fit a 100-column terminal with their columns lined up: every
workload, --check against a recorded machine with a bench file, "what should I rent?", --offers
(training, inference, images, two currencies) and cost (with and without a job), and both commands'
help. Every line is at most 100 display columns (zh_layout.cols: a CJK character takes two); in
the steps, the requirements, the --check rows and the balance the columns start (or, for right-
aligned numbers, end) at the same display column on every row; in the offers tables every cell
ends where its header ends. One plan is then shown in a 100-column tmux pane (zh_layout.tmux_check).

usage: zh_plan_layout.py GPUVET FIXTURES_DIR SOURCE_FIXTURES_DIR   (exit 77 when tmux is missing)
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zh_layout import WIDTH, col_of, cols, pane_and_verdict  # noqa: E402

STEPS = r'(?:模型|模型状态|激活值|显存|建议|CPU|内存|存储|GPU|冻结权重|适配器|张量并行|权重|KV 缓存|候选|吞吐量)'
REQUIREMENTS = r'(?:每节点 GPU 数|每 GPU 显存|每节点 CPU 核心|每节点内存|每节点存储空间|存储读取速率|网络|每节点 NVMe|RDMA)'
# name: (row pattern, groups whose start column is the same on every row, groups whose end is)
TABLES = {
    'steps': (re.compile(r'^  ' + STEPS + r' +(?P<text>\S)'), ('text',), ()),
    'requirements': (re.compile(r'^  ' + REQUIREMENTS + r' +(?P<value>-|是|否|\d[\d.]*(?: GB(?:/s)?| Gb/s)?) +'
                                r'(?P<why>\S)'), ('value', 'why'), ()),
    'check': (re.compile(r'^  (?:满足|不足|未知|提示) +(?P<what>\S.*?) +(?P<need>需要 \S+) +(?P<have>实有 )'),
              ('what', 'need', 'have'), ()),
    'balance': (re.compile(r'^  [> ] (?P<stage>\S+) +(?P<capacity>[\d,]+|-)  (?P<basis>\S)'), ('stage', 'basis'),
                ('capacity',)),
}
# The offers tables' right-aligned headers, in their order (cost_text.c).
NUMBER_HEADERS = ['数量', '每小时价格', '利用率', '每 TFLOPS 时', '每 GPU-GB 时', 'tokens/s', '每百万 token', '作业时长',
                  '作业费用']


def check_tables(name, text, problems):
    starts = {}
    rows = 0
    for number, line in enumerate(text.split('\n'), 1):
        if cols(line) > WIDTH:
            problems.append(f'{name}:{number}: {cols(line)} columns: {line}')
        for table, (pattern, start_groups, end_groups) in TABLES.items():
            m = pattern.match(line)
            if m:
                key = tuple(col_of(line, m.start(g)) for g in start_groups) + \
                    tuple(col_of(line, m.end(g)) for g in end_groups)
                starts.setdefault(table, {}).setdefault(key, []).append(number)
                rows += 1
    for table, seen in starts.items():
        if len(seen) > 1:
            layout = '; '.join(f'columns {k} on lines {v[:5]}' for k, v in seen.items())
            problems.append(f'{name}: {table} columns do not line up: {layout}')
    return rows + check_offers(name, text, problems)


def check_offers(name, text, problems):
    """Under the header '#   名称 ... GPU ...', each row's name and GPU start under theirs and each
    number (the price with its currency) ends where its header ends."""
    rows = 0
    header = None
    for number, line in enumerate(text.split('\n'), 1):
        if not line.strip():
            header = None  # a blank line ends the table
            continue
        if line.startswith('#   名称'):
            header = line
            name_col, gpu_col = col_of(line, line.index('名称')), col_of(line, line.index('GPU'))
            ends = sorted(col_of(line, line.index(h) + len(h)) for h in NUMBER_HEADERS if h in line)
            continue
        m = re.match(r'^(\d+) +', line)
        if not header or not m:
            continue
        rows += 1
        if col_of(line, m.end()) != name_col:
            problems.append(f'{name}:{number}: the name starts at {col_of(line, m.end())}, its header at {name_col}')
        # The GPU id is the first token that starts at the GPU column; the numbers follow it.
        tokens = [(col_of(line, t.start()), col_of(line, t.end())) for t in re.finditer(r'\S+', line)]
        after = [t for t in tokens if t[0] >= gpu_col]
        if not after or after[0][0] != gpu_col:
            problems.append(f'{name}:{number}: no GPU id at column {gpu_col}: {line}')
            continue
        cells = [end for _, end in after[1:]]
        del cells[1:2]  # the price's number: the cell ends with its currency
        if cells != ends[:len(cells)]:
            problems.append(f'{name}:{number}: cells end at {cells}, headers at {ends}: {line}')
    return rows


def run(gpuvet, args):
    r = subprocess.run([gpuvet, '--lang', 'zh'] + args, capture_output=True, env=dict(os.environ, LC_ALL='C'),
                       timeout=120)
    if r.returncode not in (0, 1):
        raise SystemExit(f'gpuvet {" ".join(args)}: exit {r.returncode}\n{r.stderr.decode()}')
    return r.stdout.decode('utf-8')


def main():
    gpuvet, fixtures, source = sys.argv[1:4]
    plan = os.path.join(source, 'plan')
    tree = os.path.join(fixtures, 'sysroot', '32intel64-2p8co2t+8ve')
    bench = os.path.join(source, 'bench', 'vm-epyc-2vcpu-decode.json')
    runs = [
        ['plan', '--workload', 'llm-train', '--model', 'llama-3-8b', '--gpus', '8xH100'],
        ['plan', '--workload', 'llm-train', '--model', 'llama-3-70b', '--gpus', '8xa100-sxm4-80gb', '--nodes', '2',
         '--offload', 'optimizer'],
        ['plan', '--workload', 'llm-train', '--model', 'llama-3-70b', '--gpus', '2xl40s-pcie-48gb'],
        ['plan', '--workload', 'llm-train', '--model', 'llama-3-8b', '--gpus', '1xrtx-4090', '--finetune', 'qlora'],
        ['plan', '--workload', 'llm-train', '--params', '7B', '--gpus', '4xa100-sxm4-80gb'],
        ['plan', '--workload', 'llm-infer', '--model', 'llama-3.1-8b', '--gpus', 'H100'],
        ['plan', '--workload', 'llm-infer', '--model-config', os.path.join(plan, 'mixtral-8x7b.config.json'),
         '--gpus', '4xa100-sxm4-80gb', '--batch', '32'],
        ['plan', '--workload', 'llm-infer', '--model', 'llama-3.1-8b'],
        ['plan', '--workload', 'cv-train', '--gpus', '4xa100-sxm4-80gb', '--check', '--sysroot', tree, '--bench', bench],
        ['plan', '--workload', 'llm-train', '--model', 'llama-3-8b', '--gpus', '4xa100-sxm4-80gb', '--check',
         '--sysroot', tree],
        ['plan', '--workload', 'llm-train', '--model', 'llama-3-8b', '--offers', os.path.join(plan, 'offers-seed.csv'),
         '--tokens', '2T'],
        ['plan', '--workload', 'llm-infer', '--model', 'llama-3.1-8b', '--offers',
         os.path.join(plan, 'offers-seed.csv')],
        ['plan', '--workload', 'cv-train', '--offers', os.path.join(plan, 'offers-two-currencies.csv'), '--images',
         '115M'],
        ['cost', os.path.join(plan, 'offers-seed.csv'), '--util-from', os.path.join(plan, 'dmon-sm.log')],
        ['cost', os.path.join(plan, 'offers-two-currencies.csv'), '--params', '7B', '--tokens', '2T'],
        ['cost', os.path.join(plan, 'offers-seed.json'), '--precision', 'fp8'],
        ['plan', '--help'],
        ['cost', '--help'],
    ]
    problems = []
    rows = 0
    widest = 0
    for args in runs:
        text = run(gpuvet, args)
        name = 'gpuvet ' + ' '.join(a if '/' not in a else os.path.basename(a) for a in args)
        if not re.search(r'[\u4e00-\u9fff]', text):
            problems.append(f'{name}: no Chinese in {text[:200]!r}')
        rows += check_tables(name, text, problems)
        widest = max([widest] + [cols(line) for line in text.split('\n')])
    print(f'{len(runs)} Chinese plan, cost and help texts, {rows} table rows checked, widest line {widest} columns')
    return pane_and_verdict(gpuvet, runs[8], run(gpuvet, runs[8]), problems)


if __name__ == '__main__':
    sys.exit(main())
