import { findCodebase, findCodebasesByName, type Codebase } from '../../db/repositories/codebases.js';
import { createConversation, type Conversation } from '../../db/repositories/conversations.js';
import { countQueuedBefore, openTurnIds, runningTurnId } from '../../db/repositories/messages.js';
import { findRun, listRuns, type WorkflowRun } from '../../db/repositories/workflow-runs.js';
import { helpText, parseCommand, usageOf, type ChatCommand } from '../../domain/commands/command-grammar.js';
import { statesAllowing } from '../../domain/runs/run-state-machine.js';
import { UNFINISHED_RUN_STATUSES } from '../../domain/runs/run-status.js';
import { conversationWorkflowId } from '../../domain/conversations/conversation-workflow.js';
import { runWorkflowId } from '../../domain/runs/run-contract.js';
import type { ServiceContext } from '../context.js';
import { temporalUrlFor } from '../temporal-url.js';
import type { CancelTurn } from '../conversations/messages.js';
import { getLiveConversation } from '../conversations/conversations.js';
import { registerCodebase } from '../codebases/register-codebase.js';
import type { TemporalAccess } from '../codebases/registration-client.js';
import type { RunClient } from '../runs/run-client.js';
import { approveRun, cancelRun, rejectRun, startRun } from '../runs/run-operations.js';
import { ServiceError } from '../service-error.js';
import { listWorkflows } from '../workflow-definitions/workflow-catalog.js';

/** What commands act through: the same services as the API's routes. */
export interface CommandServices {
  context: ServiceContext;
  runs: RunClient;
  cancelTurn: CancelTurn;
  registration: TemporalAccess;
}

/** Who sent the command, from which conversation. */
export interface CommandCaller {
  /** A conversation's id or web platform id. */
  conversationId: string;
  /** For the runs' audit trail: `web`, `telegram:12345`, `github:octocat`. */
  actor: string;
}

/**
 * A command's answer, as markdown every door renders in its dialect. `conversation` is set when
 * the command moved the caller to another conversation (`/new`, `/codebase <other>`): the door
 * sends the caller's next messages there.
 */
export interface CommandReply {
  command: ChatCommand['name'] | 'unknown';
  ok: boolean;
  text: string;
  conversation?: { id: string; platformConversationId: string; codebaseId: string | null };
  runId?: string;
}

const MAX_LISTED = 5;

/**
 * Runs one message as a command when it is one (`undefined` when it is a message for the
 * assistant). A refusal of a service (an unknown workflow, a run in the wrong state) is an answer
 * with `ok: false` and its reason, as the API would say it.
 */
export async function runCommand(
  services: CommandServices,
  caller: CommandCaller,
  text: string,
): Promise<CommandReply | undefined> {
  const parsed = parseCommand(text);
  switch (parsed.kind) {
    case 'message':
      return undefined;
    case 'unknown':
      return { command: 'unknown', ok: false, text: `Unknown command ${parsed.word}.\n\n${helpText()}` };
    case 'invalid':
      return {
        command: parsed.name,
        ok: false,
        text: `\`/${parsed.name}\` ${parsed.problem}. Usage: \`${usageOf(parsed.name)}\``,
      };
  }
  const conversation = await getLiveConversation(services.context, caller.conversationId);
  try {
    return await execute(services, { ...caller, conversation }, parsed.command);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { command: parsed.command.name, ok: false, text: error.detail };
  }
}

type Caller = CommandCaller & { conversation: Conversation };

function execute(services: CommandServices, caller: Caller, command: ChatCommand): Promise<CommandReply> {
  switch (command.name) {
    case 'help':
      return Promise.resolve({ command: 'help', ok: true, text: helpText() });
    case 'status':
      return status(services, caller);
    case 'cancel':
      return cancel(services, caller);
    case 'new':
      return moveTo(services, caller, caller.conversation.codebaseId, 'new');
    case 'codebase':
      return chooseCodebase(services, caller, command.target);
    case 'workflow list':
      return workflowList(services, caller);
    case 'workflow run':
      return workflowRun(services, caller, command);
    case 'approve':
    case 'reject':
      return decideGate(services, caller, command);
  }
}

function runLine(context: ServiceContext, run: WorkflowRun): string {
  const where = run.currentNode ? ` at \`${run.currentNode}\`` : '';
  return `- \`${run.id}\` ${run.workflowName}: **${run.status}**${where}${temporalLink(context, runWorkflowId(run.id))}`;
}

/** ` ([Temporal](…))` after what it links, or nothing when Cairn does not know the Temporal UI. */
function temporalLink(context: ServiceContext, workflowId: string): string {
  const url = temporalUrlFor(context, workflowId);
  return url ? ` ([Temporal](${url}))` : '';
}

async function activeRuns(context: ServiceContext, conversationId: string): Promise<WorkflowRun[]> {
  return listRuns(context.db.reader, { conversationId, statuses: UNFINISHED_RUN_STATUSES, limit: 50 });
}

async function status(services: CommandServices, caller: Caller): Promise<CommandReply> {
  const { context } = services;
  const { knex } = context.db;
  const conversationId = caller.conversation.id;
  const [running, open, runs, codebase] = await Promise.all([
    runningTurnId(knex, conversationId),
    openTurnIds(knex, conversationId),
    activeRuns(context, conversationId),
    caller.conversation.codebaseId ? findCodebase(knex, caller.conversation.codebaseId) : undefined,
  ]);
  const waiting = open.filter((id) => id !== running);
  const lines = [`Codebase: ${codebase ? `**${codebase.name}**` : 'none'}`];
  const conversationUrl = temporalUrlFor(context, conversationWorkflowId(conversationId));
  if (conversationUrl) lines.push(`This conversation in Temporal: ${conversationUrl}`);
  if (running !== undefined) lines.push('A turn is running (`/cancel` stops it).');
  if (waiting.length > 0) {
    const place = (await countQueuedBefore(knex, waiting[0]!)) + 1;
    lines.push(`${waiting.length} message(s) waiting; the next is number ${place} in line.`);
  }
  if (running === undefined && waiting.length === 0) lines.push('No turn is running.');
  lines.push(runs.length === 0 ? 'No run is active.' : 'Active runs:');
  lines.push(...runs.slice(0, MAX_LISTED).map((run) => runLine(context, run)));
  if (runs.length > MAX_LISTED) lines.push(`… and ${runs.length - MAX_LISTED} more`);
  return { command: 'status', ok: true, text: lines.join('\n') };
}

/** Stops what this conversation is doing: its running turn, and the runs started from it. */
async function cancel(services: CommandServices, caller: Caller): Promise<CommandReply> {
  const { context } = services;
  const conversationId = caller.conversation.id;
  const lines: string[] = [];
  const turn = await runningTurnId(context.db.knex, conversationId);
  if (turn !== undefined) {
    await services.cancelTurn(conversationId, turn);
    lines.push('Cancelling the running turn.');
  }
  const cancellable = await listRuns(context.db.reader, {
    conversationId,
    statuses: statesAllowing('cancel'),
    limit: 50,
  });
  for (const run of cancellable) {
    try {
      await cancelRun(context, services.runs, { runId: run.id, actor: caller.actor });
      lines.push(`Cancelled run \`${run.id}\` (${run.workflowName}).`);
    } catch (error) {
      // Ended on its own meanwhile: nothing left to cancel.
      if (!(error instanceof ServiceError)) throw error;
    }
  }
  return {
    command: 'cancel',
    ok: lines.length > 0,
    text: lines.length > 0 ? lines.join('\n') : 'Nothing is running here.',
  };
}

async function moveTo(
  services: CommandServices,
  caller: Caller,
  codebaseId: string | null,
  command: 'new' | 'codebase',
  codebase?: Codebase,
): Promise<CommandReply> {
  const fresh = await createConversation(services.context.db.knex, {
    platform: caller.conversation.platform,
    codebaseId,
  });
  const on = codebase ? ` on **${codebase.name}**` : '';
  return {
    command,
    ok: true,
    text: `Started a new conversation${on}.`,
    conversation: { id: fresh.id, platformConversationId: fresh.platformConversationId, codebaseId },
  };
}

const looksLikeUrl = (target: string) => /^(https?:\/\/|ssh:\/\/|git@)/i.test(target);

/**
 * `/codebase` names the codebase; `/codebase <name | id>` moves to a new conversation on a
 * registered one; `/codebase <url>` clones it first. A local path is refused: a chat user must
 * not make the server read an arbitrary folder (register paths through the API or the CLI).
 */
async function chooseCodebase(
  services: CommandServices,
  caller: Caller,
  target: string | undefined,
): Promise<CommandReply> {
  const { context } = services;
  const { reader } = context.db;
  if (target === undefined) {
    const current = caller.conversation.codebaseId
      ? await findCodebase(reader, caller.conversation.codebaseId)
      : undefined;
    const text = current
      ? `Codebase: **${current.name}** (\`${current.id}\`).`
      : 'No codebase: `/codebase <name or url>` chooses one.';
    return { command: 'codebase', ok: true, text };
  }
  let codebase: Codebase | undefined;
  if (looksLikeUrl(target)) {
    ({ codebase } = await registerCodebase(context, services.registration, {
      url: target,
      allowEnvKeys: false,
      actor: caller.actor,
    }));
  } else if (target.startsWith('/') || target.startsWith('~') || target.startsWith('.')) {
    return {
      command: 'codebase',
      ok: false,
      text: 'A local path cannot be registered from here: use `cairn codebase add <path>` or the API, then `/codebase <name>`.',
    };
  } else {
    const named = await findCodebasesByName(reader, target);
    if (named.length > 1) {
      const ids = named.map((one) => `\`${one.id}\``).join(', ');
      return {
        command: 'codebase',
        ok: false,
        text: `${named.length} codebases are named ${target}: use an id (${ids}).`,
      };
    }
    codebase = named[0] ?? (await findCodebase(reader, target));
    if (!codebase) return { command: 'codebase', ok: false, text: `No codebase named ${target}.` };
  }
  if (codebase.id === caller.conversation.codebaseId) {
    return { command: 'codebase', ok: true, text: `Already on **${codebase.name}**.` };
  }
  return moveTo(services, caller, codebase.id, 'codebase', codebase);
}

async function workflowList(services: CommandServices, caller: Caller): Promise<CommandReply> {
  const codebase = caller.conversation.codebaseId
    ? await findCodebase(services.context.db.reader, caller.conversation.codebaseId)
    : undefined;
  const { workflows } = await listWorkflows(services.context, codebase?.sourcePath);
  const lines = workflows.map((entry) => {
    const description = entry.workflow.description;
    return `- \`${entry.name}\`${typeof description === 'string' ? ` — ${firstLine(description)}` : ''}`;
  });
  const text = lines.length > 0 ? ['Workflows:', ...lines].join('\n') : 'No workflows.';
  return { command: 'workflow list', ok: true, text };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]!;
}

async function workflowRun(
  services: CommandServices,
  caller: Caller,
  command: Extract<ChatCommand, { name: 'workflow run' }>,
): Promise<CommandReply> {
  const run = await startRun(services.context, services.runs, {
    workflowName: command.workflow,
    message: command.message,
    conversationId: caller.conversation.id,
  });
  return {
    command: 'workflow run',
    ok: true,
    text: `Started run \`${run.id}\` of **${run.workflowName}**.`,
    runId: run.id,
  };
}

/**
 * The run a gate command is for: the one named (only if it belongs to this conversation, so no
 * chat can decide another's gate), else the conversation's one paused run.
 */
async function gateRun(
  context: ServiceContext,
  caller: Caller,
  runId: string | undefined,
): Promise<WorkflowRun | string> {
  if (runId !== undefined) {
    const run = await findRun(context.db.reader, runId);
    return run?.conversationId === caller.conversation.id ? run : `No run ${runId} in this conversation.`;
  }
  const paused = await listRuns(context.db.reader, {
    conversationId: caller.conversation.id,
    statuses: ['paused'],
    limit: 20,
  });
  if (paused.length === 1) return paused[0]!;
  if (paused.length === 0) return 'No run of this conversation is waiting for approval.';
  return `${paused.length} runs are waiting: name one.\n${paused.map((run) => runLine(context, run)).join('\n')}`;
}

async function decideGate(
  services: CommandServices,
  caller: Caller,
  command: Extract<ChatCommand, { name: 'approve' | 'reject' }>,
): Promise<CommandReply> {
  const { context, runs } = services;
  const run = await gateRun(context, caller, command.runId);
  if (typeof run === 'string') return { command: command.name, ok: false, text: run };
  const actor = caller.actor;
  if (command.name === 'approve') {
    const after = await approveRun(context, runs, { runId: run.id, actor, comment: command.comment });
    return {
      command: 'approve',
      ok: true,
      text: `Approved run \`${after.id}\` (${after.workflowName}).`,
      runId: after.id,
    };
  }
  const after = await rejectRun(context, runs, { runId: run.id, actor, reason: command.reason });
  const outcome = after.status === 'cancelled' ? 'it is cancelled' : 'it goes back for rework';
  return {
    command: 'reject',
    ok: true,
    text: `Rejected run \`${after.id}\` (${after.workflowName}): ${outcome}.`,
    runId: after.id,
  };
}
