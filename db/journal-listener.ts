import type { Knex } from 'knex';
import { announceAppended, JOURNAL_CHANNEL } from './journal-signals.js';
import { CODEBASES_CHANNEL, type CodebasePathCache } from './codebase-path-cache.js';
import type { Logger } from '../config/logger.js';

interface PgNotification {
  channel: string;
  payload?: string;
}

interface PgConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: PgNotification) => void): void;
  on(event: 'error' | 'end', listener: (error?: Error) => void): void;
  removeAllListeners(): void;
}

export interface JournalListener {
  stop(): Promise<void>;
}

const RETRY_MS = 2_000;

/**
 * Holds one Postgres connection in LISTEN on the journal channel and turns each notification
 * into an in-process wake-up, so SSE readers see events that another process (a worker, another
 * API replica) appended. When the connection drops it reconnects; readers poll meanwhile.
 * It also hears the changes of `codebases` for the codebase path cache, which it trusts only
 * while it listens: lost notices would otherwise leave a deleted codebase's path allowed.
 */
export function listenForJournalAppends(
  knex: Knex,
  logger: Logger,
  codebasePaths?: CodebasePathCache,
): JournalListener {
  let connection: PgConnection | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let connecting: Promise<void> = Promise.resolve();

  const release = (broken: boolean) => {
    codebasePaths?.trust(false);
    const held = connection;
    connection = undefined;
    if (!held) return;
    held.removeAllListeners();
    if (broken) held.on('error', () => undefined);
    void knex.client.releaseConnection(held).catch(() => undefined);
  };

  const scheduleRetry = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connecting = connect();
    }, RETRY_MS);
    retry.unref();
  };

  const connect = async () => {
    try {
      const acquired = (await knex.client.acquireConnection()) as PgConnection;
      if (stopped) {
        await knex.client.releaseConnection(acquired);
        return;
      }
      connection = acquired;
      acquired.on('notification', (message) => {
        if (message.channel === JOURNAL_CHANNEL && message.payload) announceAppended([message.payload]);
        else if (message.channel === CODEBASES_CHANNEL) codebasePaths?.invalidate();
      });
      const onBroken = (error?: Error) => {
        logger.warn(
          { event: 'journal.listen_lost', err: error?.message },
          'journal listener lost its connection',
        );
        release(true);
        scheduleRetry();
      };
      acquired.on('error', onBroken);
      acquired.on('end', onBroken);
      await acquired.query(`LISTEN ${JOURNAL_CHANNEL}`);
      await acquired.query(`LISTEN ${CODEBASES_CHANNEL}`);
      // Heard from here on; what changed before is read again (trusting clears the cache).
      if (connection === acquired) codebasePaths?.trust(true);
    } catch (error) {
      logger.warn(
        { event: 'journal.listen_failed', err: (error as Error).message },
        'journal listener could not connect',
      );
      release(true);
      scheduleRetry();
    }
  };

  connecting = connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await connecting;
      const held = connection;
      codebasePaths?.trust(false);
      if (held) {
        await held.query('UNLISTEN *').catch(() => undefined);
        release(false);
      }
    },
  };
}
