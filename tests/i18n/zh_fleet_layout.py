#!/usr/bin/env python3
"""The Chinese fleet and compare reports fit a 100-column terminal with their columns lined up.
Audits every recorded tree of tests/fixtures/sysroot (plus two copies of one with another kernel, so
that a group has odd nodes), then checks `gpuvet --lang zh fleet` of them all and `gpuvet --lang zh
compare` of every pair of neighbours:
- every compare line is at most 100 display columns (a CJK character takes two); fleet prints long
  values whole, so its limit holds for every line but the values of a configuration;
- fleet: in each configuration table the value starts at the same display column on every row;
- compare: on every row of three columns the two blanks between the columns sit at the same
  display columns (no cell runs into the next one) and each cell starts where its column does.

usage: zh_fleet_layout.py GPUVET FIXTURES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

WIDTH = 100
LABEL, CELL = 24, 36  # report/fleet_text.c: LABEL_WIDTH, CELL_WIDTH


def cols(text):
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in ('W', 'F') else 1
               for ch in text)


def char_at(line, column):
    """The character covering display column `column` (0-based), or '' past the end."""
    at = 0
    for ch in line:
        width = cols(ch)
        if at <= column < at + max(width, 1):
            return ch
        at += width
    return ''


def columns(line, start, end):
    """The characters of `line` between display columns start and end (0-based, end excluded)."""
    out, at = [], 0
    for ch in line:
        if start <= at < end:
            out.append(ch)
        at += cols(ch)
    return ''.join(out)


def run(gpuvet, *args):
    return subprocess.run([gpuvet, '--lang', 'zh', *args], capture_output=True, text=True, env=dict(os.environ, LC_ALL='C'))


def check_fleet(text, problems):
    lines = text.split('\n')
    in_configuration = False
    value_column = 4 + LABEL + 1
    for n, line in enumerate(lines, 1):
        if line in ('  多数节点的配置：', '  配置：'):
            in_configuration = True
            continue
        if in_configuration and line.startswith('    ') and not line.startswith('     '):
            if char_at(line, value_column - 1) != ' ' or char_at(line, value_column) in (' ', ''):
                problems.append('fleet line %d: the value does not start at column %d: %r' % (n, value_column + 1, line))
            continue
        in_configuration = False
        if cols(line) > WIDTH:
            problems.append('fleet line %d is %d columns wide: %r' % (n, cols(line), line))


def check_compare(name, text, problems):
    gaps = (2 + LABEL, 2 + LABEL + 1 + CELL)
    rows = False
    for n, line in enumerate(text.split('\n'), 1):
        if cols(line) > WIDTH:
            problems.append('%s line %d is %d columns wide: %r' % (name, n, cols(line), line))
        if line in ('差异：', '两者相同：', '测速结果：'):
            rows = True
            continue
        if not line.startswith('  ') or line.startswith('  警告') or line.startswith('  失败'):
            rows = rows and line.startswith('  ')
            continue
        if not rows:
            continue
        for gap in gaps:
            if cols(line) > gap and char_at(line, gap) != ' ':
                problems.append('%s line %d runs into the blank at column %d: %r' % (name, n, gap + 1, line))
        # Each cell starts where its column does: a cell led by blanks was pushed right.
        for start, end in ((2, gaps[0]), (gaps[0] + 1, gaps[1]), (gaps[1] + 1, WIDTH * 2)):
            cell = columns(line, start, end)
            if cell.strip() and cell[0] == ' ':
                problems.append('%s line %d: the cell at column %d starts late: %r' % (name, n, start + 1, line))



def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    gpuvet, fixtures = sys.argv[1], sys.argv[2]
    trees = sorted(os.path.join(fixtures, 'sysroot', t) for t in os.listdir(os.path.join(fixtures, 'sysroot'))
                   if os.path.isdir(os.path.join(fixtures, 'sysroot', t)))
    problems = []
    with tempfile.TemporaryDirectory() as docs:
        for i, tree in enumerate(trees):
            path = os.path.join(docs, 'node%02d.json' % i)
            r = subprocess.run([gpuvet, 'audit', '--json', '--sample', '0', '--sysroot', tree, '--output', path],
                               capture_output=True, text=True)
            if r.returncode not in (0, 1):
                problems.append('audit of %s: exit %d: %s' % (tree, r.returncode, r.stderr))
        names = sorted(os.listdir(docs))
        # Two more nodes of the first tree's kind, one with another kernel: a group with an odd node.
        with open(os.path.join(docs, names[0])) as f:
            doc = json.load(f)
        for k, release in enumerate(('', '6.1.0-other')):
            copy = json.loads(json.dumps(doc))
            copy['machine']['hostname'] = 'copy%d' % k
            if release:
                copy['machine'].setdefault('kernel', {})['release'] = release
            with open(os.path.join(docs, 'copy%d.json' % k), 'w') as f:
                json.dump(copy, f)
        r = run(gpuvet, 'fleet', docs)
        if r.returncode not in (0, 1) or '第 1 组' not in r.stdout:
            problems.append('fleet: exit %d: %s%s' % (r.returncode, r.stderr, r.stdout[:2000]))
        check_fleet(r.stdout, problems)
        for a, b in zip(names, names[1:]):
            r = run(gpuvet, 'compare', os.path.join(docs, a), os.path.join(docs, b))
            if r.returncode not in (0, 1) or '两者相同：' not in r.stdout and '差异：' not in r.stdout:
                problems.append('compare %s %s: exit %d: %s' % (a, b, r.returncode, r.stderr))
            check_compare('compare %s %s' % (a, b), r.stdout, problems)
    for p in problems:
        print(p)
    print('%d trees, %d problems' % (len(trees), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
