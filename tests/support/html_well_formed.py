#!/usr/bin/env python3
"""Checks that an HTML file is well formed the way gpuvet writes its pages, with Python's own HTML
parser (html.parser): a <!DOCTYPE html> first; every element except the void ones (br, meta...)
closed, innermost first; no end tag without its start; no unknown character reference; exactly
one html, head and body. Prints the problems (FILE:LINE:COLUMN) and exits 1, or exits 0.
Usage: html_well_formed.py FILE"""
import html.entities
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
ONCE = ("html", "head", "body")  # <title> also names SVG shapes


class Checker(HTMLParser):
    def __init__(self, name):
        super().__init__(convert_charrefs=False)
        self.name, self.open, self.problems, self.counts, self.doctype = name, [], [], {}, None

    def problem(self, text):
        line, column = self.getpos()
        self.problems.append(f"{self.name}:{line}:{column + 1}: {text}")

    def handle_decl(self, decl):
        if self.doctype is None and (self.open or self.counts):
            self.problem("the DOCTYPE is not first")
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        if self.doctype is None:
            self.problem(f"<{tag}> before the DOCTYPE")
            self.doctype = ""
        self.counts[tag] = self.counts.get(tag, 0) + 1
        if tag not in VOID:
            self.open.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        # <rect/> in inline SVG: opened and closed at once.
        self.counts[tag] = self.counts.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if tag in VOID:
            self.problem(f"</{tag}>: {tag} is a void element")
        elif not self.open:
            self.problem(f"</{tag}> closes nothing")
        elif self.open[-1][0] != tag:
            opened, (line, column) = self.open[-1]
            self.problem(f"</{tag}> while <{opened}> (line {line}:{column + 1}) is open")
        else:
            self.open.pop()

    def handle_entityref(self, name):
        if name not in html.entities.name2codepoint:
            self.problem(f"unknown character reference &{name};")


def main():
    name = sys.argv[1]
    with open(name, encoding="utf-8") as f:
        text = f.read()
    checker = Checker(name)
    checker.feed(text)
    checker.close()
    if (checker.doctype or "").lower() != "doctype html":
        checker.problems.append(f"{name}: no <!DOCTYPE html> (found {checker.doctype!r})")
    for tag, (line, column) in checker.open:
        checker.problems.append(f"{name}:{line}:{column + 1}: <{tag}> is never closed")
    for tag in ONCE:
        if checker.counts.get(tag, 0) != 1:
            checker.problems.append(f"{name}: {checker.counts.get(tag, 0)} <{tag}> elements, not one")
    for p in checker.problems:
        print(p)
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main())
