import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import {
  validateWorkflowDefinition,
  type WorkflowDefinition,
} from '../../../domain/workflow-definitions/index.js';
export { randomSource } from '../../support/random-source.js';

/** A definition that must be valid. */
export function definition(input: unknown): WorkflowDefinition {
  const result = validateWorkflowDefinition(input);
  if (!result.valid) throw new Error(`invalid test definition:\n${result.errors.join('\n')}`);
  return result.definition;
}

/** The errors of a definition that must be invalid. */
export function errorsOf(
  input: unknown,
  options?: Parameters<typeof validateWorkflowDefinition>[1],
): string[] {
  const result = validateWorkflowDefinition(input, options);
  if (result.valid) throw new Error('expected the definition to be invalid');
  return result.errors;
}

const formatDoc = readFileSync(new URL('../../../docs/workflow-format.md', import.meta.url), 'utf8');
export const docExample: unknown = parse(/## Example\n\n```yaml\n([\s\S]*?)```/.exec(formatDoc)![1]!);
