import type { NodeOutcome, ScriptNodeInput } from '../../domain/runs/run-contract.js';
import type { ServiceContext } from '../../services/context.js';
import { runProcessNode, type NodeProgram } from './process-node.js';

/**
 * What runs a script node's code. JavaScript runs with the Node that runs Cairn, as an ES module
 * (`import`, top-level `await`); Python with python3, or through `uv run --with` when the node
 * lists `deps`; `sh` with `sh -eu`. Archon runs `bun` code with Bun: Cairn does not ship Bun, so
 * code that needs Bun's own APIs or TypeScript fails (docs/spec-deviations.md).
 */
export function scriptProgram(input: Pick<ScriptNodeInput, 'language' | 'script' | 'deps'>): NodeProgram {
  const { script } = input;
  switch (input.language) {
    case 'sh':
      return { command: 'sh', args: ['-eu', '-c', script, 'sh'], name: 'sh', kind: 'script' };
    case 'javascript':
      return {
        command: process.execPath,
        args: ['--input-type=module', '-e', script],
        name: 'node',
        kind: 'script',
      };
    case 'python':
      if (input.deps.length === 0)
        return { command: 'python3', args: ['-c', script], name: 'python3', kind: 'script' };
      return {
        command: 'uv',
        args: [
          'run',
          '--no-project',
          ...input.deps.flatMap((dep) => ['--with', dep]),
          'python',
          '-c',
          script,
        ],
        name: 'uv (the node lists deps)',
        kind: 'script',
      };
  }
}

/** Runs a script node: inline code, with the same folder, timeout, kill and output rules as bash. */
export function runScriptNode(deps: ServiceContext, input: ScriptNodeInput): Promise<NodeOutcome> {
  const { script, language: _language, deps: _deps, ...rest } = input;
  return runProcessNode(deps, { ...rest, code: script }, scriptProgram(input));
}
