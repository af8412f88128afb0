#!/usr/bin/env python3
"""sass-model.py FILE.sass...: a static model of the force kernel's inner loop, from `cuobjdump --dump-sass`.

For the innermost loop of each `forces` function (the longest backward branch with an MUFU and no
barrier) it prints: instructions per interaction, the register-file read cycles per interaction and
per instruction, and the MUFUs issued within two instructions of another.

The register-file model: two banks (register number modulo 2), one read per bank per cycle, an operand
served from the reuse cache (`.reuse` on the same slot of the previous instruction) costs no read.
An instruction takes at least one cycle, more when its fresh operands need them. It is a model, not the
hardware: variants.sh uses it to choose which builds to time, and how well it ranks them is in
report/explore/README.md. A build's tag (its file name) carries -bR-uU- (bodies per thread, unroll)
for the per-interaction columns; without it the MUFUs of the loop are counted instead.
"""
import re
import sys
from collections import Counter

CODE = re.compile(r'\s+/\*([0-9a-f]{4})\*/\s+(.*?);')


def functions(text):
    """(name, body) of each function whose name contains `forces`."""
    for part in re.split(r'\n\s+Function : ', text)[1:]:
        name = part.split('\n')[0].strip()
        if 'forces' in name:
            yield name, part


def instructions(body):
    return [(int(m.group(1), 16), m.group(2).strip()) for m in map(CODE.match, body.split('\n')) if m]


def inner_loop(ins):
    """The longest span closed by a backward branch that holds an MUFU and no barrier."""
    best = []
    for address, text in ins:
        target = re.search(r'BRA (0x[0-9a-f]+)', text)
        if not target or int(target.group(1), 16) >= address:
            continue
        span = [x for x in ins if int(target.group(1), 16) <= x[0] <= address]
        if any('MUFU' in t for _, t in span) and not any('BAR' in t for _, t in span) and len(span) > len(best):
            best = span
    return best


def source_registers(text):
    """(slot, register, reuse flag) of each vector-register source operand."""
    parts = text.split(None, 1)
    if len(parts) < 2:
        return []
    out = []
    for slot, operand in enumerate(o.strip() for o in parts[1].split(',')[1:]):
        m = re.search(r'(?<![U\w])R(\d+)(\.reuse)?', operand)
        if m:
            out.append((slot, int(m.group(1)), bool(m.group(2))))
    return out


def read_cycles(loop):
    cache, cycles = {}, 0
    for _, text in loop:
        op = text.split()[0]
        if op.startswith('@'):  # predicated branch: ends the straight line
            cache = {}
            continue
        fresh, kept = set(), {}
        for slot, reg, reuse in source_registers(text):
            if cache.get(slot) != reg:
                fresh.add(reg)
            if reuse:
                kept[slot] = reg
        cache = kept
        per_bank = Counter(r % 2 for r in fresh)
        cycles += max([1] + list(per_bank.values()))
    return cycles


def close_mufus(loop):
    at = [i for i, (_, t) in enumerate(loop) if 'MUFU' in t]
    gaps = [b - a for a, b in zip(at, at[1:])] + [len(loop) - at[-1] + at[0]]
    return sum(g <= 2 for g in gaps)


def main(paths):
    rows = []
    for path in paths:
        try:
            with open(path) as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            sys.stderr.write('sass-model.py: cannot read %s: %s\n' % (path, e.strerror if isinstance(e, OSError) else e.reason))
            sys.exit(2)
        tag = re.sub(r'(\.o)?\.sass$', '', path.split('/')[-1])
        m = re.search(r'-b(\d+)-u(\d+)-', tag)
        per = int(m.group(1)) * int(m.group(2)) if m else None
        for _, body in functions(text):
            loop = inner_loop(instructions(body))
            if not loop:
                continue
            cycles = read_cycles(loop)
            per = per or sum('MUFU' in t for _, t in loop)
            rows.append((cycles / per, cycles / len(loop), len(loop) / per, close_mufus(loop), tag))
    print('cycles/interaction cycles/instruction instructions/interaction close_mufus build')
    for row in sorted(rows):
        print('%.4f %.4f %.3f %d %s' % row)


if __name__ == '__main__':
    if len(sys.argv) < 2 or sys.argv[1].startswith('-'):
        sys.stderr.write('usage: report/explore/sass-model.py FILE.sass... (from cuobjdump --dump-sass)\n')
        sys.exit(2)
    main(sys.argv[1:])
