import { StringDecoder } from 'node:string_decoder';

/** Splits a byte stream into lines, keeping a character that a chunk boundary cut in two whole. */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';

  /** The lines this chunk completes (without their line ends). */
  push(chunk: Buffer): string[] {
    // A `\r` that ends the chunk stays in the partial line, so a `\r\n` cut in two is one end.
    const lines = (this.partial + this.decoder.write(chunk)).split(/\r?\n/);
    this.partial = lines.pop() ?? '';
    return lines;
  }

  /** The unfinished last line, if any, once the stream has ended. */
  end(): string[] {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    return rest === '' ? [] : [rest];
  }
}
