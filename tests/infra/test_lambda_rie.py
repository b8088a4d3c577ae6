"""`h5ad-sizer lambda` under AWS's own Lambda Runtime Interface Emulator
(aws-lambda-rie): invoked as Lambda invokes a container-image function."""
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest

from conftest import DATA, SIZER, TOOLS, free_ports, require_tool, run_sizer, stop, wait_for_port

FUNCTION_TIMEOUT_SECONDS = 3


class Emulator:
    """aws-lambda-rie running `h5ad-sizer lambda`, on free loopback ports."""

    def __init__(self, **env):
        rie = require_tool(TOOLS / ".bin" / "aws-lambda-rie", "aws-lambda-rie (Go module)")
        port, api_port = free_ports(2)
        self.log = tempfile.TemporaryFile()
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "H5AD_SIZER_"))}
        clean["AWS_LAMBDA_FUNCTION_TIMEOUT"] = str(FUNCTION_TIMEOUT_SECONDS)
        self.process = subprocess.Popen(
            [rie, "--runtime-interface-emulator-address", f"127.0.0.1:{port}",
             "--runtime-api-address", f"127.0.0.1:{api_port}", str(SIZER), "lambda"],
            stdout=self.log, stderr=subprocess.STDOUT, env={**clean, **env})
        wait_for_port(port, self.process, "aws-lambda-rie")
        self.url = f"http://127.0.0.1:{port}/2015-03-31/functions/function/invocations"

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self):
        stop(self.process)
        self.log.close()


@pytest.fixture(scope="module")
def function():
    emulator = Emulator()
    yield emulator.url
    emulator.stop()


def invoke(function, event):
    url = function
    body = event if isinstance(event, bytes) else json.dumps(event).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=body, method="POST"), timeout=30) as answer:
        return json.loads(answer.read())


def test_sizes_a_file_behind_http_like_the_size_command(function, nginx):
    answer = invoke(function, {"path": f"{nginx}/example.h5ad"})
    local = json.loads(run_sizer(["size", str(DATA / "example.h5ad")]).stdout)
    answer["dataset"].pop("source")
    local["dataset"].pop("source")
    assert answer == local


def test_event_fields_reach_the_sizing(function, nginx):
    answer = invoke(function, {"path": f"{nginx}/example.h5ad", "min_bucket": 3, "profile": "process"})
    assert answer["bucket"]["index"] == 3
    assert answer["estimate"]["profile"] == "process"


def test_a_broken_file_is_an_invocation_error_with_the_sizers_type(function, nginx):
    answer = invoke(function, {"path": f"{nginx}/bad_not_hdf5.h5ad"})
    assert answer["errorType"] == "H5adSizer.InvalidFile"
    assert answer["errorMessage"] == f"{nginx}/bad_not_hdf5.h5ad: not an HDF5 file (no HDF5 signature found)"


def test_an_event_without_path_is_a_usage_error(function):
    answer = invoke(function, {"min_bucket": 2})
    assert answer["errorType"] == "H5adSizer.Usage"
    assert "missing \"path\"" in answer["errorMessage"]
    assert invoke(function, b"not json")["errorType"] == "H5adSizer.Usage"


def test_a_silent_server_is_reported_before_the_lambda_deadline(function):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    held = []
    threading.Thread(target=lambda: held.append(silent.accept()), daemon=True).start()
    try:
        started = time.monotonic()
        answer = invoke(function, {"path": f"http://127.0.0.1:{silent.getsockname()[1]}/stuck.h5ad"})
        elapsed = time.monotonic() - started
    finally:
        silent.close()
    # Our own error, not the emulator's timeout, and in time.
    assert answer["errorType"] == "H5adSizer.Unreadable", answer
    assert "time limit reached" in answer["errorMessage"]
    assert elapsed < FUNCTION_TIMEOUT_SECONDS


def test_the_function_keeps_serving_after_errors(function, nginx):
    for _ in range(3):
        assert invoke(function, {"path": f"{nginx}/missing.h5ad"})["errorType"] == "H5adSizer.Unreadable"
    assert invoke(function, {"path": f"{nginx}/example.h5ad"})["bucket"]["index"] == 1


def test_a_bad_bucket_table_fails_the_init():
    emulator = Emulator(H5AD_SIZER_BUCKETS_JSON='{"profile": "migrate", "buckets": []}')
    try:
        request = urllib.request.Request(emulator.url, data=json.dumps({"path": str(DATA / "example.h5ad")}).encode())
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        output = emulator.output()
    finally:
        emulator.stop()
    assert refused.value.code == 502  # the emulator's answer when the function cannot start
    assert "H5AD_SIZER_BUCKETS_JSON: buckets: must list at least one bucket" in output
    assert "Init failed" in output
    assert "Lambda Runtime API" not in output  # the init error was posted, not refused


def test_outside_lambda_the_command_says_what_it_needs():
    result = run_sizer(["lambda"])
    assert result.returncode == 2
    assert "AWS_LAMBDA_RUNTIME_API is not set" in result.stderr
