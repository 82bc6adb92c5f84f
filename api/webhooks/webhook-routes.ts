import {
  defineRoute,
  defineRoutes,
  problemResponse,
  StrictObject,
  StringEnum,
  Type,
  type HttpContext,
  type RouteDefinition,
} from '../http/index.js';
import type { ServiceContext } from '../../services/context.js';
import type { CodeHostInbox } from '../../services/codehost/code-host-inbox.js';
import {
  receiveGitHubWebhook,
  receiveGitLabWebhook,
  type WebhookAnswer,
  type WebhookArrival,
} from '../../services/codehost/receive-webhook.js';

export interface WebhookRouteDependencies {
  context: ServiceContext;
  inbox: CodeHostInbox;
}

const WebhookReceipt = StrictObject({
  status: StringEnum(['accepted', 'duplicate', 'ignored'], {
    description:
      '`accepted`: recorded, its work starts now; `duplicate`: this request was recorded before (a redelivery); ' +
      '`ignored`: not addressed to the bot, or an event it does not act on',
  }),
});

// Any JSON object: the platform's payload, read field by field (a payload missing fields is ignored).
const WebhookPayload = Type.Object(
  {},
  { additionalProperties: true, description: "the platform's webhook payload" },
);

const COMMON_RESPONSES = {
  202: { description: 'received: the work (if any) starts after this answer', schema: WebhookReceipt },
  401: problemResponse(
    'invalid_signature: the signature or token is missing, wrong or stale; nothing is done',
  ),
  413: problemResponse('the payload is over the body limit'),
  503: problemResponse('webhook_not_configured: the secret variable named in the problem is not set'),
};

function arrivalOf(ctx: HttpContext, payload: unknown): WebhookArrival {
  return {
    header: (name) => ctx.get(name) || undefined,
    rawBody: (ctx.request as { rawBody?: string }).rawBody ?? '',
    payload,
  };
}

/**
 * The platform gets its answer first; the workflow start is queued once the response is done,
 * and the queue holds its starts while webhooks are in flight (`receiving`).
 */
async function received(ctx: HttpContext, inbox: CodeHostInbox, receive: () => Promise<WebhookAnswer>) {
  const answered = inbox.starts.receiving();
  ctx.res.once('close', answered);
  const { outcome, startAfter } = await receive();
  if (startAfter) ctx.res.once('close', startAfter);
  return { status: 202, body: { status: outcome } };
}

/**
 * The code hosts' webhooks (public: they prove themselves by signature, not by sign-in). Each
 * request is recorded before the answer and acted on once (services/codehost/).
 */
export function webhookRoutes(deps: WebhookRouteDependencies): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'POST',
      path: '/webhooks/github',
      operationId: 'receiveGitHubWebhook',
      summary: 'Receive a GitHub webhook (issue comments, issues, pull requests that mention the bot)',
      description:
        'Verified with X-Hub-Signature-256 (HMAC SHA-256 of the raw body with WEBHOOK_SECRET). A comment, issue ' +
        'or pull request that mentions GITHUB_BOT_MENTION (or a comment that is a command) is recorded and ' +
        'answered in the thread; anything else is acknowledged and ignored.',
      tags: ['webhooks'],
      public: true,
      body: WebhookPayload,
      responses: COMMON_RESPONSES,
      handler: ({ body, ctx, log }) =>
        received(ctx, deps.inbox, () =>
          receiveGitHubWebhook({ ...deps.context, logger: log }, deps.inbox, arrivalOf(ctx, body)),
        ),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/gitlab',
      operationId: 'receiveGitLabWebhook',
      summary: 'Receive a GitLab webhook (notes, issues, merge requests that mention the bot)',
      description:
        'Verified with X-Gitlab-Token (GITLAB_WEBHOOK_SECRET, compared in constant time) and, when ' +
        'GITLAB_WEBHOOK_SIGNING_SECRET is set, the signed headers webhook-id, webhook-timestamp and ' +
        'webhook-signature (Standard Webhooks, 5 minutes of tolerance).',
      tags: ['webhooks'],
      public: true,
      body: WebhookPayload,
      responses: COMMON_RESPONSES,
      handler: ({ body, ctx, log }) =>
        received(ctx, deps.inbox, () =>
          receiveGitLabWebhook({ ...deps.context, logger: log }, deps.inbox, arrivalOf(ctx, body)),
        ),
    }),
  );
}
