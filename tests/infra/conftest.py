"""Servers and helpers the infrastructure tests share. Each server starts
once per test session, on 127.0.0.1 only."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
STEP_FUNCTIONS = ROOT / "infra" / "step-functions"
SIZER = Path(os.environ.get("H5AD_SIZER_BINARY", ROOT / "build" / "h5ad-sizer"))
TOOLS = Path(__file__).resolve().parent


def free_ports(count):
    """`count` distinct free loopback ports. All stay bound until every one is
    picked: closed one at a time, the kernel may give the same port twice."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def free_port():
    return free_ports(1)[0]


def wait_for_port(port, process, name, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{name} did not start")


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_sizer(args, env=None, timeout=60):
    """The built h5ad-sizer with a clean AWS environment plus `env`."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("AWS_", "H5AD_SIZER_")) and k not in ("TASK_TOKEN", "DATASET_URI", "MIN_BUCKET")}
    base.update(env or {})
    return subprocess.run([str(SIZER), *args], env=base, capture_output=True, text=True, timeout=timeout)


def load_asl(name, substitutions):
    text = (STEP_FUNCTIONS / name).read_text()
    for key, value in substitutions.items():
        text = text.replace("${" + key + "}", value)
    assert "${" not in text, f"{name}: a substitution is missing"
    return json.loads(text)


def start_moto(**env):
    """moto's server on a free loopback port; returns (process, endpoint)."""
    port = free_port()
    process = subprocess.Popen([str(TOOLS / ".venv" / "bin" / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, "MOTO_PORT": str(port), **env})
    wait_for_port(port, process, "moto_server")
    return process, f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def moto():
    """moto's server with state machines executing (Batch jobs succeed at submit)."""
    process, endpoint = start_moto()
    try:
        config = json.dumps({"stepfunctions": {"execute_state_machine": True},
                             "batch": {"use_docker": False}}).encode()
        urllib.request.urlopen(urllib.request.Request(endpoint + "/moto-api/config", data=config, method="POST"))
        yield endpoint
    finally:
        stop(process)


@pytest.fixture(scope="session")
def nginx(tmp_path_factory):
    """Debian's nginx serving data/ on loopback."""
    work = tmp_path_factory.mktemp("nginx")
    port = free_port()
    (work / "nginx.conf").write_text(f"""
daemon off; master_process off; worker_processes 1;
error_log {work}/error.log warn; pid {work}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  access_log {work}/access.log;
  client_body_temp_path {work}; proxy_temp_path {work};
  fastcgi_temp_path {work}; uwsgi_temp_path {work}; scgi_temp_path {work};
  types {{ application/octet-stream h5ad; }}
  server {{ listen 127.0.0.1:{port}; root {DATA}; }}
}}
""")
    process = subprocess.Popen(["/usr/sbin/nginx", "-p", str(work), "-e", f"{work}/error.log",
                                "-c", str(work / "nginx.conf")])
    try:
        wait_for_port(port, process, "nginx")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


def require_tool(path, what):
    """Tools the install script provides; CI must have them, a developer's run may skip."""
    if Path(path).exists() or shutil.which(str(path)):
        return str(path)
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing ({path}): run tests/install-tools")
    pytest.skip(f"{what} is not installed ({path}): run tests/install-tools")
