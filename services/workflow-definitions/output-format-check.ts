import { Ajv } from 'ajv';

// One compiler for output_format schemas: checking that a schema compiles is the same work as
// checking an output against it later, so the two never disagree.
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: true });

/** Why an output_format is not a usable JSON Schema, or undefined when it is. */
export function outputFormatProblem(schema: object): string | undefined {
  try {
    ajv.compile(schema);
    return undefined;
  } catch (error) {
    return `is not a valid JSON Schema: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    // Compiled schemas are cached by content; user schemas must not pile up in memory.
    ajv.removeSchema(schema);
  }
}
