/** One page of a list read in keyset order: its rows, and where the next page starts when one follows. */
export interface KeysetPage<T, K> {
  items: T[];
  /** The position of the last row, present only when more rows follow it. */
  next?: K;
}

/** Reads `limit + 1` rows and keeps `limit`: the extra row only says that another page exists. */
export async function readKeysetPage<T, K>(
  limit: number,
  read: (fetch: number) => Promise<T[]>,
  positionOf: (row: T) => K,
): Promise<KeysetPage<T, K>> {
  const rows = await read(limit + 1);
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, next: positionOf(items[limit - 1]!) };
}

/** readKeysetPage for rows the database wrote as JSON: the page keeps their texts. */
export async function readJsonPage<Row extends { json: string }, K>(
  limit: number,
  read: (fetch: number) => Promise<Row[]>,
  positionOf: (row: Row) => K,
): Promise<KeysetPage<string, K>> {
  const page = await readKeysetPage(limit, read, positionOf);
  return { ...page, items: page.items.map((row) => row.json) };
}
