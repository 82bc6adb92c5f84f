import { temporalExecutionUrl, temporalUiBase } from '../domain/temporal-links.js';
import type { ServiceContext } from './context.js';

/** A workflow execution's page in the Temporal Web UI, when Cairn knows where that UI is. */
export function temporalUrlFor(
  context: Pick<ServiceContext, 'environment'>,
  workflowId: string,
): string | null {
  const { temporal } = context.environment;
  const base = temporalUiBase(temporal);
  return base ? temporalExecutionUrl(base, temporal.namespace, workflowId) : null;
}
