#!/usr/bin/python3
"""The mutation campaign: thousands of damaged copies of real .h5ad files,
each sized by h5ad-sizer, and a table of what happened.

    /usr/bin/python3 bench/robustness/campaign.py [--tool [LABEL=]PATH ...] [--mutants 9000]
        [--seed 1] [--jobs 2] [--corpus ../shared/corpus/real] [--work bench/out/mutants]

Several --tool (say the same source built against two HDF5 versions) run on
the same mutants in the same run, one after the other per mutant, and the
tables get a column each:

    --tool "HDF5 1.10.8=build-h510/h5ad-sizer" --tool "HDF5 1.14.5=build/h5ad-sizer"

Mutants are made from every .h5ad of --corpus and of data/ (the committed
fixtures), in turn: one to eight single-byte changes (a random bit, a random
byte, 0x00 or 0xff) at random offsets, half of them within the first 4 KiB
(superblock, root group, first object headers), or a run of 2-64 random
bytes. The same seed gives the same mutants. Each mutant is run as
`h5ad-sizer size` with its default limits, under an outer timeout of 60 s,
and classified: exit code, killed by a signal, hung; for failures, whether
stdout stayed empty and stderr held one line; wall time and peak memory of
the tool with its reader child (wait4). Prints Markdown: the outcome table,
the causes of exit 4 as the tool named them, and the worst cases.
"""
import argparse
import collections
import glob
import json
import os
import random
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "robustness"))
from check_broken import run_measured  # noqa: E402


def mutate(data, r):
    out = bytearray(data)
    if r.random() < 0.25:
        start = r.randrange(len(out))
        for i in range(start, min(len(out), start + r.randint(2, 64))):
            out[i] = r.randrange(256)
        return bytes(out)
    for _ in range(r.randint(1, 8)):
        limit = min(len(out), 4096) if r.random() < 0.5 else len(out)
        at = r.randrange(limit)
        how = r.randrange(4)
        if how == 0:
            out[at] ^= 1 << r.randrange(8)
        elif how == 1:
            out[at] = r.randrange(256)
        elif how == 2:
            out[at] = 0
        else:
            out[at] = 0xFF
    return bytes(out)


def cause(err):
    """The kind of failure the one-line message names."""
    text = err.strip()
    for pattern, label in [(r"the HDF5 reader crashed \((\w+)\)", "reader crashed ({})"),
                           (r"time limit of", "time limit"), (r"memory limit of", "memory limit"),
                           (r"truncated", "truncated"), (r"not an HDF5 file", "not an HDF5 file"),
                           (r"not an AnnData file", "not AnnData"), (r"overflows 64 bits", "size overflow"),
                           (r"missing", "element missing"), (r"has shape|rows but", "dimensions disagree")]:
        m = re.search(pattern, text)
        if m:
            return label.format(*m.groups())
    return "other HDF5 or format error"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", action="append", help="[LABEL=]PATH; repeat to compare builds")
    p.add_argument("--mutants", type=int, default=9000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus", "real"))
    p.add_argument("--work", default=os.path.join(ROOT, "bench", "out", "mutants"))
    a = p.parse_args()
    sources = sorted(glob.glob(os.path.join(a.corpus, "*.h5ad"))) + sorted(
        f for f in glob.glob(os.path.join(ROOT, "data", "*.h5ad")) if not os.path.basename(f).startswith("bad_"))
    originals = [(os.path.basename(s), open(s, "rb").read()) for s in sources]
    os.makedirs(a.work, exist_ok=True)
    r = random.Random(a.seed)
    jobs = []
    for i in range(a.mutants):
        name, data = originals[i % len(originals)]
        path = os.path.join(a.work, f"m{i:05d}.h5ad")
        with open(path, "wb") as out:
            out.write(mutate(data, r))
        jobs.append((name, path))

    tools = []
    for spec in a.tool or [os.path.join(ROOT, "build", "h5ad-sizer")]:
        label, _, path = spec.rpartition("=")
        tools.append((label or path, path))

    def run_all(job):
        return job, [run_measured(path, job[1]) for _, path in tools]

    started = time.monotonic()
    with ThreadPoolExecutor(a.jobs) as pool:
        runs = list(pool.map(run_all, jobs))
    elapsed = time.monotonic() - started

    tallies = [tally([(job[0], job[1], results[t]) for job, results in runs]) for t in range(len(tools))]
    print(f"{a.mutants} mutants of {len(originals)} files (seed {a.seed}), {a.jobs} at a time, "
          f"each run by {len(tools)} build{'s' if len(tools) > 1 else ''}, {elapsed:.0f} s in all\n")
    labels = [label for label, _ in tools]
    table("outcome", labels, [t["outcome"] for t in tallies])
    table("exit 4: the cause named", labels, [t["causes"] for t in tallies])
    table("promise broken", labels, [t["broken"] for t in tallies], rows=PROMISES)
    for label, t in zip(labels, tallies):
        name, path, res = t["slowest"]
        line = f"{label}: slowest {res['seconds']:.2f} s ({os.path.basename(path)}, from {name})"
        name, path, res = t["largest"]
        print(line + f"; largest {res.get('rss', 0) / 2**20:.0f} MiB ({os.path.basename(path)}, from {name})")
    for label, t in zip(labels, tallies):
        for name, path, res in t["bad"]:
            print(f"- {label}: {os.path.basename(path)} (from {name}): {res.get('err', '').strip()[:200]}")


PROMISES = ["exit 1 (internal error)", "stdout written on failure", "stderr not one line", "exit 0 without JSON",
            "over 2 s", "over 256 MiB"]


def tally(results):
    """Outcomes, exit-4 causes and broken promises of one build's runs."""
    outcome = collections.Counter()
    causes = collections.Counter()
    broken = collections.Counter()
    bad = []
    for name, path, res in results:
        if res.get("hang"):
            outcome["hung (outer 60 s timeout)"] += 1
            bad.append((name, path, res))
            continue
        if "signal" in res:
            outcome[f"killed by signal {res['signal']}"] += 1
            bad.append((name, path, res))
            continue
        outcome[f"exit {res['code']}"] += 1
        if res["code"] == 0:
            try:
                json.loads(res["out"])
            except ValueError:
                broken["exit 0 without JSON"] += 1
        else:
            causes[cause(res["err"])] += 1
            if res["out"]:
                broken["stdout written on failure"] += 1
            if len(res["err"].splitlines()) != 1:
                broken["stderr not one line"] += 1
            if res["code"] == 1:
                broken["exit 1 (internal error)"] += 1
                bad.append((name, path, res))
        if res["seconds"] > 2:
            broken["over 2 s"] += 1
        if res.get("rss", 0) > 256 << 20:
            broken["over 256 MiB"] += 1
    return {"outcome": outcome, "causes": causes, "broken": broken, "bad": bad,
            "slowest": max(results, key=lambda x: x[2]["seconds"]),
            "largest": max(results, key=lambda x: x[2].get("rss", 0))}


def table(title, labels, counters, rows=None):
    """A Markdown table: a row per key, a column per build."""
    if rows is None:
        rows = sorted(set().union(*counters), key=lambda k: (-sum(c.get(k, 0) for c in counters), k))
    print(f"| {title} | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    for key in rows:
        print(f"| {key} | " + " | ".join(str(c.get(key, 0)) for c in counters) + " |")
    print()

if __name__ == "__main__":
    main()
