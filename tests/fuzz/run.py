#!/usr/bin/python3
"""Runs the libFuzzer targets for a bounded time and judges what they found.

    /usr/bin/python3 tests/fuzz/run.py --build build-fuzz [--seconds 60] [--work build-fuzz/fuzz-out]
        [--target reader|bucket_table]   (both, one after the other, by default)

bucket_table_fuzz: seeds in tests/fuzz/seeds/bucket_table; any finding fails.
reader_fuzz: seeds are the fixtures in data/; libFuzzer runs in fork mode
and keeps going after a crash (-ignore_crashes), because HDF5 itself can
crash on damaged files (1.10.8 often did; in production the reader child
contains those: docs/robustness.md). Each crash input is run again to read its stack: a
crash whose innermost frame of ours comes before any HDF5 frame is ours,
and fails the run; one inside HDF5 (H5*) is counted and reported.
Prints one line per target: executions, crashes (ours / HDF5's), and the
time spent.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# glibc's malloc returns NULL for an absurd size read from a damaged file, and
# HDF5 reports "memory allocation failed"; ASan would abort instead. Same
# behaviour as in production, so an allocation failure is not a finding.
ENV = dict(os.environ, ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"),
                                                          "allocator_may_return_null=1"])))


def run_fuzzer(binary, seeds, corpus, artifacts, seconds, fork):
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    command = [binary, corpus, *seeds, f"-max_total_time={seconds}", f"-artifact_prefix={artifacts}/",
               "-max_len=262144", "-rss_limit_mb=1024", "-timeout=10", "-print_final_stats=1"]
    if fork:
        command += ["-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1"]
    started = time.monotonic()
    out = subprocess.run(command, capture_output=True, text=True, errors="replace", env=ENV)
    elapsed = time.monotonic() - started
    log = out.stdout + out.stderr
    execs = [int(n) for n in re.findall(r"stat::number_of_executed_units:\s*(\d+)", log)]
    if not execs:  # fork mode: "#1026: cov: ..." lines
        execs = [int(n) for n in re.findall(r"#(\d+): cov:", log)]
    return out.returncode, log, max(execs) if execs else 0, elapsed


def owner_of_crash(binary, artifact):
    """'ours', 'hdf5' or 'unknown', from the crash's stack."""
    out = subprocess.run([binary, artifact], capture_output=True, text=True, errors="replace", timeout=60, env=ENV)
    if out.returncode == 0:
        # Fork mode can save an input that does not crash alone (the empty
        # one, when a job died between inputs): nothing to attribute.
        return "not reproduced"
    for line in (out.stdout + out.stderr).splitlines():
        m = re.match(r"\s*#\d+ 0x[0-9a-f]+ in (\S+)", line)
        if not m:
            continue
        function = m.group(1)
        if function.startswith(("__asan", "__sanitizer", "__interceptor", "__ubsan", "__libc", "abort", "raise",
                                "malloc", "free", "calloc", "realloc", "__GI", "memcpy", "memmove", "strlen",
                                "fuzzer::", "LLVMFuzzer", "_int_", "__memcpy", "__memmove", "__strlen")):
            continue
        if re.match(r"H5[A-Z]*_?", function) and "h5ad_sizer" not in function:
            return "hdf5"
        if "h5ad_sizer" in function:
            return "ours"
    return "unknown"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--work")
    p.add_argument("--target", choices=["reader", "bucket_table"], action="append")
    a = p.parse_args()
    targets = a.target or ["bucket_table", "reader"]
    work = a.work or os.path.join(a.build, "fuzz-out")
    passed = [fuzz_bucket_table(a.build, work, a.seconds)] if "bucket_table" in targets else []
    passed += [fuzz_reader(a.build, work, a.seconds)] if "reader" in targets else []
    return 0 if all(passed) else 1


def fuzz_bucket_table(build, work, seconds):
    """Runs the bucket-table fuzzer; False on any finding."""
    binary = os.path.join(build, "bucket_table_fuzz")
    code, log, execs, elapsed = run_fuzzer(binary, [os.path.join(HERE, "seeds", "bucket_table")],
                                           os.path.join(work, "bucket_table", "corpus"),
                                           os.path.join(work, "bucket_table", "artifacts"), seconds, fork=False)
    findings = glob.glob(os.path.join(work, "bucket_table", "artifacts", "*"))
    print(f"bucket_table_fuzz: {execs} executions in {elapsed:.0f} s, {len(findings)} findings")
    if code != 0 or findings:
        print(log[-3000:])
        return False
    return True


def fuzz_reader(build, work, seconds):
    """Runs the reader fuzzer; False on a crash or leak of ours or unattributed."""
    binary = os.path.join(build, "reader_fuzz")
    seeds = sorted(f for f in glob.glob(os.path.join(ROOT, "data", "*.h5ad")))
    seed_dir = os.path.join(work, "reader", "seeds")
    os.makedirs(seed_dir, exist_ok=True)
    for seed in seeds:
        target = os.path.join(seed_dir, os.path.basename(seed))
        if not os.path.exists(target):
            with open(seed, "rb") as src, open(target, "wb") as dst:
                dst.write(src.read())
    code, log, execs, elapsed = run_fuzzer(binary, [seed_dir], os.path.join(work, "reader", "corpus"),
                                           os.path.join(work, "reader", "artifacts"), seconds, fork=True)
    # Leaks are judged like crashes: HDF5 leaks on some error paths (in a
    # child process that ends at once); one of ours fails the run.
    crashes = sorted(glob.glob(os.path.join(work, "reader", "artifacts", "crash-*")) +
                     glob.glob(os.path.join(work, "reader", "artifacts", "leak-*")))
    owners = {"ours": [], "hdf5": [], "unknown": [], "not reproduced": []}
    for crash in crashes:
        owners[owner_of_crash(binary, crash)].append(crash)
    print(f"reader_fuzz: {execs} executions in {elapsed:.0f} s, {len(crashes)} crashes or leaks: "
          f"{len(owners['hdf5'])} inside HDF5, {len(owners['ours'])} in h5ad-sizer, "
          f"{len(owners['unknown'])} unattributed, {len(owners['not reproduced'])} not reproduced alone")
    for crash in owners["ours"] + owners["unknown"]:
        print(f"  {crash}")
    return not owners["ours"] and not owners["unknown"]


if __name__ == "__main__":
    sys.exit(main())
