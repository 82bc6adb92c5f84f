/** A Temporal server Cairn can reach: one it started itself, or TEMPORAL_ADDRESS. */
export interface TemporalEndpoint {
  address: string;
  namespace: string;
  /** Web UI of an embedded server with a UI. */
  uiUrl?: string;
  /** True when Cairn started the server and must stop it. */
  embedded: boolean;
  stop(): Promise<void>;
}
