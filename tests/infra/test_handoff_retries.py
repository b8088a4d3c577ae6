"""How the callback treats Step Functions' answers: throttling and 5xx are
retried with backoff, the task's own errors are final. A scripted endpoint
answers each request in turn and records what it was sent."""
import json
import threading
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import DATA, run_sizer

KEYS = {"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "eu-west-1",
        "AWS_SESSION_TOKEN": "session-token"}
THROTTLED = (400, "application/x-amz-json-1.0",
             '{"__type":"com.amazonaws.swf.service.model.v20120810#ThrottlingException","message":"Rate exceeded"}')
OK = (200, "application/x-amz-json-1.0", "{}")


class ScriptedStepFunctions:
    def __init__(self):
        self.answers = []
        self.requests = []
        script = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                script.requests.append({"headers": dict(self.headers), "body": json.loads(body)})
                status, content_type, text = script.answers.pop(0) if script.answers else OK
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text.encode())

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"

    def play(self, *answers):
        self.answers = list(answers)
        self.requests = []


@pytest.fixture(scope="module")
def states():
    server = ScriptedStepFunctions()
    yield server
    server.server.shutdown()


def size(states, path, *flags):
    return run_sizer(["size", str(path), "--task-token", "T" * 2048, *flags],
                     {**KEYS, "AWS_ENDPOINT_URL": states.endpoint})


def test_the_request_is_what_the_api_reference_describes(states):
    states.play(OK)
    result = size(states, DATA / "example.h5ad")
    assert result.returncode == 0, result.stderr
    [request] = states.requests
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers["x-amz-target"] == "AWSStepFunctions.SendTaskSuccess"
    assert headers["content-type"] == "application/x-amz-json-1.0"
    assert headers["x-amz-security-token"] == "session-token"
    assert "/eu-west-1/states/aws4_request" in headers["authorization"]
    assert "x-amz-security-token" in headers["authorization"]
    assert request["body"]["taskToken"] == "T" * 2048  # tokens up to 2,048 characters
    assert json.loads(request["body"]["output"]) == json.loads(result.stdout)


def test_throttling_and_server_errors_are_retried(states):
    states.play(THROTTLED, (503, "text/html", "<html>unavailable</html>"), OK)
    result = size(states, DATA / "example.h5ad")
    assert result.returncode == 0, result.stderr
    assert len(states.requests) == 3


def test_the_tasks_own_errors_are_final(states):
    for code in ("InvalidToken", "TaskDoesNotExist", "TaskTimedOut"):
        states.play((400, "application/x-amz-json-1.0",
                     json.dumps({"__type": f"com.amazonaws.swf.service.model.v20120810#{code}", "message": "no"})))
        result = size(states, DATA / "example.h5ad")
        assert result.returncode == 6, code
        assert result.stdout == ""
        assert code in result.stderr
        assert len(states.requests) == 1, code


def test_xml_errors_are_read_and_persistent_5xx_gives_up(states):
    xml = (500, "text/xml", "<ErrorResponse><Error><Code>InternalFailure</Code>"
                            "<Message>try later</Message></Error></ErrorResponse>")
    states.play(*[xml] * 5)
    result = size(states, DATA / "example.h5ad")
    assert result.returncode == 6
    assert "InternalFailure: try later" in result.stderr and "5 attempts" in result.stderr
    assert len(states.requests) == 5


def test_failures_carry_the_error_name_and_the_one_line_message(states):
    cases = [(DATA / "bad_not_hdf5.h5ad", [], 4, "H5adSizer.InvalidFile"),
             (DATA / "missing.h5ad", [], 3, "H5adSizer.Unreadable"),
             (DATA / "example.h5ad", ["--profile", "nope"], 2, "H5adSizer.Usage"),
             (DATA / "example.h5ad", ["--strict", "--buckets", str(Path(__file__).with_name("tiny-buckets.json"))], 5,
              "H5adSizer.Overflow")]
    for path, flags, status, name in cases:
        states.play(OK)
        result = size(states, path, *flags)
        assert result.returncode == status, result.stderr
        [request] = states.requests
        assert request["headers"]["X-Amz-Target"] == "AWSStepFunctions.SendTaskFailure"
        assert request["body"]["error"] == name
        assert request["body"]["cause"] == result.stderr.strip().removeprefix("h5ad-sizer: error: ")


def test_a_command_line_that_does_not_parse_still_fails_the_task(states):
    states.play(OK)
    result = run_sizer(["size", str(DATA / "example.h5ad"), "--min-bucket", "two"],
                       {**KEYS, "AWS_ENDPOINT_URL": states.endpoint, "TASK_TOKEN": "from-the-environment"})
    assert result.returncode == 2
    [request] = states.requests
    assert request["body"]["error"] == "H5adSizer.Usage" and request["body"]["taskToken"] == "from-the-environment"
