/** Secret values shorter than this are not worth hunting for (and would mangle ordinary text). */
const MIN_SECRET_LENGTH = 6;

/** Replaces every occurrence of the given secret values in `text`. */
export function redactSecrets(text: string, secrets: Iterable<string | undefined>): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_SECRET_LENGTH) result = result.split(secret).join('[redacted]');
  }
  return result;
}

/** Keeps the last `limit` characters of a growing output, for error messages. */
export class OutputTail {
  private text = '';
  constructor(private readonly limit = 2_000) {}

  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-this.limit);
  }

  value(): string {
    return this.text.trim();
  }
}
