#!/usr/bin/env python3
"""Fuzzing helpers for fmha-opt (docs/Development.md, "Fuzzing").

  fuzz.py corpus OUT            seed corpus for the libFuzzer target fmha-fuzz
  fuzz.py mutate --fmha-opt BIN a mutation fuzzer that runs fmha-opt
  fuzz.py replay INPUT          a fmha-fuzz input as a .mlir file + fmha-opt line

Inputs of both fuzzers are one selector byte followed by MLIR text; the byte
picks a pass pipeline from pipelines.def (byte % count). The seeds are the
`.mlir` files under test/ and examples/, split at `// -----` (and at
split-file's `//--- ` markers), without their comment lines.

`mutate` needs nothing but Python and a built fmha-opt. Each run i mutates a
seed with random.Random(seed * 1000003 + i), so a run count and a seed give
the same inputs on every machine, however many jobs run them. An input whose
fmha-opt dies of a signal, prints LLVM's crash banner, or runs past the
timeout is a finding: it is written to the findings folder with the command
that reproduces it, and the exit status is 1.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def pipelines():
    """The pipelines of pipelines.def, in order."""
    text = open(os.path.join(HERE, "pipelines.def")).read()
    return re.findall(r'^FMHA_FUZZ_PIPELINE\("(.*)"\)\s*$', text, re.M)


def seed_chunks(root=ROOT):
    """(file, index, text) for each split of each .mlir file of the repo."""
    files = []
    for top in ("test", "examples"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.join(dirpath, n) for n in names
                      if n.endswith(".mlir")]
    chunks = []
    for path in sorted(files):
        rel = os.path.relpath(path, root)
        parts, cur = [], []
        for line in open(path, encoding="utf-8"):
            if line.startswith("// -----") or line.startswith("//--- "):
                parts.append(cur)
                cur = []
                continue
            if line.lstrip().startswith("//"):
                continue
            cur.append(line)
        parts.append(cur)
        for i, lines in enumerate(parts):
            text = "".join(lines).strip("\n") + "\n"
            if text.strip():
                chunks.append((rel, i, text))
    return chunks


def pipelines_for(rel, text, table):
    """Selector bytes worth seeding a chunk with: its file's own passes, and
    the whole pipelines for anything that is not a negative test."""
    if rel.endswith("invalid.mlir"):
        return [0]
    picks = {1, 2, 3}
    src = open(os.path.join(ROOT, rel), encoding="utf-8").read()
    for i, p in enumerate(table):
        inner = p[len("builtin.module("):-1]
        if inner and "," not in inner and "{" not in inner and \
                re.search(r"--" + re.escape(inner) + r"\b", src):
            picks.add(i)
    return sorted(picks)


def cmd_corpus(args):
    table = pipelines()
    os.makedirs(args.out, exist_ok=True)
    n = 0
    for rel, i, text in seed_chunks():
        for sel in pipelines_for(rel, text, table):
            data = bytes([sel]) + text.encode()
            name = hashlib.sha1(data).hexdigest()
            with open(os.path.join(args.out, name), "wb") as f:
                f.write(data)
            n += 1
    print(f"fuzz.py: {n} seeds in {args.out}")


# --- the mutation fuzzer --------------------------------------------------

TOKEN = re.compile(r'"[^"\n]*"|[%@^#!]?[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?'
                   r'|->|\S')
NUMBER = re.compile(r'(?<![\w.])-?\d+(?![\w.])')
INTERESTING = ["0", "1", "-1", "2", "3", "7", "31", "32", "33", "63", "64",
               "127", "128", "255", "256", "512", "1023", "1024", "4096",
               "65535", "65536", "232448", "2147483647", "-2147483648",
               "4294967295", "4294967296", "9223372036854775807",
               "-9223372036854775808", "99999999999999999999"]


def dictionary():
    words = []
    for line in open(os.path.join(HERE, "mlir.dict"), encoding="utf-8"):
        line = line.strip()
        if line.startswith('"') and line.endswith('"'):
            words.append(line[1:-1].encode().decode("unicode_escape"))
    return words


def mutate(rng, text, chunks, words):
    """One to four random edits of text, mostly one."""
    for _ in range(rng.choice([1, 1, 1, 1, 2, 2, 3, 4])):
        kind = rng.randrange(9)
        lines = text.splitlines(keepends=True)
        toks = [m for m in TOKEN.finditer(text)]
        if kind == 0 and toks:  # delete a token
            m = rng.choice(toks)
            text = text[:m.start()] + text[m.end():]
        elif kind == 1 and toks:  # duplicate a token somewhere
            m, at = rng.choice(toks), rng.choice(toks)
            text = text[:at.start()] + m.group() + " " + text[at.start():]
        elif kind == 2 and len(toks) > 1:  # swap two tokens
            a, b = sorted(rng.sample(toks, 2), key=lambda m: m.start())
            text = (text[:a.start()] + b.group() + text[a.end():b.start()] +
                    a.group() + text[b.end():])
        elif kind == 3:  # tweak a number
            nums = list(NUMBER.finditer(text))
            if nums:
                m = rng.choice(nums)
                v = int(m.group())
                new = rng.choice(INTERESTING + [str(v + 1), str(v - 1),
                                                str(v * 2), str(v // 2),
                                                str(-v)])
                text = text[:m.start()] + new + text[m.end():]
        elif kind == 4 and lines:  # delete lines
            i = rng.randrange(len(lines))
            j = min(len(lines), i + rng.randint(1, 3))
            text = "".join(lines[:i] + lines[j:])
        elif kind == 5 and lines:  # duplicate a line
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines) + 1)
            text = "".join(lines[:j] + [lines[i]] + lines[j:])
        elif kind == 6 and lines:  # splice lines from another seed
            other = rng.choice(chunks)[2].splitlines(keepends=True)
            a = rng.randrange(len(other))
            piece = other[a:a + rng.randint(1, 6)]
            i = rng.randrange(len(lines) + 1)
            j = min(len(lines), i + rng.randint(0, 3))
            text = "".join(lines[:i] + piece + lines[j:])
        elif kind == 7 and toks:  # a dictionary word in place of a token
            m = rng.choice(toks)
            text = text[:m.start()] + rng.choice(words) + text[m.end():]
        elif kind == 8 and toks:  # a token of the same shape from elsewhere
            m = rng.choice(toks)
            same = [t for t in toks if t.group()[:1] == m.group()[:1]]
            text = text[:m.start()] + rng.choice(same).group() + text[m.end():]
    return text


CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump:",
                 "LLVM ERROR:", "Assertion `", "AddressSanitizer",
                 "UNREACHABLE executed")


def run_one(fmha_opt, pipeline, text, timeout):
    """'passed', 'rejected' (an error), 'crash' or 'hang', and stderr."""
    cmd = [fmha_opt, "--pass-pipeline=" + pipeline, "-o", os.devnull, "-"]
    try:
        p = subprocess.run(cmd, input=text.encode(), capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", ""
    err = p.stderr.decode(errors="replace")
    if p.returncode < 0 or p.returncode > 1 or \
            any(m in err for m in CRASH_MARKERS):
        return "crash", err
    return ("passed" if p.returncode == 0 else "rejected"), err


def cmd_mutate(args):
    table = pipelines()
    chunks = seed_chunks()
    valid = [c for c in chunks if not c[0].endswith("invalid.mlir")]
    words = dictionary()
    fmha_opt = os.path.abspath(args.fmha_opt)
    os.makedirs(args.findings, exist_ok=True)
    start = time.monotonic()
    deadline = start + args.time if args.time else None

    def make(i):
        rng = random.Random(args.seed * 1000003 + i)
        # Mostly IR that verifies, so that mutants reach the passes.
        rel, _, text = rng.choice(valid if rng.random() < 0.75 else chunks)
        text = mutate(rng, text, chunks, words)
        return rng.randrange(len(table)), text

    def work(i):
        if deadline and time.monotonic() > deadline:
            return i, None, None, None, None
        sel, text = make(i)
        outcome, err = run_one(fmha_opt, table[sel], text, args.timeout)
        return i, sel, text, outcome, err

    counts = {"passed": 0, "rejected": 0, "crash": 0, "hang": 0}
    seen = set()
    n = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        i = 0
        pending = set()
        while True:
            while len(pending) < 2 * args.jobs and \
                    (args.runs is None or i < args.runs) and \
                    not (deadline and time.monotonic() > deadline):
                pending.add(pool.submit(work, i))
                i += 1
            if not pending:
                break
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for f in done:
                idx, sel, text, outcome, err = f.result()
                if outcome is None:
                    continue
                n += 1
                counts[outcome] += 1
                if outcome in ("passed", "rejected"):
                    continue
                # One report per distinct first line of the crash.
                key = (outcome, next((l for l in err.splitlines()
                                      if "Assertion" in l or "ERROR" in l),
                                     err[:200]))
                name = f"{outcome}-{args.seed}-{idx}"
                path = os.path.join(args.findings, name + ".mlir")
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
                with open(os.path.join(args.findings, name + ".txt"), "w",
                          encoding="utf-8") as fh:
                    fh.write(f"fmha-opt --pass-pipeline='{table[sel]}' "
                             f"{path}\n\n{err}")
                if key not in seen:
                    seen.add(key)
                    print(f"fuzz.py: {outcome} on run {idx}: fmha-opt "
                          f"--pass-pipeline='{table[sel]}' {path}", flush=True)
                    tail = err.strip().splitlines()[:12]
                    print("  " + "\n  ".join(tail), flush=True)
    secs = time.monotonic() - start
    print(f"fuzz.py: {n} runs in {secs:.0f} s, seed {args.seed}: "
          f"{counts['passed']} passed, {counts['rejected']} rejected, "
          f"{counts['crash']} crashes, {counts['hang']} hangs")
    return 1 if counts["crash"] or counts["hang"] else 0


def cmd_replay(args):
    data = open(args.input, "rb").read()
    table = pipelines()
    if not data:
        sys.exit("fuzz.py: empty input")
    out = args.out or args.input + ".mlir"
    with open(out, "wb") as f:
        f.write(data[1:])
    print(f"fmha-opt --pass-pipeline='{table[data[0] % len(table)]}' {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("corpus", help="write the seed corpus")
    c.add_argument("out")
    m = sub.add_parser("mutate", help="mutation fuzzing of fmha-opt")
    m.add_argument("--fmha-opt", required=True)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--runs", type=int, help="stop after this many inputs")
    m.add_argument("--time", type=float, help="stop after this many seconds")
    m.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    m.add_argument("--timeout", type=float, default=20,
                   help="seconds one input may take before it is a hang")
    m.add_argument("--findings", default="fuzz-findings")
    r = sub.add_parser("replay", help="a fmha-fuzz input as fmha-opt's")
    r.add_argument("input")
    r.add_argument("-o", dest="out")
    args = ap.parse_args()
    if args.cmd == "corpus":
        cmd_corpus(args)
    elif args.cmd == "mutate":
        sys.exit(cmd_mutate(args))
    else:
        cmd_replay(args)


if __name__ == "__main__":
    main()
