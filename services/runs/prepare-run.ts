import { ApplicationFailure } from '@temporalio/common';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EffectiveConfig } from '../../config/config-types.js';
import { findCodebase, type Codebase } from '../../db/repositories/codebases.js';
import { findConversation, type Conversation } from '../../db/repositories/conversations.js';
import { findEnvironment } from '../../db/repositories/isolation-environments.js';
import { listRunEvents } from '../../db/repositories/run-events.js';
import { findRun, listEarlierRunIds } from '../../db/repositories/workflow-runs.js';
import {
  commandsUsed,
  usesBaseBranch,
  validateWorkflowDefinition,
} from '../../domain/workflow-definitions/index.js';
import type { WorkflowDefinition } from '../../domain/workflow-definitions/types.js';
import type { NodeResult, RunContext } from '../../domain/runs/run-contract.js';
import { worktreesRootFor } from '../codebases/workspace.js';
import { gitCredentialsForUrl } from '../../infra/git/credentials.js';
import { resolveBaseBranch } from '../../infra/git/base-branch.js';
import { runGit } from '../../infra/git/run-git.js';
import { ensureWorktree } from '../worktrees/worktrees.js';
import { artifactsDirFor } from './run-artifacts.js';
import { BUNDLED_SCRIPTS_DIR } from '../workflow-definitions/bundled-library.js';
import { discoverCommands } from '../workflow-definitions/discover-commands.js';
import type { ServiceContext } from '../context.js';
import { repositoryCommands } from '../workflow-definitions/discovery-scope.js';

/** A run that cannot start (no worktree, an unknown command): retrying will not help. */
export const RUN_PREPARATION_FAILED = 'RunPreparationFailed';

function refuse(message: string): never {
  throw ApplicationFailure.create({ type: RUN_PREPARATION_FAILED, message, nonRetryable: true });
}

const NO_REPOSITORY_FOR_BASE_BRANCH = [
  'Cannot resolve $BASE_BRANCH, which this workflow uses. Resolution tried:',
  "  1. worktree.baseBranch: no .cairn/config.yaml to read, as the run's conversation has no codebase;",
  '  2. default branch detection: no repository to ask.',
  'Start the run from a conversation that has a codebase (POST /api/conversations with codebase_id).',
].join('\n');

export interface PreparedRun {
  context: RunContext;
  /** Nodes that succeeded in an earlier execution (a resumed run skips them). */
  completed: Record<string, NodeResult>;
  /** For nodes with `persist_session`: the session each ended in at the workflow's last run in this conversation. */
  persistedSessions?: Record<string, string>;
}

/**
 * The latest result of each node that succeeded, from the run's recorded events. A cancel node
 * (or an always_run one) is never carried over: a run that failed after reaching one (its worker died before the run
 * ended) reaches it again on resume and ends cancelled, rather than going on past it.
 */
async function completedNodes(
  deps: ServiceContext,
  runId: string,
  definition: WorkflowDefinition,
): Promise<Record<string, NodeResult>> {
  // always_run nodes (Archon's) run again on every resume, whatever they did before.
  const again = new Set(
    definition.nodes.filter((node) => node.kind === 'cancel' || node.alwaysRun).map((node) => node.id),
  );
  const completed: Record<string, NodeResult> = {};
  for (const event of await listRunEvents(deps.db.knex, runId)) {
    if (!event.nodeId || again.has(event.nodeId)) continue;
    if (event.type === 'node_completed') {
      const { output, sessionId } = event.payload;
      completed[event.nodeId] = {
        status: 'succeeded',
        output,
        ...(typeof sessionId === 'string' && { sessionId }),
      };
    } else if (event.type === 'node_started') delete completed[event.nodeId];
  }
  return completed;
}

/**
 * Sessions to continue for `persist_session` nodes: where each ended at the latest earlier run
 * of this workflow in the same conversation that ran it.
 */
async function persistedSessions(
  deps: ServiceContext,
  run: { id: string; workflowName: string; conversationId: string | null },
  definition: WorkflowDefinition,
): Promise<Record<string, string> | undefined> {
  const wanted = new Set(
    definition.nodes.flatMap((node) => ('persistSession' in node && node.persistSession ? [node.id] : [])),
  );
  if (wanted.size === 0 || !run.conversationId) return undefined;
  const found: Record<string, string> = {};
  const earlier = await listEarlierRunIds(deps.db.knex, { ...run, conversationId: run.conversationId });
  for (const runId of earlier) {
    for (const event of await listRunEvents(deps.db.knex, runId)) {
      const sessionId = event.payload.sessionId;
      if (event.type !== 'node_completed' || !event.nodeId || !wanted.has(event.nodeId)) continue;
      if (typeof sessionId === 'string' && found[event.nodeId] === undefined) found[event.nodeId] = sessionId;
    }
    if (Object.keys(found).length === wanted.size) break;
  }
  return found;
}

async function commandBodies(definition: WorkflowDefinition, cwd: string, deps: ServiceContext) {
  const wanted = new Set(commandsUsed(definition));
  if (wanted.size === 0) return {};
  const found = await discoverCommands(repositoryCommands(cwd, deps.config.forRepository(cwd).effective));
  const bodies: Record<string, string> = {};
  for (const name of wanted) {
    const command = found.find((entry) => entry.name === name);
    if (!command)
      refuse(
        `The workflow uses the command "${name}", which exists neither in the repository nor among the bundled commands.`,
      );
    bodies[name] = command.body;
  }
  return bodies;
}

interface RunPlace {
  cwd: string;
  baseBranch: string | undefined;
  /** The folder holds a fork's code: the run's nodes get no secrets. */
  untrusted: boolean;
}

/**
 * Where a run of a pull request's conversation starts: the head its `pr` worktree is at (and
 * whether that code came from a fork). Undefined for other conversations: the base branch.
 */
async function pullRequestStart(
  deps: ServiceContext,
  conversation: Conversation | undefined,
  codebase: Codebase,
): Promise<{ commit: string; untrusted: boolean } | undefined> {
  if (!conversation?.isolationEnvironmentId) return undefined;
  const attached = await findEnvironment(deps.db.knex, conversation.isolationEnvironmentId);
  if (!attached || attached.kind !== 'pr' || attached.codebaseId !== codebase.id || attached.destroyedAt)
    return undefined;
  const commit = (await runGit(['rev-parse', 'HEAD'], { cwd: attached.path })).trim();
  return { commit, untrusted: attached.untrusted };
}

/** The run's own worktree of the codebase; a run never falls back to the user's checkout. */
async function runWorktree(
  deps: ServiceContext,
  runId: string,
  codebase: Codebase,
  definition: WorkflowDefinition,
  config: EffectiveConfig,
  conversation: Conversation | undefined,
): Promise<RunPlace> {
  try {
    const start = await pullRequestStart(deps, conversation, codebase);
    const { environment } = await ensureWorktree({
      db: deps.db,
      codebaseId: codebase.id,
      sourcePath: codebase.sourcePath,
      worktreesRoot: worktreesRootFor(codebase.sourcePath, config.paths.worktrees),
      kind: 'run',
      key: runId,
      configuredBaseBranch: config.worktree.baseBranch,
      usesBaseBranchVariable: usesBaseBranch(definition),
      copyFiles: config.worktree.copyFiles,
      credentials: codebase.url ? await gitCredentialsForUrl(codebase.url, deps.environment) : undefined,
      logger: deps.logger,
      ...(start && { startFrom: start.commit, untrusted: start.untrusted }),
    });
    await deps.db
      .knex('workflow_runs')
      .where({ id: runId })
      .update({ isolation_environment_id: environment.id });
    return {
      cwd: environment.path,
      baseBranch: environment.baseBranch ?? undefined,
      untrusted: environment.untrusted,
    };
  } catch (error) {
    refuse(`The run's worktree could not be made: ${(error as Error).message}`);
  }
}

/** `isolation: none`: the codebase's own checkout, as it is; the base branch only when asked for. */
async function sharedCheckout(
  deps: ServiceContext,
  codebase: Codebase,
  definition: WorkflowDefinition,
  config: EffectiveConfig,
): Promise<RunPlace> {
  if (!usesBaseBranch(definition))
    return { cwd: codebase.sourcePath, baseBranch: undefined, untrusted: false };
  try {
    const base = await resolveBaseBranch({
      repoPath: codebase.sourcePath,
      configuredBaseBranch: config.worktree.baseBranch,
      usesBaseBranchVariable: true,
      credentials: codebase.url ? await gitCredentialsForUrl(codebase.url, deps.environment) : undefined,
    });
    return { cwd: codebase.sourcePath, baseBranch: base.branch, untrusted: false };
  } catch (error) {
    refuse(`The run's base branch could not be resolved: ${(error as Error).message}`);
  }
}

/**
 * Where a sub-workflow's run works: in its parent's folder (its worktree, the checkout with
 * `isolation: none`, or its scratch folder), so the child sees and builds on the parent's changes.
 */
async function parentPlace(
  deps: ServiceContext,
  parentRunId: string,
  codebase: Codebase | undefined,
  definition: WorkflowDefinition,
): Promise<RunPlace> {
  const { knex } = deps.db;
  const parent = await findRun(knex, parentRunId);
  if (!parent) refuse(`The run that started this one (${parentRunId}) no longer exists.`);
  if (parent.isolationEnvironmentId) {
    const environment = await findEnvironment(knex, parent.isolationEnvironmentId);
    if (!environment || environment.destroyedAt) refuse(`The worktree of run ${parentRunId} is gone.`);
    return {
      cwd: environment.path,
      baseBranch: environment.baseBranch ?? undefined,
      untrusted: environment.untrusted,
    };
  }
  if (codebase) {
    const config = deps.config.forRepository(codebase.sourcePath).effective;
    return sharedCheckout(deps, codebase, definition, config);
  }
  return { cwd: join(deps.home, 'runs', parentRunId, 'work'), baseBranch: undefined, untrusted: false };
}

/**
 * Everything a run needs, fixed at its start: the definition it was started with, where it
 * works (its own worktree of the conversation's codebase, never the user's checkout unless the
 * workflow says `isolation: none`), the artifacts folder, the base branch, and the command files
 * its nodes name.
 */
export async function prepareRun(deps: ServiceContext, runId: string): Promise<PreparedRun> {
  const { knex } = deps.db;
  const run = await findRun(knex, runId);
  if (!run) refuse(`Run ${runId} no longer exists.`);
  const checked = validateWorkflowDefinition(run.definition);
  if (!checked.valid) refuse(`The run's definition is not valid: ${checked.errors.join('; ')}`);
  const definition = checked.definition;
  const conversation = run.conversationId ? await findConversation(knex, run.conversationId) : undefined;
  const codebase = conversation?.codebaseId ? await findCodebase(knex, conversation.codebaseId) : undefined;

  const config = codebase ? deps.config.forRepository(codebase.sourcePath).effective : undefined;
  let place: RunPlace;
  if (run.parentRunId) place = await parentPlace(deps, run.parentRunId, codebase, definition);
  else if (codebase && config)
    place =
      definition.isolation === 'none'
        ? await sharedCheckout(deps, codebase, definition, config)
        : await runWorktree(deps, runId, codebase, definition, config, conversation);
  else {
    // No codebase: the run gets a scratch folder of its own.
    place = { cwd: join(deps.home, 'runs', runId, 'work'), baseBranch: undefined, untrusted: false };
    mkdirSync(place.cwd, { recursive: true });
  }
  const docsDir = config?.docs.path ?? 'docs/';
  const artifactsDir = artifactsDirFor(deps.home, codebase?.sourcePath, runId);
  mkdirSync(artifactsDir, { recursive: true });
  // Command files come from the codebase's checkout (its base branch), never from the run's
  // worktree, which may hold a pull request's head: a pull request cannot rewrite what runs.
  const commands = await commandBodies(definition, codebase?.sourcePath ?? place.cwd, deps);
  // Spec rule 3(c), before any node runs: without a codebase there is no base branch to find.
  if (!codebase && usesBaseBranch(definition, commands)) refuse(NO_REPOSITORY_FOR_BASE_BRANCH);
  const context: RunContext = {
    runId,
    conversationId: run.conversationId,
    codebaseId: codebase?.id ?? null,
    definition,
    message: run.message ?? '',
    cwd: place.cwd,
    artifactsDir,
    docsDir,
    baseBranch: place.baseBranch,
    ...(place.untrusted && { untrusted: true }),
    scriptsDir: BUNDLED_SCRIPTS_DIR,
    commands,
    ...(run.inputs && { inputs: run.inputs }),
  };
  const sessions = await persistedSessions(deps, run, definition);
  return {
    context,
    completed: await completedNodes(deps, runId, definition),
    ...(sessions && { persistedSessions: sessions }),
  };
}
