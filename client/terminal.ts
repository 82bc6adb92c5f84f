/** Writes for people: colours only on a terminal and never with NO_COLOR (no-color.org). */
export interface Terminal {
  readonly isTty: boolean;
  readonly colour: boolean;
  out(line: string): void;
  /** Text without a line end (an answer as it streams). */
  write(text: string): void;
  err(line: string): void;
  dim(text: string): string;
  bold(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function terminal(
  env: NodeJS.ProcessEnv = process.env,
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): Terminal {
  const isTty = stdout.isTTY === true;
  const colour = isTty && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  const paint = (open: number, close: number) => (text: string) =>
    colour ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    isTty,
    colour,
    out: (line) => void stdout.write(`${line}\n`),
    write: (text) => void stdout.write(text),
    err: (line) => void stderr.write(`${line}\n`),
    dim: paint(2, 22),
    bold: paint(1, 22),
    green: paint(32, 39),
    red: paint(31, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
  };
}

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const seconds = ms / 1_000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

export function formatCost(usd: number): string {
  return usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** Rows as aligned columns, for lists. */
export function table(rows: string[][]): string[] {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
  );
}
