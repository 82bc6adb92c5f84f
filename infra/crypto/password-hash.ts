import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { argon2id } from 'hash-wasm';

// OWASP's argon2id baseline: 19 MiB, two passes, one lane. About 50 ms here.
const ARGON2ID = { memorySize: 19_456, iterations: 2, parallelism: 1, hashLength: 32 } as const;

/** An argon2id hash in the PHC string form (`$argon2id$v=19$m=...`), with a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  return argon2id({ password, salt: randomBytes(16), ...ARGON2ID, outputType: 'encoded' });
}

// Verifying costs 50 ms (argon2id) to a second (bcrypt at cost 14) of pure computation: done on
// the main thread it would stall every stream and request for that long, so one worker thread
// does it. It is started on the first sign-in and does not keep the process alive.
const VERIFIER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { argon2Verify, bcryptVerify } = require(${JSON.stringify(createRequire(import.meta.url).resolve('hash-wasm'))});
parentPort.on('message', async ({ id, password, hash }) => {
  try {
    const bcrypt = hash.startsWith('$2');
    // $2b$ and $2y$ name the same algorithm as $2a$ in every implementation still in use.
    const ok = bcrypt
      ? await bcryptVerify({ password, hash: '$2a$' + hash.slice(4) })
      : await argon2Verify({ password, hash });
    parentPort.postMessage({ id, ok });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});`;

interface Answer {
  id: number;
  ok?: boolean;
  error?: string;
}

class PasswordVerifier {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve(ok: boolean): void; reject(error: Error): void }>();

  verify(password: string, hash: string): Promise<boolean> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, password, hash });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(VERIFIER_SOURCE, { eval: true });
    worker.on('message', (answer: Answer) => this.settle(answer));
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', () => {
      this.worker = undefined;
      this.failAll(new Error('the password verifier stopped'));
    });
    this.worker = worker;
    return worker;
  }

  private settle(answer: Answer): void {
    const waiter = this.waiting.get(answer.id);
    if (!waiter) return;
    this.waiting.delete(answer.id);
    if (this.waiting.size === 0) this.worker?.unref();
    if (answer.error !== undefined) waiter.reject(new Error(`password hash not usable: ${answer.error}`));
    else waiter.resolve(answer.ok === true);
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

const verifier = new PasswordVerifier();

/** True when `password` matches an argon2id or bcrypt hash; computed off the main thread. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  // The hash functions refuse an empty password; no hash is of one.
  if (password.length === 0) return false;
  return verifier.verify(password, hash);
}
