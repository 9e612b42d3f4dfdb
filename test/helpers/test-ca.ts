/**
 * A certificate authority made for one test run with openssl (as a company's TLS-inspecting proxy
 * has its own), and a server certificate it signed for 127.0.0.1: what an upstream behind TLS
 * inspection presents. Nothing here is trusted by Node's defaults.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  /** The CA's certificate, PEM, and the file holding it. */
  caCert: string;
  caFile: string;
  /** The server's key and certificate (for 127.0.0.1 and localhost), PEM. */
  serverKey: string;
  serverCert: string;
}

export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-test-ca-'));
  const at = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-subj',
    '/CN=Tollgate test inspection CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    '/CN=127.0.0.1',
  );
  writeFileSync(at('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    at('server.pem'),
    '-extfile',
    at('server.ext'),
  );
  return {
    dir,
    caCert: readFileSync(at('ca.pem'), 'utf8'),
    caFile: at('ca.pem'),
    serverKey: readFileSync(at('server.key'), 'utf8'),
    serverCert: readFileSync(at('server.pem'), 'utf8'),
  };
}
