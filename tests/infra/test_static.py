"""Static checks of what is shipped in infra/: AWS's CloudFormation linter,
the ASL validator, and what neither of them checks (integration patterns,
heartbeat against timeout, the template carrying the current ASL files)."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cfnlint.decode import decode

from conftest import ROOT, STEP_FUNCTIONS, TOOLS, require_tool

TEMPLATE = ROOT / "infra" / "cloudformation" / "h5ad-sizer.yaml"
ASL_FILES = sorted(STEP_FUNCTIONS.glob("*.asl.json"))

# What Step Functions supports for each optimised integration (developer
# guide, "Integrating services"): "" request-response, ".sync" run a job,
# ".waitForTaskToken" callback. Batch has no callback pattern.
SUPPORTED = {
    "batch:submitJob": {"", ".sync"},
    "lambda:invoke": {"", ".waitForTaskToken"},
    "s3:listObjectsV2": {""},  # Distributed Map ItemReader
    "s3:getObject": {""},      # ItemReader of a manifest
    "s3:putObject": {""},      # ResultWriter
}
RESOURCE = re.compile(r"^arn:aws:states:::(?P<action>[A-Za-z0-9-]+:[A-Za-z0-9]+)(?P<pattern>\.[A-Za-z]+)?$")


def states_of(machine):
    """Every state, nested Map processors and Parallel branches included."""
    for name, state in machine["States"].items():
        yield name, state
        for inner in [state.get("ItemProcessor"), state.get("Iterator"), *state.get("Branches", [])]:
            if inner:
                yield from states_of(inner)


def resources_of(machine):
    for name, state in states_of(machine):
        if state["Type"] == "Task":
            yield name, state["Resource"]
        for key in ("ItemReader", "ResultWriter"):
            if key in state:
                yield f"{name}.{key}", state[key]["Resource"]


def problems(machine):
    """Why Step Functions would refuse or mis-run `machine`; empty when fine."""
    found = []
    for name, resource in resources_of(machine):
        match = RESOURCE.match(resource)
        if not match or match["action"] not in SUPPORTED:
            found.append(f"{name}: {resource} is not an integration this project uses")
        elif (match["pattern"] or "") not in SUPPORTED[match["action"]]:
            found.append(f"{name}: {resource}: {match['action']} does not support {match['pattern']}")
    for name, state in states_of(machine):
        heartbeat, timeout = state.get("HeartbeatSeconds"), state.get("TimeoutSeconds")
        if heartbeat is not None and (timeout is None or heartbeat >= timeout):
            found.append(f"{name}: HeartbeatSeconds {heartbeat} must be below TimeoutSeconds {timeout}")
    return found


@pytest.mark.parametrize("path", ASL_FILES, ids=lambda p: p.name)
def test_every_resource_is_a_supported_integration_pattern(path):
    assert problems(json.loads(path.read_text())) == []


def test_the_pattern_check_catches_what_the_validators_let_through():
    machine = json.loads((STEP_FUNCTIONS / "size-then-process.batch.asl.json").read_text())
    machine["States"]["Size"]["Resource"] = "arn:aws:states:::batch:submitJob.waitForTaskToken"
    machine["States"]["Size"]["HeartbeatSeconds"] = 3600
    found = problems(machine)
    assert any("does not support .waitForTaskToken" in p for p in found)
    assert any("HeartbeatSeconds 3600 must be below TimeoutSeconds 3600" in p for p in found)


def test_sizer_tasks_have_timeouts():
    for path in ASL_FILES:
        for name, state in states_of(json.loads(path.read_text())):
            if state["Type"] == "Task" and "sizer" in json.dumps(state.get("Parameters", {})).lower():
                assert "TimeoutSeconds" in state, f"{path.name}: {name}"


@pytest.mark.parametrize("path", ASL_FILES, ids=lambda p: p.name)
def test_asl_validator_accepts_the_definitions(path):
    validator = require_tool(TOOLS / "node_modules" / ".bin" / "asl-validator", "asl-validator (npm)")
    result = subprocess.run([validator, "--json-path", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_cfn_lint_accepts_the_template():
    cfn_lint = Path(sys.executable).with_name("cfn-lint")
    result = subprocess.run([str(cfn_lint), str(TEMPLATE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_template_carries_the_current_asl_files():
    result = subprocess.run([sys.executable, str(ROOT / "infra" / "cloudformation" / "sync_definitions.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_batch_job_and_the_lambda_function_share_one_bucket_table():
    template, errors = decode(str(TEMPLATE))
    assert not errors
    resources = template["Resources"]
    [job_env] = resources["SizerJobDefinition"]["Properties"]["ContainerProperties"]["Environment"]
    function_env = resources["SizerFunction"]["Properties"]["Environment"]["Variables"]
    assert job_env["Name"] == "H5AD_SIZER_BUCKETS_JSON"
    assert job_env["Value"] == function_env["H5AD_SIZER_BUCKETS_JSON"]
    # Every machine of the stack is in it, in ascending order.
    table = job_env["Value"]["Fn::Sub"]
    assert [int(n) for n in re.findall(r"Machine(\d)JobDefinition", table)] == [1, 2, 3, 4, 5]


def test_every_substitution_a_definition_uses_is_given():
    template, _ = decode(str(TEMPLATE))
    for resource in template["Resources"].values():
        if resource["Type"] != "AWS::StepFunctions::StateMachine":
            continue
        used = set(re.findall(r"\$\{(\w+)\}", json.dumps(resource["Properties"]["Definition"])))
        assert used == set(resource["Properties"]["DefinitionSubstitutions"]), resource["Properties"]["StateMachineName"]
