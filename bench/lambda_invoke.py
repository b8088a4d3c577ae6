#!/usr/bin/python3
"""How long the sizing step takes as a Lambda function: `h5ad-sizer lambda`
under AWS's Lambda Runtime Interface Emulator, cold (a new emulator, so the
runtime process starts for the invocation) and warm (the same process
again), next to `h5ad-sizer size URL` as a fresh process (what the Batch
job's sizing costs once it is scheduled), in the same run, on files served
by nginx with a delay proxy adding --latency-ms to every request.

    /usr/bin/python3 bench/lambda_invoke.py [--latency-ms 30] [--runs 5]

Needs tests/install-tools (the emulator in tests/infra/.bin) and the build.
Files: data/example.h5ad, and bench/remote.py's ~300 MB and CELLxGENE-shaped
files when bench/out has them (bench/remote.py makes them).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request

from remote import OUT, free_port, serve_out, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RIE = os.path.join(ROOT, "tests", "infra", ".bin", "aws-lambda-rie")
FILES = [("fixture", "example.h5ad"), ("1x", "sparse_1x.h5ad"), ("cxg-like", "cxg_like.h5ad")]


class Emulator:
    def __init__(self, tool):
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "H5AD_SIZER_"))}
        self.process = subprocess.Popen(
            [RIE, "--runtime-interface-emulator-address", f"127.0.0.1:{self.port}",
             "--runtime-api-address", f"127.0.0.1:{free_port()}", tool, "lambda"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        wait_for(self.port)

    def invoke(self, event):
        url = f"http://127.0.0.1:{self.port}/2015-03-31/functions/function/invocations"
        start = time.perf_counter()
        with urllib.request.urlopen(urllib.request.Request(url, data=json.dumps(event).encode())) as answer:
            body = json.loads(answer.read())
        seconds = time.perf_counter() - start
        if "errorType" in body:
            raise RuntimeError(body)
        return seconds

    def stop(self):
        self.process.terminate()
        self.process.wait()


def shown(seconds):
    return (f"{statistics.median(seconds) * 1000:.0f} ms "
            f"({min(seconds) * 1000:.0f}-{max(seconds) * 1000:.0f})")


def requests_in(log):
    with open(log) as f:
        return sum(1 for line in f if line.strip())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", default=os.path.join(ROOT, "build", "h5ad-sizer"))
    p.add_argument("--latency-ms", type=int, default=30)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    tool = os.path.abspath(a.tool)
    os.makedirs(OUT, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "data", "example.h5ad"), os.path.join(OUT, "example.h5ad"))
    files = [(label, name) for label, name in FILES if os.path.exists(os.path.join(OUT, name))]
    with serve_out(a.latency_ms) as (port, log):
        print(f"Latency added per request: {a.latency_ms} ms; median of {a.runs} runs (min-max)\n")
        print("| file | requests | `size URL` (process) | Lambda cold | Lambda warm |")
        print("|---|---:|---:|---:|---:|")
        for label, name in files:
            url = f"http://127.0.0.1:{port}/{name}"
            cli = []
            for _ in range(a.runs):
                open(log, "w").close()
                start = time.perf_counter()
                subprocess.run([tool, "size", url], check=True, stdout=subprocess.DEVNULL)
                cli.append(time.perf_counter() - start)
            requests = requests_in(log)
            cold = []
            for _ in range(a.runs):
                emulator = Emulator(tool)
                try:
                    cold.append(emulator.invoke({"path": url}))
                finally:
                    emulator.stop()
            emulator = Emulator(tool)
            try:
                emulator.invoke({"path": url})
                warm = [emulator.invoke({"path": url}) for _ in range(a.runs)]
            finally:
                emulator.stop()
            print(f"| {label} ({os.path.getsize(os.path.join(OUT, name)) / 1e6:.1f} MB) | {requests} | "
                  f"{shown(cli)} | {shown(cold)} | {shown(warm)} |", flush=True)

if __name__ == "__main__":
    sys.exit(main())
