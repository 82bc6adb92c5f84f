import YAML from 'yaml';
import { ClientExit, EXIT } from '../exit-codes.js';
import type { ClientSession } from '../session.js';

export async function showConfig(session: ClientSession, options: { codebase?: string }): Promise<number> {
  const config = await session.api.get<Record<string, unknown>>('/api/config', {
    codebase_id: options.codebase,
  });
  if (session.json) session.term.out(JSON.stringify(config));
  else session.term.write(YAML.stringify(config));
  return EXIT.ok;
}

const ASSISTANT_KEY = /^assistants\.(claude|codex)\.([A-Za-z]+)$/;

/** A value as typed: JSON when it parses (lists, booleans, null), else the text itself. */
function valueOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `cairn config set assistants.<id>.<setting> <value>`: PATCH /api/config/assistants. */
export async function setConfig(session: ClientSession, key: string, value: string): Promise<number> {
  const match = ASSISTANT_KEY.exec(key);
  if (!match) {
    throw new ClientExit(
      `cannot set ${key}: the API changes assistants.<claude|codex>.<setting> (for example assistants.claude.model); edit ~/.cairn/config.yaml for the rest`,
      EXIT.usage,
    );
  }
  const [, assistant, setting] = match;
  const config = await session.api.request<{ assistants?: Record<string, unknown> }>(
    'PATCH',
    '/api/config/assistants',
    {
      body: { [assistant!]: { [setting!]: valueOf(value) } },
    },
  );
  if (session.json) session.term.out(JSON.stringify(config));
  else session.term.out(`${key} = ${JSON.stringify(valueOf(value))}`);
  return EXIT.ok;
}
