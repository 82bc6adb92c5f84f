import { Counter, register } from 'prom-client';

/** Code-host webhooks received by this process, by platform and what became of them. */
export const webhookDeliveries =
  (register.getSingleMetric('cairn_webhook_deliveries_total') as Counter | undefined) ??
  new Counter({
    name: 'cairn_webhook_deliveries_total',
    help: 'Code-host webhooks received, by platform and outcome (accepted, duplicate, ignored, refused, unconfigured)',
    labelNames: ['platform', 'outcome'],
  });
