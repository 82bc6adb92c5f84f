// Where in the YAML text a validation message points. The validator's messages start with the
// path of what they are about (`nodes[2] "plan": loop.max_iterations: ...`, `unknown key "x"`):
// that path is followed through the parsed document down to the deepest part that exists.
import { isMap, isScalar, isSeq, type Document, type Node, type Pair } from 'yaml';

export interface TextRange {
  from: number;
  to: number;
}

type PathPart = string | number;

const NODE_PREFIX = /^nodes\[(\d+)\](?: "(?:[^"\\]|\\.)*")?: /;
const KEY_PREFIX = /^([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[\d+\])*): /;
const UNKNOWN_KEY = /^unknown key "((?:[^"\\]|\\.)*)"/;

/** The path a message names, as written in it (not yet checked against the document). */
export function messagePath(message: string): { path: PathPart[]; unknownKey?: string } {
  const path: PathPart[] = [];
  let rest = message;
  const node = NODE_PREFIX.exec(rest);
  if (node) {
    path.push('nodes', Number(node[1]));
    rest = rest.slice(node[0].length);
  }
  for (let key = KEY_PREFIX.exec(rest); key; key = KEY_PREFIX.exec(rest)) {
    for (const part of key[1]!.matchAll(/([A-Za-z_][\w-]*)|\[(\d+)\]/g)) {
      path.push(part[1] ?? Number(part[2]));
    }
    rest = rest.slice(key[0].length);
  }
  const unknown = UNKNOWN_KEY.exec(rest);
  return unknown ? { path, unknownKey: JSON.parse(`"${unknown[1]}"`) as string } : { path };
}

/** The pair of a mapping whose key is `key`. */
function pairOf(mapping: Node, key: string): Pair<unknown, unknown> | undefined {
  if (!isMap(mapping)) return undefined;
  return mapping.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === key);
}

/** The text of a key or of a list item: where the eye should land, not the whole block below it. */
function headRange(node: Node | null | undefined): TextRange | undefined {
  const range = node?.range;
  return range ? { from: range[0], to: range[1] } : undefined;
}

/** The line's range in `text` that holds offset `at`. */
function lineAround(text: string, at: number): TextRange {
  const from = text.lastIndexOf('\n', Math.max(0, at - 1)) + 1;
  const end = text.indexOf('\n', at);
  return { from, to: end === -1 ? text.length : end };
}

/**
 * The range a message is about: the key (or list item) at the deepest part of its path the
 * document has, on its first line; the first line of the document when nothing matches.
 */
export function locateProblem(document: Document, text: string, message: string): TextRange {
  const { path, unknownKey } = messagePath(message);
  if (unknownKey !== undefined) path.push(unknownKey);
  let current: Node | null | undefined = document.contents as Node | null;
  let found: TextRange | undefined;
  for (const part of path) {
    if (typeof part === 'number') {
      if (!isSeq(current)) break;
      const item = current.items[part] as Node | undefined;
      if (!item) break;
      found = headRange(item) ?? found;
      current = item;
    } else {
      if (!current) break;
      const pair = pairOf(current, part);
      if (!pair) break;
      found = headRange(pair.key as Node) ?? found;
      current = pair.value as Node | null;
    }
  }
  const from = found?.from ?? 0;
  const lineEnd = lineAround(text, from).to;
  const to = Math.min(found?.to ?? lineEnd, lineEnd);
  return to > from ? { from, to } : lineAround(text, from);
}
