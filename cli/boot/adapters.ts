import type { Environment } from '../../config/environment.js';

/** Adapters switched on by their credentials; the web adapter is always on. */
export function enabledAdapters(environment: Environment): string[] {
  const adapters = ['web'];
  if (environment.telegram.botToken) adapters.push('telegram');
  if (environment.discord.botToken) adapters.push('discord');
  if (environment.slack.botToken) adapters.push('slack');
  if (environment.github.token) adapters.push('github');
  if (environment.gitlab.token) adapters.push('gitlab');
  return adapters;
}
