import { ApplicationFailure, Context } from '@temporalio/activity';
import { findCodeHostDelivery } from '../../db/repositories/code-host-deliveries.js';
import type { CodeHostRequest } from '../../domain/codehost/code-host-request.js';
import type { CodeHostWorkInput } from '../../domain/codehost/code-host-work.js';
import { ChatDeliveryRefused } from '../../domain/chat/chat-messenger.js';
import type { CodeHostClient } from '../../infra/codehost/code-host-client.js';
import { codeHostClients } from '../../infra/codehost/code-host-clients.js';
import { codeHostCredentialName, githubAppConfigured } from '../../config/code-host-auth.js';
import { searchAttributesRegistered } from '../../infra/temporal/search-attributes.js';
import type { ServiceContext } from '../../services/context.js';
import { codeHostDoorServices } from '../../services/codehost/code-host-door.js';
import {
  admitCodeHostRequest,
  answerCodeHostRequest,
  handleCodeHostRequest,
  handleRequestOnRegisteredCodebase,
  type CodeHostSettings,
} from '../../services/codehost/handle-request.js';
import { codebaseForRequest, type RequestCodebase } from '../../services/codehost/request-codebase.js';
import type { ChatAddress, CodeHostPlatform } from '../../domain/chat/chat-address.js';
import { ChatPosts } from '../../services/chat/chat-posts.js';
import { publishRunChanges } from '../../services/codehost/publish-run.js';
import { completeRunCheck, startRunCheck, type RunCheckInput } from '../../services/codehost/run-check.js';
import { platformFailure } from '../platform-failure.js';
import { RegistrationInProgress } from '../../services/codebases/registration-client.js';

/** How soon a request that found its repository's clone running asks again. */
const REGISTRATION_POLL = '3 seconds';

function settingsOf(deps: ServiceContext, platform: CodeHostPlatform): CodeHostSettings {
  const { environment } = deps;
  return {
    allowedUsers: environment[platform].allowedUsers,
    mode: deps.config.global().effective.streaming[platform],
    botName: environment.general.botDisplayName,
  };
}

/** While git clones or fetches (here or in another workflow), the activity says it is alive. */
const HEARTBEAT_EVERY_MS = 10_000;

async function whileHeartbeating<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const ticker = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(ticker);
  }
}

export function createCodeHostActivities(deps: ServiceContext) {
  const clients = codeHostClients(deps.environment);
  let searchAttributes: Promise<boolean> | undefined;

  /** The recorded request and the platform's client; undefined when the record is gone. */
  async function requestOf(
    input: CodeHostWorkInput,
  ): Promise<{ request: CodeHostRequest; client: CodeHostClient } | undefined> {
    const row = await findCodeHostDelivery(deps.db.knex, input.platform, input.requestKey);
    if (!row) return undefined;
    const client = await clients(input.platform);
    if (!client) {
      throw ApplicationFailure.nonRetryable(
        `No ${codeHostCredentialName(deps.environment, input.platform)} is set on this worker.`,
        'code_host_not_configured',
      );
    }
    const request = row.request as CodeHostRequest;
    await rememberInstallation(request);
    return { request, client };
  }

  /** A webhook that came through a GitHub App says which installation holds the repository. */
  async function rememberInstallation(request: CodeHostRequest): Promise<void> {
    const installationId = request.repository.installationId;
    if (request.platform !== 'github' || installationId === undefined) return;
    if (!githubAppConfigured(deps.environment)) return;
    const { githubAppFor } = await import('../../infra/codehost/github-app.js');
    githubAppFor(deps.environment)?.rememberInstallation(request.repository.path, installationId);
  }

  async function temporalAccess() {
    const context = Context.current();
    searchAttributes ??= searchAttributesRegistered(
      context.client.connection,
      deps.environment.temporal.namespace,
    );
    return {
      client: context.client,
      taskQueue: context.info.taskQueue,
      searchAttributes: await searchAttributes,
    };
  }

  /** The token cannot read the repository, the thread is gone: retrying cannot help. */
  async function refusalsFinal<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ChatDeliveryRefused) {
        // The platform will not let the token act there (no access to the repository, a deleted thread).
        deps.logger.warn({ event: 'code_host.platform_refused', detail: error.message });
      }
      throw platformFailure(error, 'code_host_refused');
    }
  }

  return {
    /** Who asked: a bot or someone not allowed does nothing; anyone else gets the 👀. */
    async admitCodeHostRequest(input: CodeHostWorkInput): Promise<string> {
      const found = await requestOf(input);
      if (!found) return 'forgotten';
      return refusalsFinal(() =>
        admitCodeHostRequest(deps, found.client, settingsOf(deps, input.platform), found.request),
      );
    },

    /**
     * The repository's codebase, cloned on its first mention: the request that started the clone
     * waits for it; one that finds a clone running comes back in a few seconds, its slot free.
     */
    async codebaseForCodeHostRequest(input: CodeHostWorkInput): Promise<RequestCodebase | undefined> {
      const found = await requestOf(input);
      if (!found) return undefined;
      try {
        return await whileHeartbeating(async () =>
          codebaseForRequest(deps, await temporalAccess(), found.request),
        );
      } catch (error) {
        if (!(error instanceof RegistrationInProgress)) throw error;
        throw ApplicationFailure.create({
          message: error.message,
          type: 'codebase_registering',
          nextRetryDelay: REGISTRATION_POLL,
        });
      }
    },

    /**
     * Admits a request and answers it when its repository is a codebase already; `needs_clone`
     * for an admitted request whose repository the registration step has to clone first.
     */
    async handleCodeHostRequestOnCodebase(input: CodeHostWorkInput): Promise<string> {
      const found = await requestOf(input);
      if (!found) return 'forgotten';
      const door = codeHostDoorServices(deps, Context.current().client, await temporalAccess());
      // Bringing the checkout up to date can take a fetch's while.
      return whileHeartbeating(() =>
        refusalsFinal(() =>
          handleRequestOnRegisteredCodebase(
            deps,
            door,
            found.client,
            settingsOf(deps, input.platform),
            found.request,
          ),
        ),
      );
    },

    /** Hands an admitted request to its thread's conversation (or answers why it cannot be). */
    async answerCodeHostRequest(input: CodeHostWorkInput, codebase?: RequestCodebase): Promise<string> {
      const found = await requestOf(input);
      if (!found) return 'forgotten';
      const door = codeHostDoorServices(deps, Context.current().client, await temporalAccess());
      return refusalsFinal(() =>
        answerCodeHostRequest(
          deps,
          door,
          found.client,
          settingsOf(deps, input.platform),
          found.request,
          codebase,
        ),
      );
    },

    /** A completed run's commits pushed and proposed as a pull request, announced once in the thread. */
    async publishRunChanges(input: { address: ChatAddress; runId: string }): Promise<string> {
      const client = await clients(input.address.platform as CodeHostPlatform);
      if (!client) return 'not_configured';
      const context = Context.current();
      const replyId = context.info.workflowExecution?.workflowId ?? `activity:${context.info.activityId}`;
      const posts = new ChatPosts(deps.db.knex, client, input.address, replyId);
      return refusalsFinal(() => publishRunChanges(deps, client, posts, input));
    },

    /** A run started in a pull request shows on its head (a check run, a commit status); its id, or undefined. */
    async startRunCheck(input: RunCheckInput): Promise<string | undefined> {
      const client = await clients(input.address.platform as CodeHostPlatform);
      if (!client) return undefined;
      return refusalsFinal(() => startRunCheck(deps, client, input));
    },

    /** The run's check run (commit status) completed with the run's outcome. */
    async completeRunCheck(input: RunCheckInput & { checkRunId: string }): Promise<void> {
      const client = await clients(input.address.platform as CodeHostPlatform);
      if (!client) return;
      await refusalsFinal(() => completeRunCheck(deps, client, input));
    },

    /** Admits and answers in one: what workflows started before the codebase step call. */
    async handleCodeHostRequest(input: CodeHostWorkInput): Promise<string> {
      const found = await requestOf(input);
      if (!found) return 'forgotten';
      const door = codeHostDoorServices(deps, Context.current().client, await temporalAccess());
      return refusalsFinal(() =>
        handleCodeHostRequest(deps, door, found.client, settingsOf(deps, input.platform), found.request),
      );
    },
  };
}

export type CodeHostActivities = ReturnType<typeof createCodeHostActivities>;
