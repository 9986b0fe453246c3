#!/usr/bin/env python3
"""Counts subsets with Python's exact integers, independently of ssum, and checks the counts
that `ssum solve --count` prints.

  count_subsets.py FILE                 prints the count for an ssum instance file
  count_subsets.py --check SSUM [SEED]  generates instances of 200 to 300 small signed weights
                                        (zeros included, counts beyond 2^128), runs SSUM on
                                        each and fails on any count that differs

The count is over index sets: subsets summing to the target, or, without a target, the
non-empty subsets summing to zero. No reduction of ssum's is used: the table runs over every
sum from the negative total to the positive one.
"""
import json
import random
import re
import subprocess
import sys


def parse_instance(text):
    target = None
    weights = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        m = re.match(r"\s*target\s*:\s*(\S+)\s*$", line)
        if m:
            target = int(m.group(1))
            continue
        weights += [int(tok) for tok in re.split(r"[\s,]+", line) if tok]
    return weights, target


def count_subsets(weights, target):
    low = sum(w for w in weights if w < 0)
    high = sum(w for w in weights if w > 0)
    goal = 0 if target is None else target
    if not low <= goal <= high:
        return 0
    counts = [0] * (high - low + 1)  # counts[s - low]: subsets summing to s
    counts[-low] = 1
    for w in weights:
        if w > 0:
            counts = counts[:w] + [a + b for a, b in zip(counts[w:], counts)]
        elif w < 0:
            counts = [a + b for a, b in zip(counts, counts[-w:])] + counts[len(counts) + w:]
        else:
            counts = [2 * a for a in counts]
    total = counts[goal - low]
    return total - 1 if target is None else total


def instance_text(weights, target):
    head = "" if target is None else f"target: {target}\n"
    return head + " ".join(str(w) for w in weights) + "\n"


def check(ssum, seed):
    rng = random.Random(seed)
    failures = 0
    cases = 0
    widest = 0
    for trial in range(8):
        n = rng.randint(200, 300)
        weights = [rng.randint(-12, 20) for _ in range(n)]
        if trial % 2:
            target = None
        else:
            low = sum(w for w in weights if w < 0)
            high = sum(w for w in weights if w > 0)
            target = rng.choice([rng.randint(low, high), 0, high, high + 1, low])
        expected = count_subsets(weights, target)
        widest = max(widest, expected.bit_length())
        for algorithm in (["--algorithm", "dp"], []):
            cases += 1
            run = subprocess.run([ssum, "solve", "--count", "--json", *algorithm, "-"],
                                 input=instance_text(weights, target), capture_output=True, text=True)
            what = f"trial {trial}, n = {n}, target {target}, {' '.join(algorithm) or 'automatic'}"
            if run.returncode not in (0, 1):
                print(f"FAIL {what}: exit {run.returncode}: {run.stderr.strip()}")
                failures += 1
                continue
            got = json.loads(run.stdout)["count"]
            if got != str(expected):
                print(f"FAIL {what}: ssum counts {got}, Python {expected}")
                failures += 1
            elif run.returncode != (0 if expected > 0 else 1):
                print(f"FAIL {what}: exit {run.returncode} for a count of {expected}")
                failures += 1
            else:
                print(f"ok   {what}: {expected.bit_length()} bits")
    if failures:
        print(f"{failures} of {cases} counts differ")
        return 1
    if widest <= 128:
        print(f"no count passed 128 bits (the widest had {widest}): the check would prove little")
        return 1
    print(f"all {cases} counts agree")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "--check":
        return check(argv[2], int(argv[3]) if len(argv) > 3 else 1)
    if len(argv) == 2:
        with open(argv[1]) as f:
            print(count_subsets(*parse_instance(f.read())))
        return 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
