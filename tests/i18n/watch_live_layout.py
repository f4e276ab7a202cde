#!/usr/bin/env python3
"""The live block of `gpuvet watch` fits a 100-column terminal, in English and in Chinese.

gpuvet watch runs a busy job (ended once gpuvet has redrawn its block a few times) in a pseudo-terminal 100 columns wide (the live block is drawn
only on a terminal), with the stand-in NVML of the CLI tests (tests/mock/nvml_mock.c) describing
the recorded A100 of tests/fixtures/nvidia-smi and replaying a timeline at the widest readings a
GPU gives: 100 % busy, 81000 MiB used, PCIe near its limit and every clock event bit set. Every line
of every block must be at most 100 display columns (a CJK character takes two), the Chinese block
must be Chinese, and each redraw must move the cursor up by exactly the rows the previous block
took (else the blocks pile up or eat the lines above).

usage: watch_live_layout.py GPUVET MOCK_NVML_LIBRARY A100_XML
"""
import os
import pty
import re
import select
import struct
import sys
import tempfile
import termios
import fcntl
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zh_layout import WIDTH, cols  # noqa: E402

UP = re.compile(r'\x1b\[(\d+)A\r\x1b\[J')
# NVML's clock event bits as nvml.h defines them (0x1 .. 0x100): all of them at once.
EVENTS = 'fff'


# Redraws to wait for before the job is told to end: the job ends when gpuvet has drawn them, not
# after a fixed time, so a loaded machine that samples late still gives several blocks.
REDRAWS = 3


def run_live(gpuvet, lang, env):
    """The bytes gpuvet writes to its terminal while it watches a busy job until REDRAWS redraws."""
    fifo = tempfile.mktemp(suffix='.watch-end')
    os.mkfifo(fifo)
    busy = 'sh -c "while :; do :; done"'
    job = f'{busy} & a=$!; {busy} & b=$!; read x < {fifo}; kill $a $b; wait'
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 50, WIDTH, 0, 0))
        os.execve(gpuvet, [gpuvet, '--lang', lang, 'watch', '--interval', '0.5', '--', 'sh', '-c', job], env)
    out = b''
    told = False
    deadline = time.monotonic() + 120  # a hang guard, not a speed limit
    while time.monotonic() < deadline:
        if not told and len(UP.findall(out.decode('utf-8', 'replace'))) >= REDRAWS:
            with open(fifo, 'w') as end:  # opens once the job's `read` has the other end
                end.write('end\n')
            told = True
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:  # the terminal closed: gpuvet exited
            break
        if not data:
            break
        out += data
    if not told:
        os.kill(pid, 9)
    os.waitpid(pid, 0)
    os.unlink(fifo)
    return out.decode('utf-8', 'replace').replace('\r\n', '\n')


def check(lang, text, problems):
    """Splits the output into live blocks (each redraw starts with cursor-up and clear) and checks them."""
    pieces = UP.split(text)
    # pieces: first block, then (rows moved up, next block) pairs; the last block ends where the
    # diagnosis begins (a blank line then "Diagnosis" / "诊断").
    blocks = [pieces[0]] + pieces[2::2]
    moves = [int(n) for n in pieces[1::2]]
    last = blocks[-1].split('\n\n', 1)
    blocks[-1] = last[0] + '\n'
    if len(blocks) < 2:
        problems.append(f'{lang}: {len(blocks)} live block(s) drawn, expected several: {text[:400]!r}')
    for number, block in enumerate(blocks, 1):
        lines = block.split('\n')[:-1]
        for line in lines:
            if cols(line) > WIDTH:
                problems.append(f'{lang} block {number}: {cols(line)} columns: {line}')
        if number <= len(moves) and moves[number - 1] != len(lines):
            problems.append(f'{lang} block {number}: {len(lines)} rows drawn, the redraw moves up {moves[number - 1]}')
    first = blocks[0]
    if lang == 'zh' and not re.search(r'[\u4e00-\u9fff]', first):
        problems.append(f'zh: the live block is not Chinese: {first[:300]!r}')
    if 'gpu0' not in first:
        problems.append(f'{lang}: no GPU line in the live block: {first[:300]!r}')
    return len(blocks), max(cols(l) for b in blocks for l in b.split('\n'))


def main():
    gpuvet, nvml, xml = sys.argv[1:]
    problems = []
    with tempfile.NamedTemporaryFile('w', suffix='.timeline', delete=False) as f:
        f.write('# sm mem used_mib rx_kb_s tx_kb_s sm_mhz mem_mhz events power_mw\n')
        f.write(f'100 100 81000 25000000 24000000 1980 2619 {EVENTS} 700000\n')
        timeline = f.name
    env = dict(os.environ, GPUVET_NVML_LIBRARY=nvml, GPUVET_MOCK_NVML_XML=xml, GPUVET_MOCK_NVML_TIMELINE=timeline,
               LC_ALL='C', TERM='xterm')
    try:
        for lang in ('en', 'zh'):
            blocks, widest = check(lang, run_live(gpuvet, lang, env), problems)
            print(f'{lang}: {blocks} live blocks, widest line {widest} columns')
    finally:
        os.unlink(timeline)
    for p in problems[:40]:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
