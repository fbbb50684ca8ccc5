// A minimal webhook receiver that requires pixd's client certificate (mutual TLS), as a Pix webhook
// receiver must. No dependencies: `node server.mjs`. See README.md here for the certificates it needs.
import fs from 'node:fs';
import https from 'node:https';

const setting = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is not set (see README.md)`);
  return value;
};

const server = https.createServer(
  {
    key: fs.readFileSync(setting('TLS_KEY')),
    cert: fs.readFileSync(setting('TLS_CERT')),
    // pixd's CA (ca.pem in its data directory): only a client certificate it issued gets in.
    ca: fs.readFileSync(setting('PIXD_CA')),
    requestCert: true,
    rejectUnauthorized: true,
  },
  (request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const peer = request.socket.getPeerCertificate();
      console.log(JSON.stringify({ path: request.url, from: peer.subject?.CN, body: body ? JSON.parse(body) : null }));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  },
);

const port = Number(setting('PORT', '8444'));
server.listen(port, setting('HOST', '127.0.0.1'), () => console.log(`listening on https://127.0.0.1:${server.address().port}`));
