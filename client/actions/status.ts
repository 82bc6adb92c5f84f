import { EXIT } from '../exit-codes.js';
import type { ClientSession } from '../session.js';

interface ApiHealth {
  status: string;
  version: string;
  database: string;
  adapters: string[];
  concurrency: { active: number; queued: number; maxConcurrent: number };
  runningWorkflows: number;
}

/** `cairn status`: whether the server answers, and what it is doing. */
export async function status(session: ClientSession): Promise<number> {
  const health = await session.api.get<ApiHealth>('/api/health');
  if (session.json) {
    session.term.out(JSON.stringify({ url: session.api.server.url, ...health }));
    return EXIT.ok;
  }
  const t = session.term;
  const { active, queued, maxConcurrent } = health.concurrency;
  t.out(`${t.green('●')} Cairn ${health.version} at ${session.api.server.url} (${health.database})`);
  t.out(
    `  turns: ${active} running of ${maxConcurrent}, ${queued} queued; runs: ${health.runningWorkflows} running`,
  );
  t.out(`  doors: ${health.adapters.join(', ')}`);
  return EXIT.ok;
}
