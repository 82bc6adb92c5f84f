import type { BashNodeInput, NodeOutcome } from '../../domain/runs/run-contract.js';
import type { ServiceContext } from '../../services/context.js';
import { runProcessNode } from './process-node.js';

/**
 * Runs a bash node: `bash -euo pipefail -c <script>` in the node's folder (see runProcessNode).
 * The script is passed as it was written; nothing is ever spliced into it.
 */
export function runBashNode(deps: ServiceContext, input: BashNodeInput): Promise<NodeOutcome> {
  const { script, ...rest } = input;
  return runProcessNode(
    deps,
    { ...rest, code: script },
    { command: 'bash', args: ['-euo', 'pipefail', '-c', script, 'bash'], name: 'bash', kind: 'bash' },
  );
}
