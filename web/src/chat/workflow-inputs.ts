// What the run form needs from a listed workflow, read from its definition as written (the list
// answers the YAML's own mapping, not a normalized one).

export interface DeclaredInput {
  name: string;
  required: boolean;
  /** As text: a run receives every input as text. */
  default?: string;
  description?: string;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asText = (value: unknown): string | undefined =>
  value === undefined || value === null
    ? undefined
    : typeof value === 'string'
      ? value
      : ['number', 'boolean'].includes(typeof value)
        ? String(value)
        : JSON.stringify(value);

/** The workflow's `inputs:`, in the order written (`name:` alone declares an optional input). */
export function declaredInputs(workflow: unknown): DeclaredInput[] {
  if (!isMapping(workflow) || !isMapping(workflow.inputs)) return [];
  return Object.entries(workflow.inputs).map(([name, raw]) => {
    const settings = isMapping(raw) ? raw : {};
    const fallback = asText(settings.default);
    const description = typeof settings.description === 'string' ? settings.description : undefined;
    return {
      name,
      required: settings.required === true,
      ...(fallback !== undefined && { default: fallback }),
      ...(description && { description }),
    };
  });
}

/** The workflow's own description, when it has one. */
export function workflowDescription(workflow: unknown): string | undefined {
  return isMapping(workflow) && typeof workflow.description === 'string' ? workflow.description : undefined;
}

/** The values to send: only the inputs given, so a missing optional one takes its default. */
export function inputValues(inputs: DeclaredInput[], typed: Record<string, string>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const input of inputs) {
    const value = typed[input.name]?.trim();
    if (value) values[input.name] = value;
  }
  return values;
}
