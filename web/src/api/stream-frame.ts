/** One Server-Sent Events frame of the journal: its id and its JSON data. */
export interface StreamFrame {
  id: number;
  data: { type: string; [field: string]: unknown };
}
