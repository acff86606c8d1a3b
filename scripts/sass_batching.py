#!/usr/bin/env python3
"""Whether a kernel's global loads go out together, read from its SASS.

A fold keeps several loads in flight only where ptxas issues them before it uses the first: where
an instruction reads a load's result before a later load of the same basic block is issued, that
later load waits for the first one's round trip. ptxas decides this from the whole kernel, so a
change far from a loop can move a use between its loads (docs/design.md, SG71). This lists, per
basic block with two or more global loads, how many there are and each early use.

    cuobjdump -sass -fun KERNEL PROGRAM | scripts/sass_batching.py
    scripts/sass_batching.py --program PROGRAM [--function MANGLED_NAME]

Two builds' listings, diffed, show where a change moved a use between loads. cuobjdump comes with
the CUDA toolkit."""
import argparse
import re
import subprocess
import sys

INSTRUCTION = re.compile(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;')
LABEL = re.compile(r'\s*\.L_x_\d+:')
FUNCTION = re.compile(r'\s*Function : (\S+)')
PREDICATE = re.compile(r'^@!?U?P\w+\s+')
REGISTER = re.compile(r'\bR(\d+)\b')
ENDS_BLOCK = ('BRA', 'BRX', 'JMP', 'JMX', 'CALL', 'RET', 'EXIT', 'BSYNC')
WRITES_NO_REGISTER = ('ST', 'STG', 'STS', 'STL', 'RED', 'BAR')


def parse(lines):
    """SASS text as cuobjdump prints it -> {function: [basic block, ...]}, each block a list of
    (address, instruction without predicate or ';')."""
    functions, name, block = {}, None, []

    def close():
        if name is not None and block:
            functions[name].append(list(block))
        block.clear()

    for line in lines:
        found = FUNCTION.match(line)
        if found:
            close()
            name = found.group(1)
            functions.setdefault(name, [])
            continue
        if name is None:
            continue
        if LABEL.match(line):
            close()
            continue
        found = INSTRUCTION.match(line)
        if not found:
            continue
        text = PREDICATE.sub('', found.group(2))
        block.append((int(found.group(1), 16), text))
        opcode = text.split()[0]
        if opcode.startswith(ENDS_BLOCK) or opcode.startswith('BAR'):
            close()
    close()
    return functions


def load_registers(text):
    """The registers a global load into registers writes (LDG.E.128: four), else an empty set:
    not for LDGSTS (into shared memory) or LDGDEPBAR, nor a load into RZ."""
    opcode = text.split()[0]
    if opcode != 'LDG' and not opcode.startswith('LDG.'):
        return set()
    operands = text.split(None, 1)[1] if ' ' in text else ''
    destination = REGISTER.match(operands.strip())
    if destination is None:
        return set()
    width = 4 if '.128' in opcode else 2 if '.64' in opcode else 1
    first = int(destination.group(1))
    return set(range(first, first + width))


def registers_read(text):
    """The registers an instruction reads: every operand but the first, which it writes, unless it
    writes none (stores, reductions). A 64-bit operand is named by its first register only, which
    is enough for loads, whose results start on an aligned register."""
    parts = text.split(None, 1)
    if len(parts) < 2:
        return set()
    opcode, operands = parts
    if not opcode.startswith(WRITES_NO_REGISTER):
        operands = operands.split(',', 1)[1] if ',' in operands else ''
    return {int(r) for r in REGISTER.findall(operands)}


def early_uses(block):
    """(load address, use address) for each load of the block whose result is read before the
    block's last load is issued."""
    loads = [(i, load_registers(text)) for i, (_, text) in enumerate(block) if load_registers(text)]
    if len(loads) < 2:
        return loads, []
    last = loads[-1][0]
    found = []
    for i, written in loads[:-1]:
        for j in range(i + 1, last):
            if registers_read(block[j][1]) & written:
                found.append((block[i][0], block[j][0]))
                break
    return loads, found


def report(functions, out):
    for name, blocks in functions.items():
        out.write(f'{name}\n')
        for block in blocks:
            loads, found = early_uses(block)
            if len(loads) < 2:
                continue
            vectors = sum('.128' in block[i][1].split()[0] for i, _ in loads)
            uses = ' '.join(f'{load:05x}->{use:05x}' for load, use in found)
            out.write(f'  {block[0][0]:05x} loads {len(loads):2d} (16-byte {vectors:2d})'
                      f'{"  used early: " + uses if found else ""}\n')


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--program', help='a CUDA program or object to disassemble with cuobjdump')
    parser.add_argument('--function', help="one kernel's mangled name (with --program)")
    args = parser.parse_args(argv)
    if args.program:
        command = ['cuobjdump', '-sass'] + (['-fun', args.function] if args.function else []) + [args.program]
        try:
            text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as error:
            sys.stderr.write(f'sass_batching: {" ".join(command)} failed: {error}\n')
            return 2
        lines = text.splitlines()
    else:
        lines = sys.stdin.read().splitlines()
    functions = parse(lines)
    if not functions:
        sys.stderr.write('sass_batching: no function found in the SASS\n')
        return 2
    report(functions, sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
