#!/usr/bin/python3
"""Runs h5ad-sizer on every case of the broken-file corpus (make_broken.py)
and checks what the tool promises for bad input:

  * an exit code the case allows (never a signal, never exit 1);
  * on failure: nothing on stdout, one line on stderr naming the file;
  * on success: one JSON document on stdout;
  * every run under 2 s of CPU time and 256 MiB of memory, the reader's
    child process included (wait4's rusage covers the children a process
    waited for), and under 10 s on the clock: CPU time is what the run
    costs whatever else the machine is doing (ctest -j, a fuzzer beside it
    took objects_100000 from 1.2 s to 2.01 s on the clock); the clock
    catches a run that waits without spinning.

    /usr/bin/python3 tests/robustness/check_broken.py --tool build/h5ad-sizer --corpus DIR

Exits 1 listing every case that broke a promise.
"""
import argparse
import json
import os
import selectors
import subprocess
import sys
import time

MAX_SECONDS = 2.0        # CPU time
MAX_WALL_SECONDS = 10.0
MAX_RSS_BYTES = 256 << 20
TOOL = [None]


def run_measured(tool, path, timeout=60):
    """Runs `tool size path`: exit code or signal, stdout, stderr, seconds,
    and the peak RSS of the tool and its reader child; "hang" past
    `timeout` seconds (the tool's own time limit is 30 s)."""
    started = time.monotonic()
    read_out, write_out = os.pipe()
    read_err, write_err = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(write_out, 1)
        os.dup2(write_err, 2)
        os.execv(tool, [tool, "size", path, "--no-task-token"])
    os.close(write_out)
    os.close(write_err)
    out = err = b""
    deadline = started + timeout
    sel = selectors.DefaultSelector()
    sel.register(read_out, selectors.EVENT_READ)
    sel.register(read_err, selectors.EVENT_READ)
    open_fds = 2
    hang = False
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, 9)
            hang = True
            break
        for key, _ in sel.select(timeout=left):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fd)
                open_fds -= 1
            elif key.fd == read_out:
                out += chunk
            else:
                err += chunk
    _, status, usage = os.wait4(pid, 0)
    os.close(read_out)
    os.close(read_err)
    result = {"seconds": time.monotonic() - started, "cpu_seconds": usage.ru_utime + usage.ru_stime,
              "rss": usage.ru_maxrss * 1024,
              "out": out.decode("utf-8", "replace"), "err": err.decode("utf-8", "replace")}
    if hang:
        result["hang"] = True
    elif os.WIFSIGNALED(status):
        result["signal"] = os.WTERMSIG(status)
    else:
        result["code"] = os.WEXITSTATUS(status)
    return result


def problems(name, path, case, r, outcomes_only=False):
    found = []
    if r.get("hang"):
        return ["hung"]
    if "signal" in r:
        return [f"killed by signal {r['signal']}"]
    if r["code"] not in case["exit"]:
        found.append(f"exit {r['code']}, expected {case['exit']}: {r['err'].strip()[:300]}")
    if r["code"] == 0:
        try:
            json.loads(r["out"])
        except ValueError:
            found.append("exit 0 without one JSON document on stdout")
        # What a person sees: the inspect table never carries a control
        # character from a name (a newline, an escape sequence).
        table = subprocess.run([TOOL[0], "inspect", path], capture_output=True).stdout
        if any(b < 0x20 and b != 0x0A for b in table) or b"\x7f" in table:
            found.append("inspect printed a control character")
    else:
        if r["out"]:
            found.append(f"{len(r['out'])} bytes on stdout for a failure")
        lines = r["err"].splitlines()
        if len(lines) != 1:
            found.append(f"{len(lines)} lines on stderr: {r['err'][:300]!r}")
        elif path not in lines[0]:
            found.append(f"the error does not name the file: {lines[0][:300]}")
        if "message" in case and case["message"] not in r["err"]:
            found.append(f"message without {case['message']!r}: {r['err'].strip()[:300]}")
    if outcomes_only:
        return found
    if r["cpu_seconds"] > case.get("max_seconds", MAX_SECONDS):
        found.append(f"took {r['cpu_seconds']:.2f} s of CPU")
    if r["seconds"] > MAX_WALL_SECONDS:
        found.append(f"took {r['seconds']:.2f} s on the clock")
    if r.get("rss", 0) > MAX_RSS_BYTES:
        found.append(f"used {r['rss'] / 2**20:.0f} MiB")
    return found


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", required=True)
    p.add_argument("--corpus", required=True)
    p.add_argument("--outcomes-only", action="store_true",
                   help="skip the time and memory checks (sanitizer builds)")
    a = p.parse_args()
    TOOL[0] = a.tool
    with open(os.path.join(a.corpus, "expected.json")) as f:
        expected = json.load(f)
    failures = 0
    codes = {}
    slowest = (0.0, "")
    largest = (0, "")
    for name, case in sorted(expected.items()):
        path = os.path.join(a.corpus, name)
        r = run_measured(a.tool, path)
        codes[r.get("code", "other")] = codes.get(r.get("code", "other"), 0) + 1
        slowest = max(slowest, (r["cpu_seconds"], name))
        largest = max(largest, (r.get("rss", 0), name))
        for problem in problems(name, path, case, r, a.outcomes_only):
            failures += 1
            print(f"{name}: {problem}")
    print(f"{len(expected)} cases: exit codes {dict(sorted(codes.items(), key=str))}; slowest {slowest[0]:.2f} s "
          f"of CPU ({slowest[1]}), largest {largest[0] / 2**20:.0f} MiB ({largest[1]}); {failures} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
