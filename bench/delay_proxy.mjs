// An HTTP proxy on 127.0.0.1 that holds every request for a fixed time
// before passing it on: the round trip a request to S3 costs.
//   node bench/delay_proxy.mjs PORT_FILE TARGET_PORT DELAY_MS
import http from 'node:http';
import { writeFileSync } from 'node:fs';

const [portFile, targetPort, delayMs] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true });
http.createServer((request, response) => {
  setTimeout(() => {
    const upstream = http.request(
      { host: '127.0.0.1', port: Number(targetPort), method: request.method, path: request.url,
        headers: request.headers, agent },
      // Raw headers keep their case: HDF5 1.10's S3 driver looks for "Content-Length".
      (answer) => { response.writeHead(answer.statusCode, answer.rawHeaders); answer.pipe(response); });
    upstream.on('error', () => { response.writeHead(502); response.end(); });
    request.pipe(upstream);
  }, Number(delayMs));
}).listen(0, '127.0.0.1', function () { writeFileSync(portFile, String(this.address().port)); });
