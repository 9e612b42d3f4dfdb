/**
 * Which certificate authorities upstream TLS trusts. By default Node's own (its bundled roots, and
 * NODE_EXTRA_CA_CERTS where the runtime honours it). Behind TLS inspection (a company proxy that
 * re-signs every site with its own CA) that is not enough, and the desktop app cannot be given
 * NODE_EXTRA_CA_CERTS at all (its NODE_OPTIONS fuse turns the variable off, docs/desktop.md). The
 * settings `caFile` (a PEM file of one or more certificates) and `systemCa` (the operating
 * system's store, where the runtime can read it: `tls.getCACertificates('system')`, Node 22.15
 * and 23.10 on) add to the defaults; they never replace them. docs/admin-api.md, "Settings".
 */
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { isAbsolute } from 'node:path';
import tls from 'node:tls';

export interface TrustSettings {
  caFile: string | null;
  systemCa: boolean;
}

/** What upstream connections trust: `ca` undefined is Node's defaults, untouched. */
export interface Trust {
  ca: string[] | undefined;
  /** Certificates added to the defaults (the file's and the system store's). */
  added: number;
  /** Why a setting could not be applied (the file gone or unreadable), or null. */
  problem: string | null;
}

type CaKind = 'default' | 'system' | 'bundled' | 'extra';
const getCACertificates = (tls as { getCACertificates?: (kind?: CaKind) => string[] }).getCACertificates;

/** Whether this runtime can read the operating system's certificate store. */
export function systemCaAvailable(): boolean {
  return typeof getCACertificates === 'function';
}

export const NO_SYSTEM_CA = `This runtime (Node ${process.versions.node}) cannot read the operating system's certificate store; Node 22.15 or later can (the desktop app's runtime does). Export the CA as a PEM file and set the CA file instead.`;

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM file, each checked to parse; an Error in words when there are none or one is broken. */
export function readCaFile(path: string): string[] {
  if (!isAbsolute(path)) throw new Error(`The CA file must be an absolute path, not "${path}".`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new Error(`The CA file ${path} cannot be read (${why}).`);
  }
  const certs = text.match(PEM_CERT) ?? [];
  if (certs.length === 0)
    throw new Error(
      `The CA file ${path} holds no PEM certificate (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----).`,
    );
  certs.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new Error(`Certificate ${i + 1} of the CA file ${path} does not parse (${(err as Error).message}).`);
    }
  });
  return certs;
}

/** The defaults a `ca` list must start from, since giving `ca` replaces them in Node's TLS. */
function defaults(): string[] {
  if (getCACertificates) return getCACertificates('default');
  // Older Node has no way to ask: its bundled roots, plus the file NODE_EXTRA_CA_CERTS names, which it honours there.
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  let extras: string[] = [];
  if (extra) {
    try {
      extras = readFileSync(extra, 'utf8').match(PEM_CERT) ?? [];
    } catch {
      // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS at start.
    }
  }
  return [...tls.rootCertificates, ...extras];
}

/** The trust the settings ask for. A file that cannot be read leaves the rest in force and says why. */
export function trustOf(s: TrustSettings): Trust {
  if (s.caFile === null && !s.systemCa) return { ca: undefined, added: 0, problem: null };
  const added: string[] = [];
  const problems: string[] = [];
  if (s.systemCa) {
    if (getCACertificates) added.push(...getCACertificates('system'));
    else problems.push(NO_SYSTEM_CA);
  }
  if (s.caFile !== null) {
    try {
      added.push(...readCaFile(s.caFile));
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  const problem = problems.length > 0 ? problems.join(' ') : null;
  if (added.length === 0) return { ca: undefined, added: 0, problem };
  return { ca: [...defaults(), ...added], added: added.length, problem };
}
