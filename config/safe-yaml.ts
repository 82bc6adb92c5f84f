import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';

// Config files and workflow definitions come from repositories Cairn did not write: reading one
// must not be a way to exhaust memory or smuggle in surprises.

/** Bounds alias expansion so a "billion laughs" document fails fast instead of eating memory. */
export const MAX_ALIAS_COUNT = 100;

/** A YAML file that cannot be used; the message is safe to show (it never quotes the file). */
export class UnusableYaml extends Error {
  override readonly name = 'UnusableYaml';
}

/**
 * The file's text, or undefined when it does not exist. Too large, unreadable or not UTF-8:
 * UnusableYaml.
 */
export function readYamlText(file: string, maxBytes: number): string | undefined {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new UnusableYaml(`cannot be read (${code ?? 'unknown error'})`);
  }
  if (buffer.length > maxBytes) throw new UnusableYaml(`is larger than ${maxBytes} bytes`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    throw new UnusableYaml('is not valid UTF-8 text');
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a document whose top level must be a mapping; an empty document is an empty mapping. */
export function parseYamlMapping(text: string): Record<string, unknown> {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  // Only the first line: later lines quote the source, which may hold secrets.
  const firstError = doc.errors[0];
  if (firstError) throw new UnusableYaml(`is not valid YAML: ${firstError.message.split('\n')[0]}`);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw new UnusableYaml(`is not usable YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return {};
  if (!isMapping(data)) throw new UnusableYaml('must contain a mapping of keys at the top level');
  return data;
}
