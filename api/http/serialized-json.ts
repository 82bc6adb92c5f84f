/**
 * A JSON answer written out once and sent as is. For bodies built from values that many requests
 * share while they do not change (the workflow and command lists), where serializing the same
 * 20 KB on every request cost more than the rest of the request. `T` is the body's shape, so a
 * route's response type still checks it; with response validation on, the text is parsed and
 * validated like any other body.
 */
export class SerializedJson<T = unknown> {
  declare private readonly shape: T;

  /**
   * `bytes`, the text's UTF-8, is kept for a body many answers share: sent as is, the socket
   * writes it without encoding (and measuring) 20-35 KB of text again for every answer.
   */
  constructor(
    readonly text: string,
    readonly bytes?: Buffer,
  ) {}

  /** What the response sends: the kept bytes, else the text. */
  get payload(): string | Buffer {
    return this.bytes ?? this.text;
  }

  /** A list whose items are JSON texts already (rows the database wrote as JSON). */
  static ofItems<Item>(items: readonly string[]): SerializedJson<Item[]> {
    return new SerializedJson<Item[]>(`[${items.join(',')}]`);
  }

  /**
   * An object whose fields are values or serialized parts (a page's items beside its cursor);
   * undefined fields are left out, as JSON.stringify leaves them out.
   */
  static object<Shape>(fields: Record<string, unknown>): SerializedJson<Shape> {
    const parts: string[] = [];
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      parts.push(
        `${JSON.stringify(name)}:${value instanceof SerializedJson ? value.text : JSON.stringify(value)}`,
      );
    }
    return new SerializedJson<Shape>(`{${parts.join(',')}}`);
  }

  value(): T {
    return JSON.parse(this.text) as T;
  }
}

/**
 * The serialized body built from a shared value, made once per value: `source` must not change
 * once built (frozen, or replaced as a whole when it changes). Entries go with their source.
 */
export function serializedOnce<S extends object, T>(
  build: (source: S) => T,
): (source: S) => SerializedJson<T> {
  const made = new WeakMap<S, SerializedJson<T>>();
  return (source) => {
    let json = made.get(source);
    if (!json) {
      const text = JSON.stringify(build(source));
      json = new SerializedJson<T>(text, Buffer.from(text));
      made.set(source, json);
    }
    return json;
  };
}
