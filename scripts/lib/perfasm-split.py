#!/usr/bin/env python3
"""Splits JMH -prof perfasm output by the method each sampled instruction belongs to, inlining undone.

C2 inlines most of a request's path into a few compiled methods, so a profile's frames cannot say which
part costs what. HotSpot's disassembly (with an hsdis: scripts/lib/ensure-tools.sh ensure_hsdis) prints,
for each instruction that has debug information, the inline stack it came from; an instruction without
(most arithmetic) takes the stack of the next one that has it, in the same region. This prints:
  - per part: the share of all samples (perfasm's percentages) and, given the benchmark's score, the ns
    per operation it stands for; a part is the innermost frame of ours (dev.peregrine) on the stack, or
    the first of PARTS (below) that any frame of the stack matches, in PARTS' order;
  - the code outside compiled Java (runtime stubs such as the copy stubs, the kernel, vDSO), by symbol.
Usage: perfasm-split.py PERFASM_OUTPUT [NS_PER_OP] [--lines PATTERN]
  --lines PATTERN: instead, the samples of instructions whose stack names PATTERN, by source line.
"""
import collections
import re
import sys

# Coarse parts of the server's request path; the first that matches any frame of the stack wins.
PARTS = [
    ('parse (HeadParser, FramingFields, RequestHead)', ('HeadParser::', 'FramingFields', 'RequestHead::', 'Swar::', 'TargetForm::')),
    ('frame (RequestFramer, RequestView/RequestBody reset)', ('RequestFramer::', 'RequestView::reset', 'RequestBody::')),
    ('route (Router.resolve)', ('Router::',)),
    ('response reset (ResponseView.reset)', ('ResponseView::reset',)),
    ('handler + Response setters', ('ResponseView::', 'jmh.server.ServerTimingBenchmark', 'Lambda')),
    ('watchdog (ServerLoop.enter/exitHandler)', ('ServerLoop::enterHandler', 'ServerLoop::exitHandler')),
    ('budget (RequestBudget)', ('RequestBudget::',)),
    ('encode: copy into the write buffer (put)', ('ResponseEncoder::put',)),
    ('encode: head check, body into scratch', ('ResponseEncoder::',)),
    ('request getters in dispatch', ('RequestView::',)),
]

INSN = re.compile(r'^(?:\s*([0-9.]+)%)?[^0-9a-zA-Z]*0x[0-9a-f]+:\s+(.*)$')
FRAME = re.compile(r';\s+-\s+(?:\(reexecute\)\s+)?([\w.$/]+::[\w$<>]+)@\d+ \(line (\d+)\)')
REGION = re.compile(r'^\.\.\.\.\[Hottest Region \d+\]')
OUTSIDE = re.compile(r'^\s*([0-9.]+)%\s+(runtime stub|\[kernel\.kallsyms\]|\[vdso\]|libjvm\.so|libc\.so\.6|interpreter)\s+(.*?)\s*$')


def instructions(path):
    """[percent, [frames innermost first]] per instruction of the printed regions."""
    out, region, cur = [], [], None
    section = None
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('....['):
            out.extend(region)
            region, cur = [], None
            section = 'region' if REGION.match(line) else None
            continue
        if section != 'region':
            continue
        m = INSN.match(line)
        if m:
            cur = [float(m.group(1) or 0), []]
            region.append(cur)
        if cur is not None:
            for f in FRAME.finditer(line):
                cur[1].append((f.group(1), f.group(2)))
    out.extend(region)
    return out


def fill(items):
    nxt = []
    for it in reversed(items):
        if it[1]:
            nxt = it[1]
        else:
            it[1] = nxt
    return items


def part(stack):
    for label, keys in PARTS:  # in PARTS' order: anything under HeadParser is parsing, wherever inlined
        if any(k in name for name, _ in stack for k in keys):
            return label
    ours = [n for n, _ in stack if n.startswith('dev.peregrine.')]
    if ours:
        return ours[0].split('.')[-1] + ' (own)'
    return (stack[-1][0].split('.')[-1] if stack else 'no debug info') + ' (own)'


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        sys.exit(2)
    path = args[0]
    lines_of = None
    if '--lines' in args:
        lines_of = args[args.index('--lines') + 1]
    ns = None
    for a in args[1:]:
        try:
            ns = float(a)
        except ValueError:
            pass
    items = fill(instructions(path))
    if lines_of:
        by = collections.Counter()
        for pct, st in items:
            if any(lines_of in n for n, _ in st):
                by[st[0][0].split('.')[-1] + ':' + st[0][1]] += pct
        for k, v in by.most_common(40):
            print(f'{v:6.2f}%  {k}')
        print(f'{sum(by.values()):6.2f}%  in all')
        return
    by = collections.Counter()
    for pct, st in items:
        by[part(st)] += pct
    outside = collections.Counter()
    in_methods = False
    for line in open(path, encoding='utf-8', errors='replace'):
        if line.startswith('....[Hottest Methods (after inlining)]'):
            in_methods = True
            continue
        if in_methods and line.startswith('....'):
            break
        m = OUTSIDE.match(line) if in_methods else None
        if m:
            outside[m.group(2) + ' ' + m.group(3)] += float(m.group(1))
    rows = list(by.most_common()) + [('outside Java: ' + k, v) for k, v in outside.most_common(8)]
    print('share of samples  ' + ('ns/op  ' if ns else '') + 'part')
    for k, v in rows:
        if v < 0.05:
            continue
        est = f'{v * ns / 100:5.1f}  ' if ns else ''
        print(f'{v:6.2f}%           {est}{k}')
    print(f'{sum(by.values()):6.2f}%  in the compiled regions printed (raise hotThreshold if low)')


if __name__ == '__main__':
    main()
