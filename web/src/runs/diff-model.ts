// A run's unified diff, cut into one part per file and one kind per line, for plain coloured
// rendering. Pure (unit-tested).

export type DiffLineKind = 'added' | 'removed' | 'context' | 'hunk' | 'meta';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/** One file's part of the patch: its `diff --git` header and hunks. */
export interface FilePatch {
  header: string;
  lines: DiffLine[];
}

function lineKind(line: string, inHunk: boolean): DiffLineKind {
  if (line.startsWith('@@')) return 'hunk';
  if (!inHunk) return 'meta';
  if (line.startsWith('+')) return 'added';
  if (line.startsWith('-')) return 'removed';
  if (line.startsWith('\\')) return 'meta'; // "\ No newline at end of file"
  return 'context';
}

/**
 * The patch's files, in the order git wrote them (the order of the API's file list, which comes
 * from the same diff). A file's header lines (`index`, `---`, `+++`, `rename from`) are `meta`.
 */
export function splitPatch(patch: string): FilePatch[] {
  const files: FilePatch[] = [];
  let current: FilePatch | undefined;
  let inHunk = false;
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      current = { header: line, lines: [] };
      files.push(current);
      inHunk = false;
      continue;
    }
    if (!current) continue;
    const kind = lineKind(line, inHunk);
    if (kind === 'hunk') inHunk = true;
    current.lines.push({ kind, text: line });
  }
  return files;
}
