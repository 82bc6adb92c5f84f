/**
 * A JSON answer written out once and sent as is. For bodies built from values that many requests
 * share while they do not change (the workflow and command lists), where serializing the same
 * 20 KB on every request cost more than the rest of the request. `T` is the body's shape, so a
 * route's response type still checks it; with response validation on, the text is parsed and
 * validated like any other body.
 */
export class SerializedJson<T = unknown> {
  declare private readonly shape: T;

  constructor(readonly text: string) {}

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
      json = new SerializedJson<T>(JSON.stringify(build(source)));
      made.set(source, json);
    }
    return json;
  };
}
