"""The Batch callback end to end in moto's Step Functions and Batch: the
production state machine (adapted as moto needs), the real h5ad-sizer
sending SendTaskSuccess/SendTaskFailure, and the execution history."""
import copy
import json
import time

import boto3
import pytest

from conftest import DATA, load_asl, run_sizer

REGION = "us-east-1"
KEYS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": REGION}


def client(service, endpoint):
    return boto3.client(service, endpoint_url=endpoint, region_name=REGION,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def for_moto(definition):
    """moto's optimised Batch integration drops PascalCase parameters
    (getmoto/moto#10076): the sizer's task becomes the SDK integration with
    a task token and camelCase keys, Process the plain SDK call. Everything
    else, the OOM ladder included, is the production definition."""
    machine = copy.deepcopy(definition)
    size = machine["States"]["Size"]
    params = size["Parameters"]
    size["Resource"] = "arn:aws:states:::aws-sdk:batch:submitJob.waitForTaskToken"
    size["Parameters"] = {
        "jobName": params["JobName"], "jobQueue": params["JobQueue"], "jobDefinition": params["JobDefinition"],
        "containerOverrides": {"environment": [
            {"name": e["Name"], "value.$": e["Value.$"]} for e in params["ContainerOverrides"]["Environment"]]},
    }
    size["HeartbeatSeconds"] = 60
    process = machine["States"]["Process"]
    params = process["Parameters"]
    process["Resource"] = "arn:aws:states:::aws-sdk:batch:submitJob"
    process["Parameters"] = {"jobName": params["JobName"], "jobQueue": params["JobQueue"],
                             "jobDefinition.$": params["JobDefinition.$"]}
    return machine


@pytest.fixture(scope="module")
def pipeline(moto):
    iam, batch, sfn = client("iam", moto), client("batch", moto), client("stepfunctions", moto)
    role = iam.create_role(RoleName="h5ad-sizer-test", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    env_arn = batch.create_compute_environment(computeEnvironmentName="h5ad", type="UNMANAGED",
                                               state="ENABLED", serviceRole=role)["computeEnvironmentArn"]
    queue = batch.create_job_queue(jobQueueName="h5ad", state="ENABLED", priority=1,
                                   computeEnvironmentOrder=[{"order": 1, "computeEnvironment": env_arn}])["jobQueueArn"]

    def job_definition(name, memory):
        return batch.register_job_definition(
            jobDefinitionName=name, type="container",
            containerProperties={"image": "h5ad-sizer", "command": ["size"], "resourceRequirements": [
                {"type": "VCPU", "value": "1"}, {"type": "MEMORY", "value": str(memory)}]})["jobDefinitionArn"]

    sizer = job_definition("h5ad-sizer", 512)
    buckets = [{"name": f"machine-{i}", "job_definition": job_definition(f"h5ad-machine-{i}", 2048 * i),
                "vcpus": i, "memory_mib": 2048 * i} for i in range(1, 6)]
    definition = for_moto(load_asl("size-then-process.batch.asl.json", {
        "SizerJobQueue": queue, "SizerJobDefinition": sizer, "ProcessJobQueue": queue}))
    machine = sfn.create_state_machine(name="size-then-process", definition=json.dumps(definition),
                                       roleArn=role)["stateMachineArn"]
    return {"batch": batch, "sfn": sfn, "machine": machine, "queue": queue, "endpoint": moto,
            "table": json.dumps({"profile": "migrate", "buckets": buckets})}


def sizer_job_environment(batch, queue, dataset):
    """The environment Step Functions gave the sizer's Batch job for `dataset`."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        summaries = batch.list_jobs(jobQueue=queue, filters=[{"name": "JOB_NAME", "values": ["h5ad-sizer"]}])
        for summary in summaries["jobSummaryList"]:
            job = batch.describe_jobs(jobs=[summary["jobId"]])["jobs"][0]
            env = {e["name"]: e["value"] for e in job["container"].get("environment", [])}
            if env.get("TASK_TOKEN") and env.get("DATASET_URI") == dataset:
                return env
        time.sleep(0.1)
    raise AssertionError("the sizer's Batch job was never submitted")


def run_execution(pipeline, dataset, name):
    sfn = pipeline["sfn"]
    execution = sfn.start_execution(stateMachineArn=pipeline["machine"], name=name,
                                    input=json.dumps({"dataset_uri": dataset}))["executionArn"]
    env = sizer_job_environment(pipeline["batch"], pipeline["queue"], dataset)
    # What the container does: `h5ad-sizer size` with the job's environment.
    result = run_sizer(["size"], {**KEYS, **env, "AWS_ENDPOINT_URL_SFN": pipeline["endpoint"],
                                  "H5AD_SIZER_BUCKETS_JSON": pipeline["table"]})
    deadline = time.monotonic() + 30
    while True:
        described = sfn.describe_execution(executionArn=execution)
        if described["status"] != "RUNNING" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    history = sfn.get_execution_history(executionArn=execution)["events"]
    return env, result, described, history


def test_the_result_reaches_the_state_machine_and_picks_the_processing_job(pipeline):
    dataset = str(DATA / "example.h5ad")
    env, result, described, history = run_execution(pipeline, dataset, "handoff-ok")
    assert env["DATASET_URI"] == dataset and env["MIN_BUCKET"] == "1"
    assert result.returncode == 0, result.stderr
    assert described["status"] == "SUCCEEDED", history
    printed = json.loads(result.stdout)
    size_exit = next(e for e in history if e["type"] == "TaskStateExited"
                     and e["stateExitedEventDetails"]["name"] == "Size")
    state = json.loads(size_exit["stateExitedEventDetails"]["output"])
    assert state["result"] == printed  # $.result is exactly what the tool printed
    assert printed["job_definition"].endswith("job-definition/h5ad-machine-1:1")

    process_jobs = pipeline["batch"].list_jobs(
        jobQueue=pipeline["queue"], filters=[{"name": "JOB_NAME", "values": ["h5ad-process"]}])["jobSummaryList"]
    submitted = pipeline["batch"].describe_jobs(jobs=[j["jobId"] for j in process_jobs])["jobs"]
    assert printed["job_definition"] in [job["jobDefinition"] for job in submitted]


def test_a_broken_file_fails_the_execution_with_the_sizers_error(pipeline):
    env, result, described, history = run_execution(pipeline, str(DATA / "bad_not_hdf5.h5ad"), "handoff-broken")
    assert result.returncode == 4 and result.stdout == ""
    assert described["status"] == "FAILED"
    failed = next(e for e in history if e["type"] == "ExecutionFailed")
    assert failed["executionFailedEventDetails"]["error"] == "H5adSizer.InvalidFile"
    names = [e["stateEnteredEventDetails"]["name"] for e in history if e["type"].endswith("StateEntered")]
    assert "SizingFailed" in names and "Process" not in names


def test_an_unknown_token_is_exit_6_with_nothing_on_stdout(pipeline):
    result = run_sizer(["size", str(DATA / "example.h5ad"), "--task-token", "not-a-token"],
                       {**KEYS, "AWS_ENDPOINT_URL_SFN": pipeline["endpoint"]})
    assert result.returncode == 6
    assert result.stdout == ""
    assert "SendTaskSuccess" in result.stderr and "InvalidToken" in result.stderr


def test_no_task_token_ignores_the_environment(pipeline):
    result = run_sizer(["size", str(DATA / "example.h5ad"), "--no-task-token"],
                       {**KEYS, "AWS_ENDPOINT_URL_SFN": pipeline["endpoint"], "TASK_TOKEN": "not-a-token"})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["bucket"]["index"] == 1
