import { resolve } from 'node:path';
import type { Codebase } from '../api-types.js';
import { EXIT } from '../exit-codes.js';
import { findCodebase, type ClientSession } from '../session.js';
import { table } from '../terminal.js';

const looksLikeUrl = (target: string) => /^(https?:\/\/|ssh:\/\/|git@|file:\/\/)/i.test(target);

export async function addCodebase(
  session: ClientSession,
  target: string,
  options: { name?: string; allowEnvKeys?: boolean },
): Promise<number> {
  const source = looksLikeUrl(target) ? { url: target } : { path: resolve(target) };
  const codebase = await session.api.post<Codebase>('/api/codebases', {
    ...source,
    ...(options.name ? { name: options.name } : {}),
    ...(options.allowEnvKeys ? { allowEnvKeys: true } : {}),
  });
  if (session.json) session.term.out(JSON.stringify(codebase));
  else session.term.out(`${codebase.id}  ${codebase.name}  ${codebase.sourcePath}`);
  return EXIT.ok;
}

export async function listCodebases(session: ClientSession): Promise<number> {
  const codebases = await session.api.get<Codebase[]>('/api/codebases', { limit: 200 });
  if (session.json) {
    for (const codebase of codebases) session.term.out(JSON.stringify(codebase));
    return EXIT.ok;
  }
  if (codebases.length === 0) {
    session.term.out('no codebases: `cairn codebase add <url or path>` adds one');
    return EXIT.ok;
  }
  const rows = [
    ['ID', 'NAME', 'SOURCE'],
    ...codebases.map((one) => [one.id, one.name, one.url ?? one.path ?? one.sourcePath]),
  ];
  for (const line of table(rows)) session.term.out(line);
  return EXIT.ok;
}

export async function removeCodebase(session: ClientSession, ref: string): Promise<number> {
  const codebase = await findCodebase(session, ref);
  const result = await session.api.request<Record<string, unknown>>(
    'DELETE',
    `/api/codebases/${codebase.id}`,
  );
  if (session.json) session.term.out(JSON.stringify(result));
  else session.term.out(`removed ${codebase.name} (${codebase.id})`);
  return EXIT.ok;
}
