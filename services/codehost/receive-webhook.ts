import type { CodeHostPlatform } from '../../domain/chat/chat-address.js';
import type { CodeHostRequest, IgnoredDelivery } from '../../domain/codehost/code-host-request.js';
import { githubRequest } from '../../domain/codehost/github-payloads.js';
import { gitlabRequest } from '../../domain/codehost/gitlab-payloads.js';
import {
  verifyGitHubSignature,
  verifyGitLabToken,
  verifyStandardWebhook,
} from '../../infra/codehost/webhook-signatures.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { acceptCodeHostRequest, type CodeHostInbox } from './code-host-inbox.js';
import { webhookDeliveries } from './webhook-metrics.js';

/** One webhook as it arrived: its headers (lower-case names), its raw body, the body parsed. */
export interface WebhookArrival {
  header(name: string): string | undefined;
  rawBody: string;
  payload: unknown;
}

export type WebhookOutcome = 'accepted' | 'duplicate' | 'ignored';

export interface WebhookAnswer {
  outcome: WebhookOutcome;
  /** Queues the request's workflow start: call it once the platform has its answer. */
  startAfter?: () => void;
}

function notConfigured(variable: string, platform: string): ServiceError {
  // Deny by default: a platform without its secret cannot prove a webhook is its own.
  return new ServiceError({
    kind: 'unavailable',
    code: 'webhook_not_configured',
    detail: `${platform} webhooks are refused until ${variable} is set on the server.`,
    extra: { variable },
  });
}

function unsigned(detail: string): ServiceError {
  return new ServiceError({ kind: 'unauthenticated', code: 'invalid_signature', detail });
}

/** Counts each delivery by what became of it: refused ones too, which never reach the log. */
async function counted(platform: CodeHostPlatform, receive: Promise<WebhookAnswer>): Promise<WebhookAnswer> {
  try {
    const answer = await receive;
    webhookDeliveries.inc({ platform, outcome: answer.outcome });
    return answer;
  } catch (error) {
    if (error instanceof ServiceError) {
      webhookDeliveries.inc({
        platform,
        outcome: error.code === 'webhook_not_configured' ? 'unconfigured' : 'refused',
      });
    }
    throw error;
  }
}

export const receiveGitHubWebhook = (
  context: ServiceContext,
  inbox: CodeHostInbox,
  arrival: WebhookArrival,
) => counted('github', readGitHubWebhook(context, inbox, arrival));

export const receiveGitLabWebhook = (
  context: ServiceContext,
  inbox: CodeHostInbox,
  arrival: WebhookArrival,
) => counted('gitlab', readGitLabWebhook(context, inbox, arrival));

/** GitHub: X-Hub-Signature-256 checked before anything else is read. */
async function readGitHubWebhook(
  context: ServiceContext,
  inbox: CodeHostInbox,
  arrival: WebhookArrival,
): Promise<WebhookAnswer> {
  const { github } = context.environment;
  if (!github.webhookSecret) throw notConfigured('WEBHOOK_SECRET', 'GitHub');
  if (
    !(await verifyGitHubSignature(
      github.webhookSecret,
      arrival.rawBody,
      arrival.header('x-hub-signature-256'),
    ))
  ) {
    throw unsigned('X-Hub-Signature-256 is missing or does not match the body.');
  }
  const parsed = githubRequest(
    {
      event: arrival.header('x-github-event') ?? '',
      deliveryId: arrival.header('x-github-delivery') ?? '',
      payload: arrival.payload,
    },
    github.botMention,
  );
  return accept(context, inbox, 'github', parsed);
}

/** GitLab: X-Gitlab-Token, and the signed headers too when a signing secret is set. */
async function readGitLabWebhook(
  context: ServiceContext,
  inbox: CodeHostInbox,
  arrival: WebhookArrival,
): Promise<WebhookAnswer> {
  const { gitlab } = context.environment;
  if (!gitlab.webhookSecret) throw notConfigured('GITLAB_WEBHOOK_SECRET', 'GitLab');
  if (!verifyGitLabToken(gitlab.webhookSecret, arrival.header('x-gitlab-token'))) {
    throw unsigned('X-Gitlab-Token is missing or wrong.');
  }
  const signed = {
    id: arrival.header('webhook-id'),
    timestamp: arrival.header('webhook-timestamp'),
    signature: arrival.header('webhook-signature'),
  };
  if (gitlab.webhookSigningSecret) {
    const check = verifyStandardWebhook(gitlab.webhookSigningSecret, signed, arrival.rawBody);
    if (check === 'stale') throw unsigned('webhook-timestamp is too far from now: a replay is refused.');
    if (check !== 'valid') throw unsigned('webhook-signature is missing or does not match the body.');
  }
  const parsed = gitlabRequest(
    { deliveryId: signed.id ?? arrival.header('x-gitlab-event-uuid') ?? '', payload: arrival.payload },
    gitlab.botMention,
  );
  return accept(context, inbox, 'gitlab', parsed);
}

async function accept(
  context: ServiceContext,
  inbox: CodeHostInbox,
  platform: CodeHostPlatform,
  parsed: CodeHostRequest | IgnoredDelivery,
): Promise<WebhookAnswer> {
  if ('ignored' in parsed) {
    context.logger.debug({ event: 'code_host.ignored', platform, reason: parsed.ignored }, 'webhook ignored');
    return { outcome: 'ignored' };
  }
  return acceptCodeHostRequest(inbox, parsed);
}
