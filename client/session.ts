import { ApiClient } from './api-client.js';
import type { Codebase, Conversation } from './api-types.js';
import { ClientExit, EXIT } from './exit-codes.js';
import { resolveServer } from './server-profile.js';
import { terminal, type Terminal } from './terminal.js';

/** What every client command is given: where the server is, and how to write. */
export interface ClientOptions {
  url?: string;
  profile?: string;
  json?: boolean;
}

export interface ClientSession {
  api: ApiClient;
  term: Terminal;
  json: boolean;
}

export function openSession(options: ClientOptions, env: NodeJS.ProcessEnv = process.env): ClientSession {
  return {
    api: new ApiClient(resolveServer(env, options)),
    term: terminal(env),
    json: options.json === true,
  };
}

const CODEBASE_PAGE = 200;

/** A codebase named by its id or (any case) its name. */
export async function findCodebase(session: ClientSession, ref: string): Promise<Codebase> {
  const all = await session.api.get<Codebase[]>('/api/codebases', { limit: CODEBASE_PAGE });
  const byId = all.find((codebase) => codebase.id === ref);
  if (byId) return byId;
  const named = all.filter((codebase) => codebase.name.toLowerCase() === ref.toLowerCase());
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new ClientExit(
      `${named.length} codebases are named ${ref}: use an id (${named.map((one) => one.id).join(', ')})`,
      EXIT.usage,
    );
  }
  throw new ClientExit(`no codebase ${ref} (\`cairn codebase list\` shows them)`, EXIT.refused);
}

/** The conversation to talk in: the one named, else a new one on the codebase. */
export async function conversationFor(
  session: ClientSession,
  options: { conversation?: string; codebase?: string; title?: string },
): Promise<string> {
  if (options.conversation) {
    const found = await session.api.get<Conversation>(
      `/api/conversations/${encodeURIComponent(options.conversation)}`,
    );
    return found.platform_conversation_id;
  }
  const codebase = options.codebase ? await findCodebase(session, options.codebase) : undefined;
  const created = await session.api.post<Conversation>('/api/conversations', {
    ...(codebase ? { codebase_id: codebase.id } : {}),
    ...(options.title ? { title: options.title } : {}),
  });
  return created.platform_conversation_id;
}
