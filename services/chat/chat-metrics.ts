import { Counter, register } from 'prom-client';

/** Chat messages received by this process, by platform and what became of them. */
export const chatMessages =
  (register.getSingleMetric('cairn_chat_messages_total') as Counter | undefined) ??
  new Counter({
    name: 'cairn_chat_messages_total',
    help: 'Chat messages received, by platform and outcome (message, command, refused, duplicate)',
    labelNames: ['platform', 'outcome'],
  });
