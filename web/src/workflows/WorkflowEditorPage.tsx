// Both workflow pages are loaded on demand (main.tsx), with YAML parsing: the first page stays light.
import { lazy, Suspense, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { deleteJson, getJson, isNotFound, postJson, query, request } from '../api/client';
import type { Conversation, WorkflowDocument, WorkflowRun } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import './workflows.css';
import { NotFound } from '../shell/NotFound';
import { CodebasePicker, inCodebase, useCodebaseScope } from './CodebaseScope';
import { definitionNodes } from './definition-graph';
import { addNode, PALETTE } from './node-palette';
import { checkText, readText, type PlacedProblem } from './workflow-check';
import type { TextProblem } from './YamlEditor';

const YamlEditor = lazy(() => import('./YamlEditor'));
const WorkflowGraph = lazy(() => import('./WorkflowGraph'));

const NEW_WORKFLOW = `name: my-workflow
description: What this workflow does, in a sentence.
nodes:
  - id: plan
    prompt: |
      Plan this change for the repository: $ARGUMENTS
`;

/** What the text starts as: the file as written, or the definition written out when unreadable. */
async function loadText(name: string, cwd: string | undefined): Promise<WorkflowDocument & { text: string }> {
  const found = await getJson<WorkflowDocument>(
    `/api/workflows/${encodeURIComponent(name)}${query({ cwd })}`,
  );
  if (found.text !== undefined) return { ...found, text: found.text };
  const { stringify } = await import('yaml');
  return { ...found, text: stringify(found.workflow) };
}

/** A workflow's page: its YAML beside its graph, checked as you type; save, delete, run. */
export default function WorkflowEditorPage() {
  const { name } = useParams();
  const scope = useCodebaseScope();
  const loaded = useQuery({
    queryKey: ['workflow', name, scope.cwd ?? ''],
    queryFn: () => loadText(name!, scope.cwd),
    enabled: name !== undefined && scope.ready,
    // Never refetched behind the user's back: a refetch would reset the text being edited.
    staleTime: Infinity,
  });
  if (name === undefined) return <Editor key="new" initial={NEW_WORKFLOW} source={undefined} />;
  if (isNotFound(loaded.error)) return <NotFound what="workflow" />;
  if (loaded.isError) return <ErrorNote error={loaded.error} retry={() => void loaded.refetch()} />;
  if (!loaded.data) return <p className="muted">Loading…</p>;
  return (
    <Editor
      key={`${name}:${scope.cwd ?? ''}`}
      initial={loaded.data.text}
      source={loaded.data.source}
      scopeName={name}
    />
  );
}

function Editor({
  initial,
  source,
  scopeName,
}: {
  initial: string;
  source: 'bundled' | 'project' | undefined;
  scopeName?: string;
}) {
  const scope = useCodebaseScope();
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [text, setText] = useState(initial);
  const [problems, setProblems] = useState<PlacedProblem[]>();
  const [note, setNote] = useState<string>();
  const dirty = text !== initial;
  useLeaveWarning(dirty);

  // The graph follows the text as it is typed, a step behind when typing is fast.
  const deferred = useDeferredValue(text);
  const graphNodes = useMemo(() => definitionNodes(readText(deferred).definition), [deferred]);
  const definedName = useMemo(() => {
    const definition = readText(text).definition as { name?: unknown } | undefined;
    return typeof definition?.name === 'string' ? definition.name : undefined;
  }, [text]);

  const checks = useRef(0);
  const check = useCallback(async (current: string): Promise<TextProblem[]> => {
    const sequence = (checks.current += 1);
    try {
      const verdict = await checkText(current);
      if (sequence === checks.current) setProblems(verdict.problems);
      return verdict.problems;
    } catch {
      // The server cannot check now (offline): say nothing rather than something false.
      if (sequence === checks.current) setProblems(undefined);
      return [];
    }
  }, []);

  const save = useMutation({
    mutationFn: async () => {
      const read = readText(text);
      const target = definedName!;
      await request('PUT', `/api/workflows/${encodeURIComponent(target)}${query({ cwd: scope.cwd })}`, {
        definition: read.definition,
        text,
      });
      return target;
    },
    onSuccess: async (saved) => {
      setNote(`Saved to .cairn/workflows/${saved}.yaml.`);
      await queries.invalidateQueries({ queryKey: ['workflows'] });
      await queries.invalidateQueries({ queryKey: ['workflow', saved] });
      navigate(inCodebase(`/workflows/${encodeURIComponent(saved)}`, scope.codebaseId), { replace: true });
    },
  });
  const remove = useMutation({
    mutationFn: () =>
      deleteJson(`/api/workflows/${encodeURIComponent(scopeName!)}${query({ cwd: scope.cwd })}`),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['workflows'] });
      navigate(inCodebase('/workflows', scope.codebaseId));
    },
  });

  const addFromPalette = (kind: (typeof PALETTE)[number]['kind']) => {
    const added = addNode(text, kind);
    if ('error' in added) setNote(added.error);
    else {
      setNote(`Added ${added.id} at the end of the nodes.`);
      setText(added.text);
    }
  };

  // A bundled workflow saves unchanged too: into the codebase, as its own copy.
  const savable =
    scope.cwd !== undefined &&
    definedName !== undefined &&
    problems?.length === 0 &&
    (dirty || source !== 'project');
  const renamed = scopeName !== undefined && definedName !== undefined && definedName !== scopeName;
  const title = scopeName ?? 'New workflow';
  return (
    <section aria-labelledby="workflow-title" className="workflow-page">
      <p className="crumbs">
        <Link to={inCodebase('/workflows', scope.codebaseId)}>Workflows</Link>
      </p>
      <div className="page-head">
        <h1 id="workflow-title">
          {title} {source && <span className={`source-badge source-${source}`}>{source}</span>}
        </h1>
      </div>
      <div className="filters">
        <CodebasePicker scope={scope} />
      </div>
      {source === 'bundled' && (
        <p className="muted small">
          A bundled workflow. Saving it writes a copy into the codebase, which then overrides the bundled one
          there.
        </p>
      )}
      <div className="palette" role="group" aria-label="Add a node">
        <span className="muted small">Add a node:</span>
        {PALETTE.map((entry) => (
          <button
            key={entry.kind}
            type="button"
            title={entry.hint}
            onClick={() => addFromPalette(entry.kind)}
          >
            {entry.kind}
          </button>
        ))}
      </div>
      <p className="muted small" role="status">
        {note}
      </p>
      <div className="editor-split">
        <div className="editor-pane">
          <Suspense fallback={<div className="yaml-editor placeholder">Loading the editor…</div>}>
            <YamlEditor value={text} onChange={setText} check={check} label={`${title}: workflow YAML`} />
          </Suspense>
        </div>
        <div className="graph-pane">
          <Suspense fallback={<div className="graph placeholder">Drawing the graph…</div>}>
            <WorkflowGraph nodes={graphNodes} />
          </Suspense>
        </div>
      </div>
      <ProblemList problems={problems} />
      {save.isError && <ErrorNote error={save.error} />}
      {remove.isError && <ErrorNote error={remove.error} />}
      <div className="button-row">
        {source === 'project' && scope.cwd !== undefined && (
          <button
            type="button"
            className="danger"
            disabled={remove.isPending}
            onClick={() => window.confirm(`Delete the workflow file of ${scopeName}?`) && remove.mutate()}
          >
            Delete
          </button>
        )}
        <button
          type="button"
          className="primary"
          disabled={!savable || save.isPending}
          onClick={() => save.mutate()}
        >
          {save.isPending ? 'Saving…' : renamed ? `Save as ${definedName}` : 'Save'}
        </button>
      </div>
      {scope.cwd === undefined && <p className="muted small">Choose a codebase to save into.</p>}
      {scopeName !== undefined && scope.codebase && (
        <RunForm workflow={scopeName} codebaseId={scope.codebase.id} unsaved={dirty} />
      )}
    </section>
  );
}

function ProblemList({ problems }: { problems: PlacedProblem[] | undefined }) {
  if (problems === undefined) return <p className="muted small" aria-live="polite" />;
  if (problems.length === 0)
    return (
      <p className="ok-text small" aria-live="polite" data-testid="workflow-verdict">
        Valid.
      </p>
    );
  return (
    <div aria-live="polite" data-testid="workflow-verdict">
      <p className="error-text small">
        {problems.length === 1 ? '1 problem' : `${problems.length} problems`}
      </p>
      <ul className="problems">
        {problems.map((problem, index) => (
          <li key={index}>
            <span className="muted">line {problem.line}:</span> {problem.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Runs the saved workflow in a new conversation on the codebase, then opens the run. */
function RunForm({
  workflow,
  codebaseId,
  unsaved,
}: {
  workflow: string;
  codebaseId: string;
  unsaved: boolean;
}) {
  const navigate = useNavigate();
  const [message, setMessage] = useState('');
  const run = useMutation({
    mutationFn: async () => {
      const conversation = await postJson<Conversation>('/api/conversations', {
        codebase_id: codebaseId,
        title: `${workflow}: ${message.trim().slice(0, 60)}`,
      });
      return postJson<WorkflowRun>(`/api/workflows/${encodeURIComponent(workflow)}/run`, {
        message: message.trim(),
        conversationId: conversation.platform_conversation_id,
      });
    },
    onSuccess: (started) => navigate(`/runs/${encodeURIComponent(started.runId)}`),
  });
  return (
    <form
      className="run-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (message.trim()) run.mutate();
      }}
    >
      <h2>Run</h2>
      <label htmlFor="run-message">Message</label>
      <textarea
        id="run-message"
        rows={3}
        value={message}
        onChange={(event) => setMessage(event.target.value)}
        placeholder="What the run is about ($ARGUMENTS)"
      />
      {unsaved && <p className="muted small">The run uses the saved version, not the changes above.</p>}
      {run.isError && <ErrorNote error={run.error} />}
      <div className="button-row">
        <button type="submit" className="primary" disabled={!message.trim() || run.isPending}>
          {run.isPending ? 'Starting…' : 'Run'}
        </button>
      </div>
    </form>
  );
}

/** Asks before a reload or a closed tab throws unsaved text away. */
function useLeaveWarning(active: boolean) {
  useEffect(() => {
    if (!active) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [active]);
}
