#!/usr/bin/python3
"""`plan` over whole corpora, at several -j in one run: 1000 small local
datasets, and 200 CELLxGENE-shaped datasets served by nginx on 127.0.0.1
behind a proxy that holds every request 30 ms (bench/delay_proxy.mjs, what a
request to S3 costs). The datasets are hard links to one file each under
distinct names (the tool reads each as a separate file: no cache is shared
between its processes).

    /usr/bin/python3 bench/plan_corpus.py [--tool build/h5ad-sizer] [--jobs 1,8,32]
                                         [--local 1000] [--remote 200] [--latency-ms 30]

Prints a Markdown table: corpus, -j, datasets sized, failures, seconds
(wall clock of the whole plan).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
sys.path.insert(0, HERE)
from remote import CXG_LIKE, serve_out  # noqa: E402


def linked_corpus(directory, source, count):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    names = []
    for i in range(count):
        name = f"d{i:05d}.h5ad"
        os.link(source, os.path.join(directory, name))
        names.append(name)
    return names


def plan(tool, inputs, jobs, stdin=None):
    start = time.perf_counter()
    result = subprocess.run([tool, "plan", "--json", "-j", str(jobs)] + inputs, input=stdin, capture_output=True,
                            text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"plan failed ({result.returncode}): {result.stderr[-2000:]}")
    summary = json.loads(result.stdout)
    return summary["sized"], len(summary["failed"]), seconds


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", default=os.path.join(ROOT, "build", "h5ad-sizer"))
    p.add_argument("--jobs", default="1,8,32")
    p.add_argument("--local", type=int, default=1000)
    p.add_argument("--remote", type=int, default=200)
    p.add_argument("--latency-ms", type=int, default=30)
    a = p.parse_args()
    jobs = [int(j) for j in a.jobs.split(",")]
    _, cxg_name, cxg_obs = CXG_LIKE
    cxg = os.path.join(OUT, cxg_name)
    if not os.path.exists(cxg):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_cxg_like.py"), cxg, str(cxg_obs)], check=True)
    local_dir = os.path.join(OUT, "plan_local")
    linked_corpus(local_dir, os.path.join(ROOT, "data", "example.h5ad"), a.local)
    remote_names = linked_corpus(os.path.join(OUT, "plan_remote"), cxg, a.remote)
    print(f"| corpus | -j | sized | failed | seconds |\n|---|---:|---:|---:|---:|")
    for j in jobs:
        sized, failed, seconds = plan(a.tool, [local_dir], j)
        print(f"| {a.local} local (data/example.h5ad) | {j} | {sized} | {failed} | {seconds:.2f} |", flush=True)
    with serve_out(a.latency_ms) as (port, _):
        manifest = "".join(f"http://127.0.0.1:{port}/plan_remote/{name}\n" for name in remote_names)
        for j in jobs:
            sized, failed, seconds = plan(a.tool, ["-"], j, stdin=manifest)
            print(f"| {a.remote} remote (cxg-like, {a.latency_ms} ms a request) | {j} | {sized} | {failed} | "
                  f"{seconds:.2f} |", flush=True)


if __name__ == "__main__":
    main()
