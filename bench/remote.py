#!/usr/bin/python3
"""Requests, bytes and time to size a file behind HTTP: `h5ad-sizer size URL`
against `h5ls --vfd=ros3 -r URL` (HDF5 1.10.8's S3 driver), in the same run,
on the ~300 MB benchmark file, on the same structure at 10x the data, and on
a file shaped like a CELLxGENE dataset (bench/make_cxg_like.py: ~130 HDF5
objects, gzip).

    /usr/bin/python3 bench/remote.py [--tool build/h5ad-sizer] [--latency-ms 30]

Debian's nginx serves bench/out on 127.0.0.1 and logs every request, which is
what the request and byte counts are taken from. With --latency-ms, a proxy
(bench/delay_proxy.mjs) holds each request that long first, the round trip
of a request to S3. The files come from bench/size_speed.py's generator.
"""
import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")
SIZES = {"1x": (100_000, 20_000, 180), "10x": (1_000_000, 20_000, 180)}
# Beside the synthetic pair: many more, smaller objects, as real datasets have.
CXG_LIKE = ("cxg-like", "cxg_like.h5ad", 20_000)
# And one whose uns holds 600 results of small entries (the calibration
# corpus's many_small_uns, bench/accuracy/make_corpus.py).
UNS_HEAVY = ("uns-heavy", "corpus/many_small_uns.h5ad")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port):
    for _ in range(200):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def start_nginx(tmp, root):
    port = free_port()
    with open(os.path.join(tmp, "nginx.conf"), "w") as f:
        f.write(f"""daemon off; master_process off; worker_processes 1;
error_log {tmp}/error.log warn; pid {tmp}/nginx.pid;
events {{ worker_connections 64; }}
http {{ log_format brief '$request_method $status $body_bytes_sent'; access_log {tmp}/access.log brief;
  client_body_temp_path {tmp}; proxy_temp_path {tmp}; fastcgi_temp_path {tmp}; uwsgi_temp_path {tmp};
  scgi_temp_path {tmp};
  server {{ listen 127.0.0.1:{port}; root {root}; }} }}
""")
    process = subprocess.Popen(["/usr/sbin/nginx", "-p", tmp, "-e", f"{tmp}/error.log", "-c", f"{tmp}/nginx.conf"])
    wait_for(port)
    return process, port


def start_delay(tmp, target, delay_ms):
    port_file = os.path.join(tmp, "delay.port")
    process = subprocess.Popen(["node", os.path.join(HERE, "delay_proxy.mjs"), port_file, str(target), str(delay_ms)])
    for _ in range(200):
        if os.path.exists(port_file) and open(port_file).read():
            return process, int(open(port_file).read())
        time.sleep(0.05)
    raise RuntimeError("the delay proxy did not start")


def serve_out(latency_ms):
    """nginx serving bench/out: serve_root(OUT, latency_ms)."""
    return serve_root(OUT, latency_ms)


@contextlib.contextmanager
def serve_root(root, latency_ms=0):
    """nginx serving `root` on 127.0.0.1, behind the delay proxy when
    latency_ms > 0. Yields the port to use and nginx's access log."""
    tmp = tempfile.mkdtemp(prefix="h5ad-bench-")
    servers = []
    try:
        nginx, port = start_nginx(tmp, root)
        servers.append(nginx)
        if latency_ms:
            proxy, port = start_delay(tmp, port, latency_ms)
            servers.append(proxy)
        yield port, os.path.join(tmp, "access.log")
    finally:
        for process in reversed(servers):
            process.terminate()
            process.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def run(cmd, log):
    """Requests, bytes, seconds, methods, round trips and bytes wanted of one
    run. Round trips (requests waited for one after another) and bytes
    wanted (the distinct bytes the reader asked for, what any way of
    fetching must bring) come from h5ad-sizer's --stats; h5ls's requests
    are all sequential, and it is given no bytes wanted."""
    open(log, "w").close()
    start = time.perf_counter()
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{cmd}: {result.stderr.strip()}")
    lines = [line.split() for line in open(log) if line.strip()]
    methods = {}
    for method, _, _ in lines:
        methods[method] = methods.get(method, 0) + 1
    rounds = len(lines)
    wanted = None
    if "--stats" in cmd:
        io = json.loads(result.stdout)["io"]
        # Builds before round_trips made every request one after another;
        # builds before bytes_wanted did not count it.
        rounds = io.get("round_trips", rounds)
        wanted = io.get("bytes_wanted")
    return len(lines), sum(int(b) for _, _, b in lines), seconds, methods, rounds, wanted


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", default=os.path.join(HERE, "..", "build", "h5ad-sizer"))
    p.add_argument("--latency-ms", type=int, default=0)
    p.add_argument("--files", default="1x,10x,cxg-like,uns-heavy",
                   help="which of 1x, 10x, cxg-like, uns-heavy (comma-separated)")
    p.add_argument("--runs", type=int, default=1, help="runs of h5ad-sizer; seconds are the slowest")
    p.add_argument("--no-h5ls", action="store_true", help="leave out HDF5's S3 driver")
    a = p.parse_args()
    chosen = a.files.split(",")
    for label, (n_obs, n_vars, per_row) in SIZES.items():
        if label not in chosen:
            continue
        path = os.path.join(OUT, f"sparse_{label}.h5ad")
        if not os.path.exists(path):
            os.makedirs(OUT, exist_ok=True)
            subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_sparse_h5ad.py"), path, str(n_obs),
                            str(n_vars), str(per_row)], check=True)
    files = [(label, f"sparse_{label}.h5ad") for label in SIZES if label in chosen]
    cxg_label, cxg_name, cxg_obs = CXG_LIKE
    if cxg_label in chosen:
        if not os.path.exists(os.path.join(OUT, cxg_name)):
            subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_cxg_like.py"), os.path.join(OUT, cxg_name),
                            str(cxg_obs)], check=True)
        files.append((cxg_label, cxg_name))
    uns_label, uns_name = UNS_HEAVY
    if uns_label in chosen:
        if not os.path.exists(os.path.join(OUT, uns_name)):
            subprocess.run(["/usr/bin/python3", os.path.join(HERE, "accuracy", "make_corpus.py"),
                            os.path.join(OUT, "corpus")], check=True, stdout=subprocess.DEVNULL)
        files.append((uns_label, uns_name))
    with serve_out(a.latency_ms) as (port, log):
        print(f"Latency added per request: {a.latency_ms} ms\n")
        print("| data | file | tool | requests | round trips | bytes read | bytes wanted | seconds | methods |")
        print("|---|---|---|---:|---:|---:|---:|---:|---|")
        for label, name in files:
            url = f"http://127.0.0.1:{port}/{name}"
            size = os.path.getsize(os.path.join(OUT, name))
            tools = [("h5ad-sizer size", [a.tool, "size", url, "--stats"])]
            if not a.no_h5ls:
                tools.append(("h5ls --vfd=ros3 -r", ["h5ls", "--vfd=ros3", "-r", url]))
            for tool, cmd in tools:
                # h5ls once: at 30 ms it takes minutes on the uns-heavy file.
                results = [run(cmd, log) for _ in range(a.runs if tool.startswith("h5ad-sizer") else 1)]
                requests, read, _, methods, rounds, wanted = results[-1]
                seconds = max(r[2] for r in results)
                shown = ", ".join(f"{k} {v}" for k, v in sorted(methods.items()))
                wanted_text = "-" if wanted is None else f"{wanted / 2**20:.2f} MiB"
                print(f"| {label} | {size / 1e6:.0f} MB | {tool} | {requests} | {rounds} | {read / 2**20:.2f} MiB | "
                      f"{wanted_text} | {seconds:.3f} | {shown} |", flush=True)

if __name__ == "__main__":
    sys.exit(main())
