#!/usr/bin/env python3
"""The Chinese text report of every recorded machine fits a 100-column terminal with its columns
lined up: gpuvet --lang zh audit on every tree in tests/fixtures/sysroot and the corpus sysroots,
every nvidia-smi file of the fixtures and the corpus, and a sample of the corpus dmidecode reports.
Every line is at most 100 display columns (a CJK character takes two: Unicode's East Asian Width W
and F), and in every table the columns start at the same display column on every row. Then one
report is shown in a real `tmux new-session -x 100` pane and capture-pane must show exactly the
lines computed here (tmux wraps a line wider than the pane, which would add lines). Help and explain
pages, `watch --replay` of every recorded timeline and a short `bench` run must fit too.

usage: zh_layout.py GPUVET FIXTURES_DIR CORPUS_DIR [--sample N]   (exit 77 when tmux is missing)
"""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor

WIDTH = 100
# gpuvet runs at once: each is a short process that mostly waits to be scheduled and for its
# libraries, so several overlap even on 2 cores; the checks read the results in order.
WORKERS = max(4, 2 * (os.cpu_count() or 1))
ESC = re.compile(r'\x1b\[[0-9;]*m')


def cols(text):
    """Display columns of text, as a terminal counts them."""
    n = 0
    for ch in ESC.sub('', text):
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ('W', 'F') else 1
    return n


def col_of(line, index):
    return cols(line[:index])


# Tables of the report: a row pattern, and the groups whose start column must be the same on
# every row of the report (the verdict per workload, the first screen's problems, what was not
# checked, the findings, the network and storage devices, the claims).
WORKLOADS = r'(?:general|cv-train|llm-train|llm-infer|render|hpc)'
SEVERITIES = r'(?:失败|警告|未知|提示|通过)'
TABLES = {
    'verdicts': (re.compile(r'^  ' + WORKLOADS + r' +(?P<verdict>失败|警告|无法判定|通过) +(?P<rest>\S)'), ('verdict', 'rest')),
    'worst problems': (re.compile(r'^  (?:失败|警告) +(?P<rule>[A-Z][A-Z0-9_]+) '), ('rule',)),
    'not checked': (re.compile(r'^  (?:关键|    ) (?P<fact>\S)'), ('fact',)),
    'findings': (re.compile(r'^    ' + SEVERITIES + r' +(?P<rule>[A-Z0-9_]+ |\d+ 项检查通过)'), ('rule',)),
    'network': (re.compile(r'^        (?P<name>\S+) +(?P<state>up|down|unknown|dormant|lowerlayerdown|notpresent|testing)'
                           r' +(?P<speed>\S+(?: Gb/s)?) +(?P<layer>\S+) +(?P<driver>\S+) +(?P<node>节点 -?\d+)'),
                ('state', 'speed', 'layer', 'driver', 'node')),
    'storage': (re.compile(r'^        (?P<name>\S+) +(?P<transport>\S+) +(?P<size>\S+(?: GB)?) +'
                           r'(?P<kind>机械盘|固态|类型未知|非机械盘) '), ('transport', 'size', 'kind')),
}


def check_report(name, text, problems):
    lines = text.split('\n')
    starts = {}
    for number, line in enumerate(lines, 1):
        # A line may run over only when it is one unbreakable path (a --sysroot or evidence file
        # named in the header): the wrap never splits a word or an ID.
        if cols(line) > WIDTH and not (len(line.split()) == 1 and '/' in line):
            problems.append(f'{name}:{number}: {cols(line)} columns: {line}')
        for table, (pattern, groups) in TABLES.items():
            m = pattern.match(line)
            if not m:
                continue
            key = tuple(col_of(line, m.start(g)) for g in groups)
            starts.setdefault(table, {}).setdefault(key, []).append(number)
    for table, seen in starts.items():
        if len(seen) > 1:
            layout = '; '.join(f'columns {k} on lines {v[:5]}' for k, v in seen.items())
            problems.append(f'{name}: {table} columns do not line up: {layout}')
    return sum(len(v) for s in starts.values() for v in s.values())


def run_report(gpuvet, args):
    env = dict(os.environ, LC_ALL='C', LANG='C')
    r = subprocess.run([gpuvet, '--lang', 'zh', 'audit', '--sample', '0'] + args, capture_output=True,
                       env=env, timeout=120)
    if r.returncode not in (0, 1):
        raise SystemExit(f'gpuvet audit {" ".join(args)}: exit {r.returncode}\n{r.stderr.decode()}')
    return r.stdout.decode('utf-8')


def sysroot_of(folder):
    """hwloc's trees keep their own top folder: the root is the folder that holds sys/."""
    for dirpath, dirnames, _ in os.walk(folder):
        if 'sys' in dirnames:
            return dirpath
        if dirpath.count(os.sep) - folder.count(os.sep) >= 2:
            dirnames[:] = []
    return folder


def machines(fixtures, corpus, sample, scratch):
    for d in sorted(os.listdir(os.path.join(fixtures, 'sysroot'))):
        path = os.path.join(fixtures, 'sysroot', d)
        if os.path.isdir(path):
            yield f'sysroot/{d}', ['--sysroot', sysroot_of(path)]
    for archive in sorted(os.listdir(os.path.join(corpus, 'sysroot'))):
        if archive.endswith('.tar.bz2'):
            out = os.path.join(scratch, 'sysroot', archive[:-8])
            with tarfile.open(os.path.join(corpus, 'sysroot', archive)) as t:
                t.extractall(out, filter='fully_trusted') if hasattr(tarfile, 'data_filter') else t.extractall(out)
            yield f'corpus/sysroot/{archive}', ['--sysroot', sysroot_of(out)]
    source = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'nvidia-smi')
    for folder in (source, os.path.join(corpus, 'nvidia-smi')):
        for f in sorted(os.listdir(folder)):
            if f.endswith('.xml'):
                yield f'nvidia-smi/{f}', ['--nvidia-smi', os.path.join(folder, f)]
    # One pass over the compressed archive (xz cannot seek): every step-th report, in name order.
    with tarfile.open(os.path.join(corpus, 'dmidecode.tar.xz')) as t:
        names = sorted(m.name for m in t.getmembers() if m.name.endswith('.dmidecode.txt'))
    step = max(1, len(names) // sample) if sample else len(names) + 1
    chosen = set(names[::step][:sample])
    picked = []
    with tarfile.open(os.path.join(corpus, 'dmidecode.tar.xz'), 'r|xz') as t:
        for m in t:
            if m.name in chosen:
                path = os.path.join(scratch, os.path.basename(m.name))
                with open(path, 'wb') as f:
                    f.write(t.extractfile(m).read())
                picked.append((m.name, path))
    for name, path in sorted(picked):
        yield f'dmidecode/{os.path.basename(name)}', ['--dmidecode', path]


def tmux_check(gpuvet, args, expected, problems):
    """Shows the report's first 45 lines in a 100x50 tmux pane; the pane must hold the same lines."""
    head = '\n'.join(expected.split('\n')[:45])
    socket = f'gpuvet-zh-{os.getpid()}'
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False, encoding='utf-8') as f:
        f.write(head + '\n')
        shown = f.name
    env = dict(os.environ, LC_ALL='C.UTF-8', LANG='C.UTF-8', TERM='xterm-256color')
    try:
        subprocess.run(['tmux', '-u', '-L', socket, '-f', '/dev/null', 'new-session', '-d', '-x', '100', '-y', '50',
                        f"cat '{shown}'; sleep 30"], check=True, env=env)
        # Until the report's last line is on the pane (cat wrote it all), however slow the machine.
        last = next((l.rstrip() for l in reversed(head.split('\n')) if l.strip()), '')
        pane = ''
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pane = subprocess.run(['tmux', '-L', socket, 'capture-pane', '-p'], capture_output=True,
                                  env=env).stdout.decode('utf-8')
            if last in [l.rstrip() for l in pane.split('\n')]:
                break
            time.sleep(0.1)
        width = subprocess.run(['tmux', '-L', socket, 'display', '-p', '#{pane_width}'], capture_output=True,
                               env=env).stdout.decode().strip()
    finally:
        subprocess.run(['tmux', '-L', socket, 'kill-server'], env=env, capture_output=True)
        os.unlink(shown)
    if width != '100':
        problems.append(f'tmux pane is {width!r} columns wide, not 100')
    got = [l.rstrip() for l in pane.split('\n')]
    want = [l.rstrip() for l in head.split('\n')]
    while got and not got[-1]:
        got.pop()
    if got != want:
        for i, (a, b) in enumerate(zip(want + [''] * 50, got + [''] * 50)):
            if a != b:
                problems.append(f'tmux pane line {i + 1} differs:\n  computed: {a}\n  tmux:     {b}')
                break
    return len(got)


def main():
    args = sys.argv[1:]
    sample = 200
    if '--sample' in args:
        i = args.index('--sample')
        sample = int(args[i + 1])
        del args[i:i + 2]
    gpuvet, fixtures, corpus = args
    problems = []
    reports = rows = 0
    widest = 0
    scratch = tempfile.mkdtemp(prefix='gpuvet-zh-layout-')
    try:
        first = None
        cases = list(machines(fixtures, corpus, sample, scratch))
        with ThreadPoolExecutor(WORKERS) as pool:
            texts = list(pool.map(lambda case: run_report(gpuvet, case[1]), cases))
        for (name, machine_args), text in zip(cases, texts):
            if '各工作负载的结论' not in text:
                problems.append(f'{name}: the report is not in Chinese: {text[:300]!r}')
            rows += check_report(name, text, problems)
            widest = max([widest] + [cols(l) for l in text.split('\n')])
            reports += 1
            if first is None and name.startswith('sysroot/32intel64'):
                first = (machine_args, text)
        # explain's rationale and every command's help are pre-wrapped text: they fit too.
        rules = subprocess.run([gpuvet, 'audit', '--list-rules'], capture_output=True, text=True).stdout.split()
        pages = [['explain', r] for r in rules if re.fullmatch(r'[A-Z][A-Z0-9_]+', r)]
        pages += [[c, '--help'] for c in ('audit', 'explain', 'snapshot', 'gpus', 'health', 'fleet', 'compare', 'watch',
                                          'bench')]
        # watch's diagnosis of every recorded timeline, and bench's text of a run that needs no disk.
        watch_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'watch')
        pages += [['watch', '--replay', os.path.join(watch_dir, f)] for f in sorted(os.listdir(watch_dir))]
        pages += [['bench', 'jitter', 'storage', '--seconds', '0.2', '--file', '/nonexistent/shard']]
        pages += [['--help'], ['explain', 'llm-train']]
        def show(page):
            return subprocess.run([gpuvet, '--lang', 'zh'] + page, capture_output=True, env=dict(os.environ, LC_ALL='C'),
                                  timeout=60).stdout.decode('utf-8')
        with ThreadPoolExecutor(WORKERS) as pool:
            texts = list(pool.map(show, pages))
        for page, text in zip(pages, texts):
            if page[0] in ('watch', 'bench') and not re.search(r'[\u4e00-\u9fff]', text):
                problems.append(f'gpuvet {" ".join(page)}: not in Chinese: {text[:300]!r}')
            for number, line in enumerate(text.split('\n'), 1):
                if cols(line) > WIDTH:
                    problems.append(f'gpuvet {" ".join(page)}:{number}: {cols(line)} columns: {line}')
        print(f'{reports} Chinese reports, {rows} table rows checked, widest line {widest} columns; '
              f'{len(pages)} explain and help pages')
        status = pane_and_verdict(gpuvet, first[0], first[1], problems)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return status


def pane_and_verdict(gpuvet, args, text, problems):
    """Shows text in a tmux pane (tmux_check), prints the problems; the exit status: 1 with
    problems, 77 without tmux, else 0."""
    status = 0
    if shutil.which('tmux') is None:
        print('tmux not installed: the pane check is skipped')
        status = 77
    else:
        lines = tmux_check(gpuvet, args, text, problems)
        print(f'tmux 100x50 pane: {lines} lines as computed')
    for p in problems[:40]:
        print(p)
    if problems:
        print(f'{len(problems)} problems')
        return 1
    return status


if __name__ == '__main__':
    sys.exit(main())
