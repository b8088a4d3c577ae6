"""SendTaskSuccess/SendTaskFailure signatures checked by AWS's own rules:
moto with IAM authentication on (INITIAL_NO_AUTH_ACTION_COUNT) recomputes
every request's Signature V4 and checks the caller's policy."""
import json

import boto3
import pytest

from conftest import DATA, run_sizer, start_moto, stop

REGION = "us-east-1"
# Requests moto serves before it starts checking signatures: the set-up below.
SETUP_REQUESTS = 5


@pytest.fixture(scope="module")
def authenticating_moto():
    process, endpoint = start_moto(INITIAL_NO_AUTH_ACTION_COUNT=str(SETUP_REQUESTS))
    try:
        iam = boto3.client("iam", endpoint_url=endpoint, region_name=REGION,
                           aws_access_key_id="setup", aws_secret_access_key="setup")
        callback = {"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Action": ["states:SendTaskSuccess", "states:SendTaskFailure", "sts:AssumeRole"],
            "Resource": "*"}]}
        iam.create_user(UserName="sizer")
        iam.put_user_policy(UserName="sizer", PolicyName="callback", PolicyDocument=json.dumps(callback))
        key = iam.create_access_key(UserName="sizer")["AccessKey"]
        trust = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}
        role = iam.create_role(RoleName="sizer-job", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
        iam.put_role_policy(RoleName="sizer-job", PolicyName="callback", PolicyDocument=json.dumps(callback))
        # Temporary credentials with a session token, as a Batch job role has.
        sts = boto3.client("sts", endpoint_url=endpoint, region_name=REGION,
                           aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
        session = sts.assume_role(RoleArn=role, RoleSessionName="sizer")["Credentials"]
        yield endpoint, key, session
    finally:
        stop(process)


def sizer_env(endpoint, key_id, secret, token=None):
    env = {"AWS_ENDPOINT_URL_SFN": endpoint, "AWS_REGION": REGION,
           "AWS_ACCESS_KEY_ID": key_id, "AWS_SECRET_ACCESS_KEY": secret}
    if token:
        env["AWS_SESSION_TOKEN"] = token
    return env


def test_long_term_keys_sign_send_task_success(authenticating_moto):
    endpoint, key, _ = authenticating_moto
    result = run_sizer(["size", str(DATA / "example.h5ad"), "--task-token", "token-of-a-task"],
                       sizer_env(endpoint, key["AccessKeyId"], key["SecretAccessKey"]))
    assert result.returncode == 0, result.stderr


def test_a_session_token_is_signed_along(authenticating_moto):
    endpoint, _, session = authenticating_moto
    result = run_sizer(["size", str(DATA / "bad_not_hdf5.h5ad"), "--task-token", "token-of-a-task"],
                       sizer_env(endpoint, session["AccessKeyId"], session["SecretAccessKey"],
                                 session["SessionToken"]))
    assert result.returncode == 4, result.stderr  # SendTaskFailure delivered, the sizing's status kept


def test_a_wrong_secret_is_refused_and_reported_as_not_delivered(authenticating_moto):
    endpoint, key, _ = authenticating_moto
    result = run_sizer(["size", str(DATA / "example.h5ad"), "--task-token", "token-of-a-task"],
                       sizer_env(endpoint, key["AccessKeyId"], "not-the-secret"))
    assert result.returncode == 6
    assert result.stdout == ""
    assert "SignatureDoesNotMatch" in result.stderr


def test_a_failure_report_that_is_refused_is_exit_6_too(authenticating_moto):
    endpoint, key, _ = authenticating_moto
    result = run_sizer(["size", str(DATA / "bad_not_hdf5.h5ad"), "--task-token", "token-of-a-task"],
                       sizer_env(endpoint, key["AccessKeyId"], "not-the-secret"))
    assert result.returncode == 6
    assert "not an HDF5 file" in result.stderr  # the sizing's own error is still printed
    assert "SendTaskFailure" in result.stderr and "SignatureDoesNotMatch" in result.stderr
