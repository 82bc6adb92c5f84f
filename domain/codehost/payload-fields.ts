// Reading a webhook payload without trusting its shape: a field that is missing or of another
// type reads as undefined, and the adapter ignores the delivery (2xx, logged at debug).

export type Fields = Record<string, unknown>;

export function objectAt(value: unknown, key: string): Fields | undefined {
  const field = (value as Fields | undefined)?.[key];
  return typeof field === 'object' && field !== null && !Array.isArray(field) ? (field as Fields) : undefined;
}

export function stringAt(value: unknown, key: string): string | undefined {
  const field = (value as Fields | undefined)?.[key];
  return typeof field === 'string' ? field : undefined;
}

export function numberAt(value: unknown, key: string): number | undefined {
  const field = (value as Fields | undefined)?.[key];
  return typeof field === 'number' && Number.isSafeInteger(field) ? field : undefined;
}

/** An id as text, whether the platform sends it as a number or a string. */
export function idAt(value: unknown, key: string): string | undefined {
  const field = (value as Fields | undefined)?.[key];
  if (typeof field === 'number' && Number.isSafeInteger(field)) return String(field);
  return typeof field === 'string' && field !== '' ? field : undefined;
}
