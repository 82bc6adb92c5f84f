// The editor's check of a text: YAML syntax in the page, the definition by the server's own
// validator (POST /api/workflows/validate), each problem placed at its line.
import { parseDocument, type Document } from 'yaml';
import { postJson } from '../api/client';
import { locateProblem, type TextRange } from './problem-location';

export interface PlacedProblem extends TextRange {
  message: string;
  /** The line it is on, from 1. */
  line: number;
}

export interface TextVerdict {
  /** The definition the text says, when it is YAML at all. */
  definition: unknown;
  problems: PlacedProblem[];
}

const lineOf = (text: string, at: number) => text.slice(0, at).split('\n').length;

function placed(text: string, range: TextRange, message: string): PlacedProblem {
  return { ...range, message, line: lineOf(text, range.from) };
}

/** Parses the text; YAML errors are placed where the parser stopped. */
export function readText(text: string): {
  document: Document;
  definition: unknown;
  problems: PlacedProblem[];
} {
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const problems = document.errors.map((error) => {
    const [from, to] = error.pos;
    // Only the first line of the parser's message: the rest quotes the text back.
    return placed(text, { from, to: Math.max(to, from + 1) }, error.message.split('\n')[0]!);
  });
  let definition: unknown;
  if (problems.length === 0) {
    try {
      definition = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      problems.push(placed(text, { from: 0, to: 1 }, (error as Error).message.split('\n')[0]!));
    }
  }
  return { document, definition, problems };
}

/** Every problem of the text, the server's included, each placed at its line. */
export async function checkText(text: string): Promise<TextVerdict> {
  const read = readText(text);
  if (read.problems.length > 0) return { definition: undefined, problems: read.problems };
  const verdict = await postJson<{ valid: boolean; errors?: string[] }>('/api/workflows/validate', {
    definition: read.definition ?? {},
  });
  const problems = (verdict.errors ?? []).map((message) =>
    placed(text, locateProblem(read.document, text, message), message),
  );
  return { definition: read.definition, problems };
}
