import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';

// How each code host proves a webhook is its own. All comparisons are in constant time.

const githubVerifiers = new Map<string, Webhooks>();

/** GitHub: X-Hub-Signature-256, the HMAC SHA-256 of the raw body with WEBHOOK_SECRET, checked by @octokit/webhooks. */
export async function verifyGitHubSignature(
  secret: string,
  rawBody: string,
  signature: string | undefined,
): Promise<boolean> {
  if (!signature) return false;
  let webhooks = githubVerifiers.get(secret);
  if (!webhooks) {
    webhooks = new Webhooks({ secret });
    githubVerifiers.set(secret, webhooks);
  }
  try {
    return await webhooks.verify(rawBody, signature);
  } catch {
    // A malformed header (not sha256=<hex>) is a wrong signature, not an error of ours.
    return false;
  }
}

/** Both sides hashed first, so the comparison takes the same time whatever the lengths. */
function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** GitLab: X-Gitlab-Token is the webhook's secret token itself. */
export function verifyGitLabToken(secret: string, token: string | undefined): boolean {
  return token !== undefined && sameSecret(secret, token);
}

export interface StandardWebhookHeaders {
  id?: string;
  timestamp?: string;
  signature?: string;
}

export type StandardWebhookCheck = 'valid' | 'invalid' | 'stale';

/** How far a signed webhook's timestamp may be from now (Standard Webhooks suggests 5 minutes). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Standard Webhooks (GitLab's signed webhooks): `webhook-signature` lists `v1,<base64>` HMAC
 * SHA-256 signatures of `<webhook-id>.<webhook-timestamp>.<body>` with the signing secret's key
 * (`whsec_<base64>`); a timestamp outside the tolerance is refused (a replay).
 */
export function verifyStandardWebhook(
  signingSecret: string,
  headers: StandardWebhookHeaders,
  rawBody: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): StandardWebhookCheck {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return 'invalid';
  const key = Buffer.from(signingSecret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`, 'utf8').digest();
  const matches = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => {
      const given = Buffer.from(entry.slice(3), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) return 'invalid';
  return Math.abs(nowSeconds - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS ? 'stale' : 'valid';
}
