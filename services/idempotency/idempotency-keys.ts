import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  purgeExpiredIdempotencyKeys,
  releaseIdempotencyKey,
  renewIdempotencyLease,
  takeOverIdempotencyKey,
  type IdempotencyRecord,
} from '../../db/repositories/idempotency-keys.js';
import type { IdempotencyOutcome, StoredAnswer } from '../../domain/idempotency.js';

export interface IdempotencyOptions {
  /** How long an answer is kept and replayed (24 h). */
  retentionMs?: number;
  /**
   * How long an attempt holds its key without renewing it before another may take it over: the
   * attempt's process may have died mid-way (2 min; a long request renews it as it runs).
   */
  leaseMs?: number;
  clock?: () => number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60_000;

/**
 * Idempotency-Key records in the database, shared by every API process: a retry that reaches
 * another replica finds the first answer too.
 */
export class IdempotencyKeys {
  private readonly retentionMs: number;
  private readonly leaseMs: number;
  private readonly clock: () => number;
  private lastPurge = 0;

  constructor(
    private readonly knex: Knex,
    options: IdempotencyOptions = {},
  ) {
    this.retentionMs = options.retentionMs ?? DAY_MS;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.clock = options.clock ?? Date.now;
  }

  async begin(scope: string, key: string, fingerprint: string): Promise<IdempotencyOutcome> {
    const now = this.clock();
    await this.purgeNowAndThen(now);
    const owner = randomUUID();
    const claim = {
      scope,
      key,
      fingerprint,
      owner,
      now: new Date(now).toISOString(),
      lockedUntil: new Date(now + this.leaseMs).toISOString(),
      expiresAt: new Date(now + this.retentionMs).toISOString(),
    };
    // A few rounds at most: a takeover lost to another process, or a row gone between the
    // insert and the read, leaves something new to judge.
    for (let round = 0; round < 3; round++) {
      const record = await claimIdempotencyKey(this.knex, claim);
      if (record === undefined) continue;
      if (record.owner === owner) return { kind: 'proceed', owner };
      if (this.lapsed(record, now)) {
        if (await takeOverIdempotencyKey(this.knex, claim, record.owner)) return { kind: 'proceed', owner };
        continue;
      }
      return this.judge(record, fingerprint);
    }
    return { kind: 'in_progress' };
  }

  /** Keeps the key while a long request (a clone) is still being handled: call every half lease. */
  async renew(scope: string, key: string, owner: string): Promise<void> {
    await renewIdempotencyLease(
      this.knex,
      { scope, key, owner },
      new Date(this.clock() + this.leaseMs).toISOString(),
    );
  }

  /** How often `renew` must be called. */
  get renewEveryMs(): number {
    return Math.floor(this.leaseMs / 2);
  }

  async finish(scope: string, key: string, owner: string, answer: StoredAnswer): Promise<void> {
    await completeIdempotencyKey(
      this.knex,
      { scope, key, owner },
      { status: answer.status, headers: JSON.stringify(answer.headers), body: answer.body },
    );
  }

  /** Frees the key of an attempt that failed, so the client's retry is handled afresh. */
  async release(scope: string, key: string, owner: string): Promise<void> {
    await releaseIdempotencyKey(this.knex, { scope, key, owner });
  }

  private lapsed(record: IdempotencyRecord, now: number): boolean {
    if (Date.parse(record.expiresAt) <= now) return true;
    return record.state === 'in_progress' && Date.parse(record.lockedUntil) <= now;
  }

  private judge(record: IdempotencyRecord, fingerprint: string): IdempotencyOutcome {
    if (record.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (record.state === 'in_progress') return { kind: 'in_progress' };
    return {
      kind: 'replay',
      answer: {
        status: record.status ?? 200,
        headers: JSON.parse(record.headers ?? '{}') as Record<string, string>,
        body: record.body,
      },
    };
  }

  private async purgeNowAndThen(now: number): Promise<void> {
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    await purgeExpiredIdempotencyKeys(this.knex, new Date(now).toISOString());
  }
}
