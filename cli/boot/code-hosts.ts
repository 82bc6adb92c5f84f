import type { Client } from '@temporalio/client';
import { CODE_HOST_PLATFORMS } from '../../domain/chat/chat-address.js';
import { DEFAULT_TASK_QUEUE } from '../../domain/task-queues.js';
import { codeHostWorkStarter, startCodeHostSweep } from '../../services/codehost/code-host-inbox.js';
import type { ServiceContext } from '../../services/context.js';
import { CodeHostMonitor } from '../../services/codehost/code-host-monitor.js';
import type { Lifecycle } from './lifecycle.js';
import { codeHostAuthConfigured } from '../../config/code-host-auth.js';

const VARIABLES = {
  github: { secret: 'WEBHOOK_SECRET', token: 'GITHUB_TOKEN', allowed: 'GITHUB_ALLOWED_USERS' },
  gitlab: { secret: 'GITLAB_WEBHOOK_SECRET', token: 'GITLAB_TOKEN', allowed: 'GITLAB_ALLOWED_USERS' },
} as const;

/**
 * The code hosts' part of the process that serves the API: warnings about settings that leave a
 * webhook half set up, the sweep that starts the work of requests recorded before a crash, and
 * the monitor whose states /api/health shows.
 */
export function startCodeHosts(
  context: ServiceContext,
  client: Client,
  lifecycle: Lifecycle,
): CodeHostMonitor {
  const { environment, logger } = context;
  const receiving = CODE_HOST_PLATFORMS.filter((platform) => environment[platform].webhookSecret);
  for (const platform of receiving) {
    const names = VARIABLES[platform];
    if (!codeHostAuthConfigured(environment, platform)) {
      logger.warn(
        { event: 'code_host.no_token', platform },
        `${names.secret} is set but ${names.token} is not: ${platform} requests are recorded but cannot be answered`,
      );
    }
    if (!environment[platform].allowedUsers?.length) {
      logger.warn(
        { event: 'code_host.open_access', platform },
        `${names.allowed} is not set: anyone with write access to a repository can use the bot there`,
      );
    }
  }
  const monitor = new CodeHostMonitor(environment, logger);
  if (receiving.length === 0) return monitor;
  void monitor.start();
  lifecycle.add('code-host monitor', () => monitor.stop());
  const sweep = startCodeHostSweep(context, codeHostWorkStarter(client, DEFAULT_TASK_QUEUE));
  lifecycle.add('code-host sweep', () => sweep.stop());
  return monitor;
}
