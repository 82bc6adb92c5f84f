import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';

// A GitHub App proves itself with a JWT signed by its private key (RS256): `iss` the App's ID,
// `iat` backdated 60 s against clock drift, `exp` at most 10 minutes after `iat`.

const BACKDATE_S = 60;
const LIFETIME_S = 9 * 60;

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** The App's key from PEM text (PKCS#1 as GitHub hands it out, or PKCS#8); a clear error otherwise. */
export function appPrivateKey(pem: string, source: string): KeyObject {
  // A key pasted into one line of an env file keeps its newlines as \n.
  const text = pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\n/g, '\n') : pem;
  try {
    const key = createPrivateKey({ key: text, format: 'pem' });
    if (key.asymmetricKeyType !== 'rsa') throw new Error(`an ${key.asymmetricKeyType} key, not RSA`);
    return key;
  } catch (error) {
    throw new Error(`${source} is not a PEM RSA private key (${(error as Error).message})`, {
      cause: error,
    });
  }
}

export interface AppJwt {
  jwt: string;
  /** Epoch seconds after which GitHub refuses it. */
  expiresAt: number;
}

/** A JWT for the App `appId` (numeric ID or client ID), signed now. */
export function signAppJwt(appId: string, key: KeyObject, nowMs = Date.now()): AppJwt {
  const now = Math.floor(nowMs / 1000);
  const iat = now - BACKDATE_S;
  const exp = now + LIFETIME_S;
  const issuer = /^\d+$/.test(appId) ? Number(appId) : appId;
  const signed = `${base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${base64url(
    JSON.stringify({ iat, exp, iss: issuer }),
  )}`;
  const signature = createSign('RSA-SHA256').update(signed).sign(key);
  return { jwt: `${signed}.${base64url(signature)}`, expiresAt: exp };
}
