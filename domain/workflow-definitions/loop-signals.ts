/**
 * Archon's loop completion signal (`until`): the assistant ends its answer with
 * `<promise>SIGNAL</promise>` (any case, spaces allowed inside the tags), or, less safely, with
 * the bare signal at the very end (trailing spaces and punctuation allowed) or on a line of its own.
 */

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PROMISE_TAG = /<promise>\s*([\s\S]*?)\s*<\/promise>/gi;

/** Whether an iteration's output says the loop is done. */
export function loopSignalReached(output: string, signal: string): boolean {
  const wanted = signal.trim().toLowerCase();
  for (const match of output.matchAll(PROMISE_TAG)) if (match[1]!.toLowerCase() === wanted) return true;
  const bare = escape(signal.trim());
  const atEnd = new RegExp(`(?:^|[^A-Za-z0-9_])${bare}[\\s.!?:;,]*$`, 'i');
  const ownLine = new RegExp(`^[ \\t]*${bare}[ \\t]*$`, 'im');
  return atEnd.test(output) || ownLine.test(output);
}

/** The output as later nodes see it: `<promise>…</promise>` elements removed. */
export function withoutPromiseTags(output: string): string {
  return output.replace(PROMISE_TAG, '').trim();
}
