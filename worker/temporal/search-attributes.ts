/**
 * Typed search attributes operators use to find Cairn's runs in the Temporal Web UI.
 * Registered with the embedded dev server at start; the database stays the source of truth.
 */
export const CAIRN_SEARCH_ATTRIBUTES = {
  CairnWorkflowName: 'Keyword',
  CairnCodebase: 'Keyword',
  CairnRunStatus: 'Keyword',
} as const;

/** `--search-attribute Name=Type` flags for `temporal server start-dev`. */
export function searchAttributeFlags(): string[] {
  return Object.entries(CAIRN_SEARCH_ATTRIBUTES).flatMap(([name, type]) => [
    '--search-attribute',
    `${name}=${type}`,
  ]);
}
