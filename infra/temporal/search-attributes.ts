import { RUN_SEARCH_ATTRIBUTE_NAMES } from '../../domain/runs/run-search-attributes.js';

/**
 * Typed search attributes operators use to find Cairn's runs in the Temporal Web UI.
 * Registered with the embedded dev server at start; the database stays the source of truth.
 */
export const CAIRN_SEARCH_ATTRIBUTES = Object.fromEntries(
  RUN_SEARCH_ATTRIBUTE_NAMES.map((name) => [name, 'Keyword']),
) as Record<(typeof RUN_SEARCH_ATTRIBUTE_NAMES)[number], 'Keyword'>;

/** `--search-attribute Name=Type` flags for `temporal server start-dev`. */
export function searchAttributeFlags(): string[] {
  return Object.entries(CAIRN_SEARCH_ATTRIBUTES).flatMap(([name, type]) => [
    '--search-attribute',
    `${name}=${type}`,
  ]);
}

/**
 * Whether the namespace knows every Cairn search attribute. An external cluster may not: runs
 * then start without them rather than fail (setting an unknown attribute is an error).
 */
export async function searchAttributesRegistered(
  connection: {
    operatorService: {
      listSearchAttributes(request: {
        namespace: string;
      }): Promise<{ customAttributes?: Record<string, unknown> | null }>;
    };
  },
  namespace: string,
): Promise<boolean> {
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    return RUN_SEARCH_ATTRIBUTE_NAMES.every((name) => customAttributes?.[name] !== undefined);
  } catch {
    return false;
  }
}
