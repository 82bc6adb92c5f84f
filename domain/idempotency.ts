/** An answer kept for an Idempotency-Key, sent again as it was. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** What a request with an Idempotency-Key finds when it claims its key. */
export type IdempotencyOutcome =
  /** First of its key (or the first after an expiry or a dead attempt): handle it. */
  | { kind: 'proceed'; owner: string }
  /** An earlier request with this key is still being handled. */
  | { kind: 'in_progress' }
  /** This key came with another request. */
  | { kind: 'mismatch' }
  /** This key was answered: send the same answer. */
  | { kind: 'replay'; answer: StoredAnswer };
