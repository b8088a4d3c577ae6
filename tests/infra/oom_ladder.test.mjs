// The production state machines, exactly as shipped, run by
// aws-local-stepfunctions: the sizer task runs the real h5ad-sizer (as its
// Batch job or Lambda function would), the processing task is scripted to
// succeed or to fail the way AWS Batch reports an out-of-memory kill.
//   node --import ./with-resolvers.mjs --test oom_ladder.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sizer = process.env.H5AD_SIZER_BINARY ?? join(root, 'build', 'h5ad-sizer');
const dataset = join(root, 'data', 'example.h5ad');
const SUBSTITUTIONS = {
  SizerJobQueue: 'arn:aws:batch:us-west-2:123456789012:job-queue/sizer',
  SizerJobDefinition: 'arn:aws:batch:us-west-2:123456789012:job-definition/h5ad-sizer:1',
  ProcessJobQueue: 'arn:aws:batch:us-west-2:123456789012:job-queue/process',
  ProcessJobDefinition: 'arn:aws:batch:us-west-2:123456789012:job-definition/h5ad-process:1',
  SizerFunction: 'arn:aws:lambda:us-west-2:123456789012:function:h5ad-sizer',
};
const TOKEN = 'token-of-the-size-task';

function definition(name) {
  let text = readFileSync(join(root, 'infra', 'step-functions', name), 'utf8');
  for (const [key, value] of Object.entries(SUBSTITUTIONS)) text = text.replaceAll('${' + key + '}', value);
  assert.ok(!text.includes('${'), `${name}: a substitution is missing`);
  return JSON.parse(text);
}

// `h5ad-sizer size` as the container runs it: what it sends with
// SendTaskSuccess is what it prints.
function size(env) {
  const out = execFileSync(sizer, ['size', '--no-task-token'], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

// How a .sync Batch task fails: States.TaskFailed, the job description as the cause.
function batchFailure(reason, exitCode) {
  const error = new Error(JSON.stringify({
    JobName: 'h5ad-process', Status: 'FAILED', StatusReason: reason,
    Container: { ExitCode: exitCode, Reason: reason },
    Attempts: [{ Container: { ExitCode: exitCode, Reason: reason }, StatusReason: reason }],
  }));
  error.name = 'States.TaskFailed';
  return error;
}
const OOM = () => batchFailure('OutOfMemoryError: Container killed due to memory usage', 137);

// Runs `name` with the Process task failing with failures[i] on its i-th
// run (undefined: success). Returns what each task was given and the outcome.
async function run(name, failures) {
  const sizings = [];
  const processed = [];
  const handlers = {
    Size: async (input) => {
      if (input.FunctionName) {  // lambda:invoke
        const doc = size({ DATASET_URI: input.Payload.path, MIN_BUCKET: String(input.Payload.min_bucket) });
        sizings.push(input.Payload);
        return { StatusCode: 200, Payload: doc };
      }
      const env = Object.fromEntries(input.ContainerOverrides.Environment.map((e) => [e.Name, e.Value]));
      assert.equal(env.TASK_TOKEN, TOKEN);
      sizings.push(env);
      return size({ DATASET_URI: env.DATASET_URI, MIN_BUCKET: env.MIN_BUCKET });
    },
    Process: async (input) => {
      processed.push(input);
      const failure = failures[processed.length - 1];
      if (failure) throw failure();
      return { Status: 'SUCCEEDED', JobDefinition: input.JobDefinition };
    },
  };
  const machine = new StateMachine(definition(name));
  const execution = machine.run({ dataset_uri: dataset }, {
    overrides: { taskResourceLocalHandlers: handlers, retryIntervalOverrides: { Size: 0, Process: 0 } },
    context: { Task: { Token: TOKEN } },
  });
  try {
    return { output: await execution.result, sizings, processed };
  } catch (error) {
    return { error: error.cause ?? error, sizings, processed };
  }
}

for (const name of ['size-then-process.batch.asl.json', 'size-then-process.lambda.asl.json']) {
  test(`${name}: a small dataset is processed on bucket 1`, async () => {
    const { output, processed, sizings } = await run(name, []);
    assert.equal(sizings.length, 1);
    assert.equal(processed.length, 1);
    assert.match(processed[0].JobDefinition, /h5ad-machine-1:1$/);
    assert.deepEqual(processed[0].Parameters, { dataset_uri: dataset });
    assert.equal(output.result.bucket.index, 1);
    assert.equal(output.result.job_definition, processed[0].JobDefinition);
  });

  test(`${name}: an out-of-memory kill moves the job one bucket up`, async () => {
    const { output, processed, sizings } = await run(name, [OOM]);
    assert.deepEqual(processed.map((p) => p.JobDefinition.match(/machine-(\d)/)[1]), ['1', '2']);
    assert.equal(String(sizings[1].MIN_BUCKET ?? sizings[1].min_bucket), '2');
    assert.equal(output.result.bucket.index, 2);
  });

  test(`${name}: the status reason alone is enough to recognise an OOM`, async () => {
    const reasonOnly = () => batchFailure('OutOfMemoryError: Container killed due to memory usage', null);
    const { processed } = await run(name, [reasonOnly]);
    assert.equal(processed.length, 2);
  });

  test(`${name}: out of memory on the largest bucket fails with a clear cause`, async () => {
    const { error, processed } = await run(name, [OOM, OOM, OOM, OOM, OOM]);
    assert.equal(processed.length, 5);
    assert.equal(error.name, 'H5adSizer.OutOfMemoryOnLargest');
    assert.match(error.message, /ran out of memory on the largest bucket, machine-5 \(127728 MiB\)/);
  });

  test(`${name}: any other processing failure is not retried on a larger machine`, async () => {
    const crash = () => batchFailure('Essential container in task exited', 1);
    const { error, processed } = await run(name, [crash]);
    assert.equal(processed.length, 1);
    assert.equal(error.name, 'States.TaskFailed');
    assert.match(error.message, /Essential container in task exited/);
  });
}

test('size-then-process.parameterized.asl.json: one job definition, memory from the sizer', async () => {
  const { output, processed } = await run('size-then-process.parameterized.asl.json', [OOM]);
  assert.equal(processed.length, 2);
  for (const p of processed) assert.equal(p.JobDefinition, SUBSTITUTIONS.ProcessJobDefinition);
  assert.deepEqual(processed[0].ContainerOverrides.ResourceRequirements,
                   [{ Type: 'VCPU', Value: '2' }, { Type: 'MEMORY', Value: '7953' }]);
  assert.deepEqual(processed[1].ContainerOverrides, output.result.container_overrides);
  assert.equal(processed[1].ContainerOverrides.ResourceRequirements[1].Value, '15938');
});

test('a sizing failure ends in SizingFailed with the sizer\'s error', async () => {
  const failing = definition('size-then-process.lambda.asl.json');
  const machine = new StateMachine(failing);
  const execution = machine.run({ dataset_uri: join(root, 'data', 'bad_not_hdf5.h5ad') }, {
    overrides: { taskResourceLocalHandlers: {
      Size: async () => {
        const error = new Error(JSON.stringify({ errorMessage: 'bad_not_hdf5.h5ad: not an HDF5 file', errorType: 'H5adSizer.InvalidFile' }));
        error.name = 'H5adSizer.InvalidFile';
        throw error;
      },
      Process: async () => assert.fail('Process must not run'),
    }, retryIntervalOverrides: { Size: 0 } },
  });
  await assert.rejects(execution.result, (error) => (error.cause ?? error).name === 'H5adSizer.InvalidFile');
});
