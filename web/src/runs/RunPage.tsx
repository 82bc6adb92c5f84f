import { useDeferredValue, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { deleteJson, getJson, isNotFound, postJson, query } from '../api/client';
import type { Codebase, RunDetail, WorkflowLookup, WorkflowRun, WorkflowRunEvent } from '../api/types';
import { onRunFrame } from '../shell/live-feed';
import { NotFound } from '../shell/NotFound';
import { ErrorNote } from '../shell/ErrorNote';
import { StatusBadge } from '../shell/StatusBadge';
import { formatCost, formatDuration, formatTime, formatTokens } from '../shell/format';
import {
  allowedOperations,
  applyRunEvents,
  DESTRUCTIVE,
  emptyRunModel,
  isLive,
  OPERATION_LABELS,
  type DefinitionNode,
  type UserOperation,
} from './run-model';
import { NodeList } from './NodeList';
import { RunArtifacts } from './RunArtifacts';
import { RunChanges } from './RunChanges';
import { useRunGraph } from './run-graph-chunk';
import { RunTimeline } from './RunTimeline';
import { staleness } from './staleness';
import { StaleBanner, useClock } from './StaleNotice';
import './run-page.css';

const CONFIRM: Partial<Record<UserOperation, string>> = {
  cancel: 'Cancel this run? Its running nodes are stopped.',
  abandon: 'Abandon this run for good? Its execution is terminated and cannot be resumed.',
  delete: 'Delete this run and all its events? This cannot be undone.',
  reject: 'Reject this gate? Unless the gate reworks, the run ends cancelled.',
};

/** Live events of this run from the page's run feed, as the run endpoint lists them. */
function useLiveEvents(runId: string) {
  const [events, setEvents] = useState<WorkflowRunEvent[]>([]);
  useEffect(() => {
    setEvents([]);
    return onRunFrame(({ id, data }) => {
      if (data.runId !== runId) return;
      const { type, nodeId, actor, created_at, runId: _run, ...payload } = data;
      const event = {
        id,
        type,
        nodeId: typeof nodeId === 'string' ? nodeId : null,
        actor: typeof actor === 'string' ? actor : null,
        payload: payload as WorkflowRunEvent['payload'],
        createdAt: String(created_at),
      };
      setEvents((previous) => [...previous, event]);
    });
  }, [runId]);
  return events;
}

/**
 * The nodes the run follows, for the graph's edges: the run's own definition, which its detail
 * carries. Only when that no longer validates (nothing listed) is the workflow's current file asked,
 * from the run's codebase when it has one.
 */
function useDefinitionNodes(detail: RunDetail | undefined): DefinitionNode[] | undefined {
  const own = useMemo(
    () => detail?.nodes.map((node) => ({ id: node.nodeId, depends_on: node.dependsOn })),
    [detail?.nodes],
  );
  const run = detail?.run;
  const lookUp = own !== undefined && own.length === 0;
  const codebaseId = run?.codebaseId;
  const codebase = useQuery({
    queryKey: ['codebase', codebaseId],
    queryFn: () => getJson<Codebase>(`/api/codebases/${encodeURIComponent(codebaseId!)}`),
    enabled: lookUp && Boolean(codebaseId),
  });
  const cwd = codebase.data?.sourcePath;
  const workflowName = run?.workflowName;
  const definition = useQuery({
    queryKey: ['workflow', workflowName, cwd],
    queryFn: () =>
      getJson<WorkflowLookup>(`/api/workflows/${encodeURIComponent(workflowName!)}${query({ cwd })}`),
    enabled: lookUp && Boolean(workflowName) && (!codebaseId || codebase.isFetched),
    retry: false,
  });
  if (!lookUp) return own;
  return (definition.data?.workflow as { nodes?: DefinitionNode[] } | undefined)?.nodes;
}

/**
 * Its children one render after the rest of the page, in a render React may interrupt: the long
 * lists below the graph (a node list and a timeline of a hundred rows each) do not hold up the
 * graph's first paint.
 */
function AfterFirstPaint({ children }: { children: ReactNode }) {
  const ready = useDeferredValue(true, false);
  return ready ? children : <p className="muted small">Loading…</p>;
}

export function RunPage() {
  const { runId = '' } = useParams();
  const detail = useQuery({
    queryKey: ['runs', 'detail', runId],
    queryFn: () => getJson<RunDetail>(`/api/workflows/runs/${encodeURIComponent(runId)}`),
  });
  const live = useLiveEvents(runId);
  const graph = useRunGraph();
  const run = detail.data?.run;
  const definitionNodes = useDefinitionNodes(detail.data);
  // The history and the live events, in order, each once (a live event may repeat a listed one).
  const events = useMemo(() => {
    const byId = new Map([...(detail.data?.events ?? []), ...live].map((event) => [event.id, event]));
    return [...byId.values()].sort((a, b) => a.id - b.id);
  }, [detail.data?.events, live]);
  const model = useMemo(
    () => applyRunEvents(emptyRunModel(runId, run?.workflowName ?? '', definitionNodes), events),
    [runId, run?.workflowName, definitionNodes, events],
  );
  const now = useClock(run?.status === 'running');

  if (isNotFound(detail.error)) return <NotFound what="run" />;
  if (detail.isError) return <ErrorNote error={detail.error} retry={() => void detail.refetch()} />;
  if (!run) return <p className="muted">Loading…</p>;
  const waitingGate = model.view.gates.find((gate) => !gate.decision && !gate.expired);
  // The running nodes' limits; between two nodes, every node's (the most generous decides).
  const running = new Set(model.nodes.filter((node) => node.state === 'running').map((node) => node.id));
  const limits = detail.data?.nodeLimits ?? [];
  const runningLimits = limits.filter((limit) => running.has(limit.nodeId));
  const quiet = staleness({
    now,
    status: run.status,
    waitingUntil: run.waitingUntil,
    lastEventAt: events.at(-1)?.createdAt ?? null,
    limits: runningLimits.length > 0 ? runningLimits : limits,
  });

  return (
    <section aria-labelledby="run-title" className="run">
      <p className="crumbs">
        <Link to="/runs">Runs</Link>
      </p>
      <div className="page-head">
        <h1 id="run-title">
          {run.workflowName}{' '}
          <StatusBadge
            status={run.status}
            label={run.status === 'paused' ? 'waiting for approval' : undefined}
          />
        </h1>
      </div>
      <dl className="facts">
        {run.message && (
          <>
            <dt>Message</dt>
            <dd>{run.message}</dd>
          </>
        )}
        <dt>Started</dt>
        <dd>{formatTime(run.startedAt ?? run.createdAt)}</dd>
        {run.completedAt && (
          <>
            <dt>Took</dt>
            <dd>
              {formatDuration(Date.parse(run.completedAt) - Date.parse(run.startedAt ?? run.createdAt))}
            </dd>
          </>
        )}
        <dt>Usage</dt>
        <dd>
          {[formatTokens(run.totalTokens), formatCost(run.totalCostUsd)].filter(Boolean).join(' · ') ||
            'none'}
        </dd>
        {run.conversationId && (
          <>
            <dt>Conversation</dt>
            <dd>
              <Link to={`/conversations/${encodeURIComponent(run.conversationId)}`}>open</Link>
            </dd>
          </>
        )}
        {run.parentRunId && (
          <>
            <dt>Started by</dt>
            <dd>
              <Link to={`/runs/${encodeURIComponent(run.parentRunId)}`}>the parent run</Link>
              {run.parentNodeId && <> (its node {run.parentNodeId})</>}
            </dd>
          </>
        )}
        {(detail.data?.children.length ?? 0) > 0 && (
          <>
            <dt>Sub-workflows</dt>
            <dd>
              <ul className="plain">
                {detail.data!.children.map((child) => (
                  <li key={child.runId} data-child-run={child.runId}>
                    <Link to={`/runs/${encodeURIComponent(child.runId)}`}>{child.workflowName}</Link>{' '}
                    <StatusBadge status={child.status} />
                    {child.nodeId && <span className="muted small"> from {child.nodeId}</span>}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {run.waitingUntil && (
          <>
            <dt>Waiting</dt>
            <dd>for the assistant's usage limit, until {formatTime(run.waitingUntil)}</dd>
          </>
        )}
        {detail.data?.temporalUrl && (
          <>
            <dt>Temporal</dt>
            <dd>
              <a href={detail.data.temporalUrl} target="_blank" rel="noreferrer">
                execution
              </a>
            </dd>
          </>
        )}
      </dl>
      <StaleBanner state={quiet} />
      {run.error && (
        <p className="error-note" role="alert">
          {run.error}
        </p>
      )}
      <RunActions runId={runId} status={run.status} gateMessage={waitingGate?.message} />
      <h2>Graph</h2>
      {graph.RunGraph ? (
        <graph.RunGraph nodes={model.nodes} />
      ) : graph.error ? (
        <p className="error-note" role="alert">
          The graph could not be loaded; reload the page to try again.
        </p>
      ) : (
        <div className="graph placeholder">Drawing the graph…</div>
      )}
      <h2>Nodes</h2>
      <AfterFirstPaint>
        <NodeList nodes={model.nodes} />
      </AfterFirstPaint>
      <h2>Timeline</h2>
      <AfterFirstPaint>
        <RunTimeline events={events} startedAt={run.startedAt ?? run.createdAt} live={isLive(run.status)} />
      </AfterFirstPaint>
      <h2>Artifacts</h2>
      <RunArtifacts runId={runId} live={isLive(run.status)} />
      {run.codebaseId && (
        <>
          <h2>Changes</h2>
          <RunChanges runId={runId} />
        </>
      )}
      {isLive(run.status) && <p className="muted small">This page follows the run live.</p>}
    </section>
  );
}

function RunActions({
  runId,
  status,
  gateMessage,
}: {
  runId: string;
  status: RunDetail['run']['status'];
  gateMessage?: string;
}) {
  const [comment, setComment] = useState('');
  const queries = useQueryClient();
  const navigate = useNavigate();
  const path = `/api/workflows/runs/${encodeURIComponent(runId)}`;
  const act = useMutation({
    mutationFn: async (operation: UserOperation): Promise<WorkflowRun | void> => {
      if (operation === 'delete') return deleteJson(path);
      if (operation === 'rerun') return postJson<WorkflowRun>(`${path}/rerun`);
      const body =
        operation === 'approve'
          ? { comment: comment || undefined }
          : operation === 'reject'
            ? { reason: comment || undefined }
            : {};
      return postJson(`${path}/${operation}`, body);
    },
    onSuccess: (answer, operation) => {
      setComment('');
      if (operation === 'delete') navigate('/runs');
      // A re-run is a new run: its page is where to watch it.
      if (operation === 'rerun' && answer) navigate(`/runs/${encodeURIComponent(answer.runId)}`);
      void queries.invalidateQueries({ queryKey: ['runs'] });
    },
  });
  const run = (operation: UserOperation) => {
    const question = CONFIRM[operation];
    if (question && !window.confirm(question)) return;
    act.mutate(operation);
  };
  const operations = allowedOperations(status);
  const gated = operations.includes('approve');
  const others = operations.filter((operation) => operation !== 'approve' && operation !== 'reject');
  return (
    <div className="actions">
      {act.isError && <ErrorNote error={act.error} />}
      {gated && (
        <div className="gate" role="region" aria-label="Approval">
          <p>
            <strong>Waiting for approval:</strong> {gateMessage ?? 'the run waits at a gate.'}
          </p>
          <label htmlFor="gate-comment">Comment (optional)</label>
          <textarea
            id="gate-comment"
            rows={2}
            value={comment}
            onChange={(event) => setComment(event.target.value)}
          />
          <div className="button-row">
            <button type="button" className="primary" disabled={act.isPending} onClick={() => run('approve')}>
              Approve
            </button>
            <button type="button" className="danger" disabled={act.isPending} onClick={() => run('reject')}>
              Reject
            </button>
          </div>
        </div>
      )}
      {others.length > 0 && (
        <div className="button-row">
          {others.map((operation) => (
            <button
              key={operation}
              type="button"
              className={DESTRUCTIVE.has(operation) ? 'danger' : undefined}
              disabled={act.isPending}
              onClick={() => run(operation)}
            >
              {OPERATION_LABELS[operation]}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
