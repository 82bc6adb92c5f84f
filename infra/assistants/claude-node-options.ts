import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { HookCallback, HookCallbackMatcher, HookEvent, Options } from '@anthropic-ai/claude-agent-sdk';
import type { AssistantOptions, HookMatcher } from '../../domain/workflow-definitions/types.js';
import { killProcessGroup, spawnProcessGroup } from '../processes/process-groups.js';
import { AssistantError } from './types.js';

const DEFAULT_HOOK_TIMEOUT_S = 60;
const MAX_HOOK_OUTPUT = 1_000_000;

/**
 * The MCP servers of a node's `mcp` file (Claude's `.mcp.json` form, `{"mcpServers": {...}}`, or
 * the map itself), read from the run's folder: a path that leaves it is refused.
 */
export function readMcpServers(cwd: string, file: string): NonNullable<Options['mcpServers']> {
  const path = resolve(cwd, file);
  const inside = relative(cwd, path);
  if (inside.startsWith('..') || isAbsolute(inside))
    throw new AssistantError('assistant_error', `mcp: ${file} is outside the run's folder`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not valid JSON';
    throw new AssistantError('assistant_error', `mcp: ${file} could not be read (${reason})`);
  }
  const servers =
    typeof parsed === 'object' && parsed !== null && 'mcpServers' in parsed
      ? (parsed as { mcpServers: unknown }).mcpServers
      : parsed;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new AssistantError('assistant_error', `mcp: ${file} holds no map of MCP servers`);
  return servers as NonNullable<Options['mcpServers']>;
}

/**
 * A command hook: runs `bash -c <command>` in the run's folder, in its own process group, with
 * the hook's input as JSON on stdin; its standard output (JSON) is the hook's answer. A failure
 * or a timeout answers nothing, so the assistant goes on as if there were no hook (Archon's rule).
 */
function commandHook(
  command: string,
  cwd: string,
  env: Record<string, string>,
  timeoutSeconds: number,
): HookCallback {
  return (input, _toolUseId, { signal }) =>
    new Promise((done) => {
      const child = spawnProcessGroup('bash', ['-c', command], { cwd, env });
      let output = '';
      const stop = () => {
        if (child.pid !== undefined) void killProcessGroup(child.pid);
      };
      const timer = setTimeout(stop, timeoutSeconds * 1000);
      signal.addEventListener('abort', stop, { once: true });
      child.stdout?.on('data', (data: Buffer) => {
        if (output.length < MAX_HOOK_OUTPUT) output += data.toString('utf8');
      });
      child.on('error', () => done({}));
      child.on('close', (code) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', stop);
        if (code !== 0) return done({});
        try {
          done(output.trim() === '' ? {} : (JSON.parse(output) as Awaited<ReturnType<HookCallback>>));
        } catch {
          done({});
        }
      });
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(JSON.stringify(input));
    });
}

function hookMatcher(hook: HookMatcher, cwd: string, env: Record<string, string>): HookCallbackMatcher {
  const timeout = hook.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_S;
  const callback: HookCallback = hook.command
    ? commandHook(hook.command, cwd, env, timeout)
    : () => Promise.resolve(hook.response as Awaited<ReturnType<HookCallback>>);
  return { ...(hook.matcher !== undefined && { matcher: hook.matcher }), hooks: [callback], timeout };
}

/**
 * A node's assistant options (Archon's node keys) as Claude Agent SDK options; command hooks run
 * with `env`, the environment the Claude process gets.
 */
export function claudeNodeOptions(
  node: AssistantOptions,
  cwd: string,
  env: Record<string, string>,
): Partial<Options> {
  const options: Partial<Options> = {};
  if (node.allowedTools) options.allowedTools = node.allowedTools;
  if (node.deniedTools) options.disallowedTools = node.deniedTools;
  if (node.effort) options.effort = node.effort;
  if (node.thinking) options.thinking = node.thinking;
  if (node.skills) options.skills = node.skills;
  if (node.agents) options.agents = node.agents;
  if (node.mcp) {
    options.mcpServers = readMcpServers(cwd, node.mcp);
    // Over stdin, not the command line, where other users of the machine could read their env.
    options.mcpServersDelivery = 'initialize';
  }
  if (node.hooks) {
    options.hooks = Object.fromEntries(
      Object.entries(node.hooks).map(([event, hooks]) => [
        event,
        hooks.map((hook) => hookMatcher(hook, cwd, env)),
      ]),
    ) as Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  }
  return options;
}
