import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import {
  validateWorkflowDefinition,
  type WorkflowDefinition,
} from '../../../domain/workflow-definitions/index.js';

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

/** A small deterministic random source (mulberry32), so fuzz tests repeat exactly. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const formatDoc = readFileSync(new URL('../../../docs/workflow-format.md', import.meta.url), 'utf8');
export const docExample: unknown = parse(/## Example\n\n```yaml\n([\s\S]*?)```/.exec(formatDoc)![1]!);
