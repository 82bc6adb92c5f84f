import type { EnvLeakScan } from './env-leak-scan.js';

export interface EnvLeakRemedy {
  action: 'remove_key' | 'rename_file' | 'consent';
  description: string;
}

export interface EnvLeakProblemFile {
  file: string;
  keys: string[];
  unreadable?: true;
}

/** The 422 answer: `detail` for people; `files` and `remedies` as problem+json extension members. */
export interface EnvLeakProblem {
  detail: string;
  files: EnvLeakProblemFile[];
  remedies: EnvLeakRemedy[];
}

const WHY =
  'Why it matters: the assistant runs inside this repository, and tools such as Bun or ' +
  'dotenv-aware scripts load these files on their own. A key found there would be used (and ' +
  "billed) instead of the credentials you configured, or could leak into the assistant's context.";

function remedies(exampleFile: string): EnvLeakRemedy[] {
  return [
    {
      action: 'remove_key',
      description:
        'Remove the key from the file (a file that could not be read must be made readable or deleted, ' +
        'so it can be checked).',
    },
    {
      action: 'rename_file',
      description: `Rename the file so nothing loads it automatically, e.g. ${exampleFile} -> ${exampleFile}.example.`,
    },
    {
      action: 'consent',
      description:
        'Keep the file and consent: register with {"allowEnvKeys": true}, or send ' +
        'PATCH /api/codebases/{id} with {"allowEnvKeys": true}.',
    },
  ];
}

function describeFile(entry: EnvLeakProblemFile): string {
  return entry.unreadable
    ? `  - ${entry.file}: exists but could not be read, so it is treated as if it held keys`
    : `  - ${entry.file}: ${entry.keys.join(', ')}`;
}

/** Names each file and key (never a value), why that blocks the codebase, and the ways out. */
export function envLeakProblemDetail(scan: EnvLeakScan, path: string): EnvLeakProblem {
  const files: EnvLeakProblemFile[] = scan.findings.map((finding) =>
    finding.unreadable
      ? { file: finding.file, keys: [...finding.keys], unreadable: true }
      : { file: finding.file, keys: [...finding.keys] },
  );
  const ways = remedies(files[0]?.file ?? '.env');
  const detail = [
    `${path} has AI provider API keys in env files that tools load automatically:`,
    ...files.map(describeFile),
    WHY,
    'Three ways out:',
    ...ways.map((way, index) => `  ${index + 1}. ${way.description}`),
  ].join('\n');
  return { detail, files, remedies: ways };
}
