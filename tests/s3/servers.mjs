// Test servers for h5ad-sizer's S3 tests, all on 127.0.0.1:
//   s3rver, an S3-compatible store, holding the given files in "test-bucket";
//   in front of it a proxy that recomputes every signed request's AWS
//   Signature V4 with AWS's own signer (@smithy/signature-v4) and answers
//   403 SignatureDoesNotMatch when it differs (s3rver itself checks only
//   the format). Verified requests are passed on without their signature;
//   unsigned ones too (a public bucket), except for keys under private/,
//   which are 403 AccessDenied unsigned.
//
//   node servers.mjs PORT_FILE ITEM...
// ITEM is FILE (stored under its base name), FILE=KEY, or
// --filler=PREFIX:COUNT (COUNT empty objects PREFIX00000.h5ad, ..., for
// listings of more than one page). Writes "PROXY_PORT" to PORT_FILE once
// ready; runs until killed.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import http from 'node:http';
import S3rver from 's3rver';
import { SignatureV4 } from '@smithy/signature-v4';
import { Hash } from '@smithy/hash-node';

const BUCKET = 'test-bucket';
// Access keys the proxy knows, and their secrets.
const SECRETS = { S3RVER: 'S3RVER', AKIDCONTAINER: 'container-secret' };

const [portFile, ...files] = process.argv.slice(2);
const store = await new S3rver({
  port: 0, address: '127.0.0.1', silent: true,
  directory: mkdtempSync(join(tmpdir(), 's3rver-')),
  configureBuckets: [{ name: BUCKET }],
}).run();
const storePort = store.port;

function send(method, path, body) {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port: storePort, method, path }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('error', reject);
    request.end(body);
  });
}
async function put(key, body) {
  const status = await send('PUT', `/${BUCKET}/${encodeURI(key)}`, body);
  if (status !== 200) throw new Error(`upload of ${key} failed: HTTP ${status}`);
}
for (const item of files) {
  const filler = /^--filler=(.*):(\d+)$/.exec(item);
  if (filler) {
    const [, prefix, count] = filler;
    for (let i = 0; i < Number(count); i += 50) {
      const batch = [];
      for (let j = i; j < Math.min(i + 50, Number(count)); ++j) {
        batch.push(put(`${prefix}${String(j).padStart(5, '0')}.h5ad`, ''));
      }
      await Promise.all(batch);
    }
    continue;
  }
  const equals = item.indexOf('=');
  const [file, key] = equals < 0 ? [item, basename(item)] : [item.slice(0, equals), item.slice(equals + 1)];
  await put(key, readFileSync(file));
}

function parseAuthorization(header) {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(header);
  if (!match) return null;
  const [, accessKeyId, , region, service, signedHeaders, signature] = match;
  return { accessKeyId, region, service, signedHeaders: signedHeaders.split(';'), signature };
}

// Why the request's signature is wrong, or null when it is right.
async function verify(request) {
  const auth = parseAuthorization(request.headers.authorization ?? '');
  if (!auth) return 'malformed Authorization header';
  const secret = SECRETS[auth.accessKeyId];
  if (!secret) return `unknown access key ${auth.accessKeyId}`;
  if (request.headers['x-amz-security-token'] && !auth.signedHeaders.includes('x-amz-security-token')) {
    return 'x-amz-security-token is not signed';
  }
  const url = new URL(request.url, `http://${request.headers.host}`);
  const headers = {};
  for (const name of auth.signedHeaders) headers[name] = request.headers[name];
  const query = {};
  for (const [key, value] of url.searchParams) query[key] = value;
  const signer = new SignatureV4({
    credentials: { accessKeyId: auth.accessKeyId, secretAccessKey: secret,
                   sessionToken: request.headers['x-amz-security-token'] },
    region: auth.region, service: auth.service, sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: false,
  });
  const amzDate = request.headers['x-amz-date'];
  const signingDate = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T` +
                               `${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
  const signed = await signer.sign(
    { method: request.method, protocol: 'http:', hostname: url.hostname, port: Number(url.port),
      path: url.pathname, query, headers },
    { signingDate, signableHeaders: new Set(auth.signedHeaders) });
  const expected = parseAuthorization(signed.headers.authorization ?? signed.headers.Authorization ?? '');
  if (!expected) return 'could not recompute the signature';
  return expected.signature === auth.signature ? null : 'signature does not match';
}

const proxy = http.createServer(async (request, response) => {
  if (!request.headers.authorization && request.url.includes('/private/')) {
    response.writeHead(403, { 'content-type': 'application/xml' });
    response.end('<Error><Code>AccessDenied</Code><Message>private/ needs a signature</Message></Error>');
    return;
  }
  if (request.headers.authorization) {
    const problem = await verify(request).catch((error) => String(error));
    if (problem) {
      response.writeHead(403, { 'content-type': 'application/xml' });
      response.end(`<Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error>`);
      return;
    }
  }
  const headers = { ...request.headers };
  for (const name of ['authorization', 'x-amz-security-token', 'x-amz-date', 'x-amz-content-sha256']) {
    delete headers[name];
  }
  const upstream = http.request(
    { host: '127.0.0.1', port: storePort, method: request.method, path: request.url, headers },
    (answer) => { response.writeHead(answer.statusCode, answer.headers); answer.pipe(response); });
  upstream.on('error', () => { response.writeHead(502); response.end(); });
  request.pipe(upstream);
});
proxy.listen(0, '127.0.0.1', () => writeFileSync(portFile, String(proxy.address().port)));
