#!/usr/bin/env python3
"""Compare ssum's subset listing with the tools users pick for the same question.

For each instance, ssum and every peer answer the same question (every subset whose sum
lies in a window, every subset of exactly k items, or "none, one or several?"). The script
compares the SETS of subsets they report (sorted index tuples), not only how many, checks
that every reported subset really sums into the window (Python integers, so nothing is
rounded), and times each tool.

Timing:
  * ssum: the whole process (reading the instance, planning, listing, writing JSON Lines to
    a file), measured around subprocess.run, because that is what a user of the command
    waits for.
  * Python peers: only the solver call, measured inside a child process. The child exists so
    that a peer past its timeout, or one that allocates without bound, can be killed without
    taking this script (or the machine) with it; building the model or list is not timed.

Peers:
  * dpss (find_subset): takes integers and one exact target, and returns values, not indices.
    Amounts with cents are scaled by 100 here; a window is asked as one call per integer
    target in it; values are mapped back to indices, which is exact only because every
    instance is generated with distinct weights (asserted below).
  * OR-Tools CP-SAT: one Boolean per item, the weighted sum constrained to the window (cents
    for amounts), all solutions enumerated by a callback (enumerate_all_solutions, which runs
    one worker). For the unique question the callback stops at the second solution.

Usage: python compare_listing.py [--ssum PATH] [--timeout S] [--quick] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SSUM = REPO / "build" / "release" / "ssum"

# A peer that allocates without bound (dpss's table over a 10^9-scale target) must fail in
# its own process instead of pushing the machine into the OOM killer.
PEER_ADDRESS_SPACE = 16 << 30


# --------------------------------------------------------------------------- instances


@dataclass
class Instance:
    name: str
    weights: list[int]  # integers, already scaled by 10^decimals
    lo: int  # window, inclusive, same scale as weights
    hi: int
    decimals: int = 0
    items: int | None = None  # exactly this many items
    mode: str = "all"  # "all" or "unique"
    planted: tuple[int, ...] = ()
    notes: str = ""

    def fmt(self, v: int) -> str:
        if self.decimals == 0:
            return str(v)
        s = f"{abs(v):0{self.decimals + 1}d}"
        sign = "-" if v < 0 else ""
        return f"{sign}{s[:-self.decimals]}.{s[-self.decimals:]}"


def distinct(rng: random.Random, n: int, draw) -> list[int]:
    # dpss reports values, not indices: distinct weights make the mapping back exact.
    seen: set[int] = set()
    out: list[int] = []
    while len(out) < n:
        w = draw(rng)
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def invoices(n: int, seed: int) -> Instance:
    rng = random.Random(seed)
    lo_c, hi_c = 1000, 2000000  # 10.00 to 20000.00 in cents

    def draw(r: random.Random) -> int:
        # Log-uniform: invoices span orders of magnitude, many small and a few large.
        return round(math.exp(r.uniform(math.log(lo_c), math.log(hi_c))))

    w = distinct(rng, n, draw)
    planted = tuple(sorted(rng.sample(range(n), 4)))
    t = sum(w[i] for i in planted)
    return Instance(f"invoices n={n}", w, t - 5, t + 5, decimals=2, planted=planted,
                    notes="payment = 4 invoices, window +-0.05")


def k_of_n(n: int, k: int, seed: int) -> Instance:
    rng = random.Random(seed)
    w = distinct(rng, n, lambda r: r.randrange(10**9, 2 * 10**9))
    planted = tuple(sorted(rng.sample(range(n), k)))
    t = sum(w[i] for i in planted)
    return Instance(f"{k} of n={n}", w, t, t, items=k, planted=planted,
                    notes=f"weights in [1e9, 2e9), exactly {k} items")


def unique_dense(n: int, bits: int, seed: int) -> Instance:
    rng = random.Random(seed)
    w = distinct(rng, n, lambda r: r.randrange(1, 1 << bits))
    planted = tuple(i for i in range(n) if rng.random() < 0.5)
    t = sum(w[i] for i in planted)
    return Instance(f"unique n={n} {bits}-bit", w, t, t, mode="unique", planted=planted,
                    notes="density 1, planted target, none/unique/several")


def all_instances() -> list[Instance]:
    return [
        # Small enough for every peer to finish, so the set comparison is exercised on all.
        invoices(20, 20),
        invoices(30, 30),
        invoices(40, 40),
        invoices(60, 60),
        k_of_n(40, 5, 4005),
        k_of_n(60, 5, 6005),
        unique_dense(50, 50, 5050),
    ]


# --------------------------------------------------------------------------- results


@dataclass
class Result:
    tool: str
    status: str  # "ok", "did not finish", "refused", "failed"
    seconds: float | None = None
    subsets: set[tuple[int, ...]] = field(default_factory=set)
    complete: bool = False  # the tool says its list is every subset
    verdict: str | None = None  # unique mode: none / unique / several
    detail: str = ""
    timing: str = ""


def verify(inst: Instance, subs: set[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The reported subsets that are not answers: wrong sum, size, or indices."""
    bad = []
    n = len(inst.weights)
    for s in subs:
        ok = len(set(s)) == len(s) and all(0 <= i < n for i in s)
        ok = ok and inst.lo <= sum(inst.weights[i] for i in s) <= inst.hi
        ok = ok and (inst.items is None or len(s) == inst.items)
        ok = ok and len(s) > 0
        if not ok:
            bad.append(s)
    return bad


# --------------------------------------------------------------------------- ssum


def run_ssum(inst: Instance, ssum: Path, timeout: float, workdir: Path) -> Result:
    path = workdir / (inst.name.replace(" ", "_").replace("=", "") + ".txt")
    # One amount a line: ssum refuses commas next to decimal amounts (thousands separators).
    path.write_text("\n".join(inst.fmt(w) for w in inst.weights) + "\n")
    mid = (inst.lo + inst.hi) // 2
    cmd = [str(ssum), "solve", "--json", "--target", inst.fmt(mid),
           "--time-limit", str(int(timeout))]
    if inst.hi != inst.lo:
        cmd += ["--tolerance", inst.fmt(inst.hi - mid)]
    if inst.items is not None:
        cmd += ["--items", str(inst.items)]
    cmd += ["--unique"] if inst.mode == "unique" else ["--all"]
    cmd.append(str(path))
    out = workdir / "ssum.out"
    t0 = time.perf_counter()
    try:
        with open(out, "wb") as f:
            proc = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, timeout=timeout + 10)
    except subprocess.TimeoutExpired:
        return Result("ssum", "did not finish", timing="process")
    secs = time.perf_counter() - t0
    err = proc.stderr.decode(errors="replace").strip()
    res = Result("ssum", "ok", secs, timing="process")
    summary = None
    with open(out) as f:
        for line in f:
            obj = json.loads(line)
            if "subset" in obj and len(obj) == 1:
                res.subsets.add(tuple(sorted(obj["subset"])))
            else:
                summary = obj
    res.detail = f"exit {proc.returncode}"
    if proc.returncode == 3:
        res.status = "refused"
        res.detail += ": " + err.splitlines()[-1] if err else ""
        return res
    if proc.returncode == 5:
        res.status = "did not finish"
    elif proc.returncode not in (0, 1) or summary is None:
        res.status = "failed"
        res.detail += ": " + (err.splitlines()[-1] if err else "no summary")
        return res
    if inst.mode == "unique":
        res.verdict = summary.get("unique")
        res.subsets = {tuple(sorted(s)) for s in summary.get("subsets", [])}
        if res.verdict is None and summary.get("subset") is not None:
            res.subsets.add(tuple(sorted(summary["subset"])))
        res.complete = res.verdict is not None
    else:
        res.complete = bool(summary.get("complete"))
        if summary.get("listed") != len(res.subsets):
            res.detail += f"; summary says {summary.get('listed')} listed"
    return res


# --------------------------------------------------------------------------- peers
# Each runs in a child process: it writes {"seconds", "subsets", "complete", ...} to a file.


def peer_dpss(inst: Instance) -> dict:
    import dpss

    index = {w: i for i, w in enumerate(inst.weights)}
    assert len(index) == len(inst.weights), "dpss needs distinct weights to recover indices"
    max_len = inst.items if inst.items is not None else len(inst.weights)
    found: set[tuple[int, ...]] = set()
    t0 = time.perf_counter()
    # dpss answers one exact target; a window is every integer target in it.
    for t in range(inst.lo, inst.hi + 1):
        for values in dpss.find_subset(inst.weights, t, max_len):
            found.add(tuple(sorted(index[v] for v in values)))
    secs = time.perf_counter() - t0
    if inst.items is not None:
        # max_length is "at most": the exact-size question keeps only those of k items.
        found = {s for s in found if len(s) == inst.items}
    return {"seconds": secs, "subsets": sorted(found), "complete": True}


def peer_cpsat(inst: Instance, limit: int | None, timeout: float) -> dict:
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    x = [m.NewBoolVar(f"x{i}") for i in range(len(inst.weights))]
    m.AddLinearConstraint(sum(w * v for w, v in zip(inst.weights, x)), inst.lo, inst.hi)
    if inst.items is not None:
        m.Add(sum(x) == inst.items)
    else:
        m.Add(sum(x) >= 1)  # ssum lists non-empty subsets only

    class Collect(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.found: list[tuple[int, ...]] = []

        def on_solution_callback(self):
            self.found.append(tuple(i for i, v in enumerate(x) if self.Value(v)))
            if limit is not None and len(self.found) >= limit:
                self.StopSearch()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.max_time_in_seconds = timeout
    cb = Collect()
    t0 = time.perf_counter()
    status = solver.Solve(m, cb)
    secs = time.perf_counter() - t0
    # OPTIMAL/INFEASIBLE after enumeration means the search space was exhausted; a stop at
    # the limit leaves FEASIBLE, which for the unique question is still a full answer.
    exhausted = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
    stopped_at_limit = limit is not None and len(cb.found) >= limit
    return {"seconds": secs, "subsets": sorted(set(cb.found)),
            "complete": exhausted or stopped_at_limit,
            "status": solver.StatusName(status)}


def _child(fn_name: str, inst: Instance, out: str, args: tuple) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (PEER_ADDRESS_SPACE, PEER_ADDRESS_SPACE))
    try:
        r = globals()[fn_name](inst, *args)
    except BaseException as e:  # report MemoryError and the like as the peer's failure
        r = {"error": f"{type(e).__name__}: {e}"[:200]}
    with open(out, "w") as f:
        json.dump(r, f)


def run_peer(tool: str, fn_name: str, inst: Instance, args: tuple, timeout: float,
             workdir: Path) -> Result:
    out = workdir / f"{tool}.json"
    out.unlink(missing_ok=True)
    p = mp.get_context("fork").Process(target=_child, args=(fn_name, inst, str(out), args))
    p.start()
    # A little grace past the timeout: the peer's own limit (CP-SAT's) should end it first.
    p.join(timeout + 15)
    if p.is_alive():
        p.kill()
        p.join()
        return Result(tool, "did not finish", timing="in-process",
                      detail=f"killed after {timeout:.0f} s")
    if not out.exists():
        return Result(tool, "failed", timing="in-process", detail=f"exit {p.exitcode}")
    r = json.loads(out.read_text())
    if "error" in r:
        return Result(tool, "failed", timing="in-process", detail=r["error"])
    res = Result(tool, "ok", r["seconds"], {tuple(s) for s in r["subsets"]},
                 complete=r["complete"], timing="in-process", detail=r.get("status", ""))
    if not res.complete:
        res.status = "did not finish"
    if inst.mode == "unique":
        # Two subsets settle "several" even from a search that stopped; "none" and "unique"
        # need the search to have been exhaustive.
        subs = res.subsets
        if len(subs) >= 2:
            res.verdict = "several"
        elif res.complete:
            res.verdict = "unique" if subs else "none"
    return res


# --------------------------------------------------------------------------- compare


def same_as_ssum(inst: Instance, ref: Result, r: Result) -> str:
    if r.tool == "ssum":
        return "-"
    if r.status != "ok":
        return "not finished"
    if ref.status != "ok" or not ref.complete:
        return "ssum n/a"
    if inst.mode == "unique":
        # "several" may name different pairs; "unique" must name the same subset.
        if r.verdict != ref.verdict:
            return "no"
        if r.verdict == "unique":
            return "yes" if r.subsets == ref.subsets else "no"
        return "yes"
    return "yes" if r.subsets == ref.subsets else "no"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ssum", type=Path, default=DEFAULT_SSUM)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per tool (60)")
    ap.add_argument("--quick", action="store_true", help="smaller instances only (n <= 40)")
    ap.add_argument("--only", nargs="*", help="instance names containing any of these")
    ap.add_argument("--tools", nargs="*", default=["ssum", "dpss", "cp-sat"])
    ap.add_argument("--json", type=Path, help="also write the rows as JSON to this file")
    a = ap.parse_args()

    insts = all_instances()
    if a.quick:
        insts = [i for i in insts if len(i.weights) <= 40]
    if a.only:
        insts = [i for i in insts if any(s in i.name for s in a.only)]

    versions = {"python": platform.python_version()}
    for mod in ("dpss", "ortools"):
        try:
            from importlib.metadata import version
            versions[mod] = version(mod)
        except Exception:
            versions[mod] = "not installed"
    ssum_v = subprocess.run([str(a.ssum), "--version"], capture_output=True, text=True)
    versions["ssum"] = (ssum_v.stdout or ssum_v.stderr).strip().removeprefix("ssum ")
    print(f"# {platform.node()}: {os.cpu_count()} cores, {platform.machine()}, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB; "
          f"timeout {a.timeout:.0f} s per tool; " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print("# ssum: whole process; peers: the solver call in-process (model building excluded);"
          " peers see amounts scaled by 100 (cents)")

    rows = []
    hdr = f"{'instance':<20} {'tool':<7} {'seconds':>9} {'subsets':>9} {'subsets/s':>10} " \
          f"{'same set as ssum':<17} notes"
    print(hdr)
    print("-" * len(hdr))
    disagreements = []
    with tempfile.TemporaryDirectory(prefix="ssum-peers-") as tmp:
        work = Path(tmp)
        for inst in insts:
            results = []
            if "ssum" in a.tools:
                results.append(run_ssum(inst, a.ssum, a.timeout, work))
            else:
                results.append(Result("ssum", "did not finish", detail="not run"))
            limit = 2 if inst.mode == "unique" else None
            if "dpss" in a.tools:
                results.append(run_peer("dpss", "peer_dpss", inst, (), a.timeout, work))
            if "cp-sat" in a.tools:
                results.append(run_peer("cp-sat", "peer_cpsat", inst, (limit, a.timeout),
                                        a.timeout, work))
            ref = results[0]
            for r in results:
                bad = verify(inst, r.subsets)
                same = same_as_ssum(inst, ref, r)
                notes = [r.detail] if r.detail else []
                if bad:
                    notes.append(f"{len(bad)} INVALID subsets, e.g. {bad[0]}")
                    disagreements.append((inst.name, r.tool, "invalid", bad[:3]))
                if r.status == "ok" and r.complete and inst.mode == "all" \
                        and inst.planted not in r.subsets:
                    notes.append("planted subset MISSING")
                    disagreements.append((inst.name, r.tool, "planted missing", inst.planted))
                if inst.mode == "unique" and r.verdict:
                    notes.append(f"verdict {r.verdict}")
                if r.status == "did not finish" and r.subsets and ref.status == "ok" \
                        and ref.complete and inst.mode == "all":
                    # A partial list can still be checked: each of its subsets must be in ssum's.
                    missing = r.subsets - ref.subsets
                    notes.append(f"partial list: {len(r.subsets) - len(missing)} of "
                                 f"{len(r.subsets)} in ssum's")
                    if missing:
                        disagreements.append((inst.name, r.tool, "not in ssum's list",
                                              sorted(missing)[:3]))
                if same == "no":
                    only_ref = sorted(ref.subsets - r.subsets)[:3]
                    only_r = sorted(r.subsets - ref.subsets)[:3]
                    notes.append(f"only ssum: {only_ref}; only {r.tool}: {only_r}")
                    disagreements.append((inst.name, r.tool, "sets differ", only_ref, only_r))
                secs = f"{r.seconds:.3f}" if r.seconds is not None and r.status != "did not finish" \
                    else "-"
                nsub = str(len(r.subsets)) if r.status in ("ok", "did not finish") and r.subsets \
                    else ("0" if r.status == "ok" else "-")
                rate = f"{len(r.subsets) / r.seconds:.3g}" if r.status == "ok" and r.seconds \
                    and len(r.subsets) >= 1000 else ""
                shown = r.status if r.status != "ok" else same
                print(f"{inst.name:<20} {r.tool:<7} {secs:>9} {nsub:>9} {rate:>10} "
                      f"{shown:<17} {'; '.join(notes)}", flush=True)
                rows.append({"instance": inst.name, "tool": r.tool, "status": r.status,
                             "seconds": r.seconds, "subsets": len(r.subsets),
                             "complete": r.complete, "same_as_ssum": same,
                             "timing": r.timing, "notes": notes})
    if a.json:
        a.json.write_text(json.dumps({"versions": versions, "rows": rows}, indent=1))
    if disagreements:
        print("\nDISAGREEMENTS:")
        for d in disagreements:
            print("  ", d)
        return 1
    print("\nno disagreement: every subset reported is valid, and every finished list equals ssum's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
