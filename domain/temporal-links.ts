/** A workflow execution's page in the Temporal Web UI (its latest run). */
export function temporalExecutionUrl(uiBase: string, namespace: string, workflowId: string): string {
  const base = uiBase.replace(/\/+$/, '');
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/**
 * Where the Temporal Web UI is: TEMPORAL_UI_URL, else the embedded server's UI when Cairn runs
 * its own Temporal (no TEMPORAL_ADDRESS), else nowhere known.
 */
export function temporalUiBase(temporal: {
  uiUrl?: string;
  address?: string;
  uiPort?: number;
}): string | undefined {
  if (temporal.uiUrl) return temporal.uiUrl;
  if (temporal.address) return undefined;
  return `http://127.0.0.1:${temporal.uiPort ?? 8233}`;
}
