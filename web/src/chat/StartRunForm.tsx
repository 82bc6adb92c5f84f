import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { getJson, postJson, query } from '../api/client';
import type { Codebase, Conversation, WorkflowList, WorkflowRun } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import './chat.css';
import { declaredInputs, inputValues, workflowDescription } from './workflow-inputs';

const workflowName = (lookup: WorkflowList['workflows'][number]) =>
  typeof lookup.workflow.name === 'string' ? lookup.workflow.name : lookup.filename.replace(/\.ya?ml$/, '');

/**
 * Starts a workflow run in this conversation (`POST /api/workflows/{name}/run`), choosing from
 * the workflows its codebase has; closed until opened, as most messages are not runs.
 */
export function StartRunForm({ conversation, id }: { conversation: Conversation; id: string }) {
  return (
    <details className="start-run">
      <summary>Run a workflow</summary>
      {conversation.codebase_id ? (
        <RunFields codebaseId={conversation.codebase_id} conversationId={id} />
      ) : (
        <p className="muted small" data-testid="no-codebase">
          This conversation has no codebase, and a run works in a worktree of one. Start a conversation on a
          codebase to run a workflow from it (or use <code>/workflow run</code> there).
        </p>
      )}
    </details>
  );
}

function RunFields({ codebaseId, conversationId }: { codebaseId: string; conversationId: string }) {
  // The same list the conversations page reads: usually already in the cache.
  const codebases = useQuery({
    queryKey: ['codebases'],
    queryFn: () => getJson<Codebase[]>('/api/codebases'),
  });
  const codebase = codebases.data?.find((item) => item.id === codebaseId);
  const workflows = useQuery({
    queryKey: ['workflows', codebase?.sourcePath],
    queryFn: () => getJson<WorkflowList>(`/api/workflows${query({ cwd: codebase!.sourcePath })}`),
    enabled: codebase !== undefined,
  });
  const [chosen, setChosen] = useState('');
  const [message, setMessage] = useState('');
  const [typed, setTyped] = useState<Record<string, string>>({});
  const listed = useMemo(
    () =>
      (workflows.data?.workflows ?? [])
        .map((lookup) => ({ name: workflowName(lookup), workflow: lookup.workflow }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    [workflows.data],
  );
  const selected = listed.find((item) => item.name === chosen);
  const inputs = selected ? declaredInputs(selected.workflow) : [];
  const description = selected && workflowDescription(selected.workflow);
  const start = useMutation({
    mutationFn: () => {
      const values = inputValues(inputs, typed);
      return postJson<WorkflowRun>(`/api/workflows/${encodeURIComponent(chosen)}/run`, {
        message: message.trim(),
        conversationId,
        ...(Object.keys(values).length > 0 && { inputs: values }),
      });
    },
    onSuccess: () => {
      setMessage('');
      setTyped({});
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (chosen && message.trim() && !start.isPending) start.mutate();
  };

  if (codebases.isError) return <ErrorNote error={codebases.error} retry={() => void codebases.refetch()} />;
  if (codebases.isSuccess && !codebase)
    return <p className="muted small">This conversation’s codebase is no longer registered.</p>;
  if (workflows.isError) return <ErrorNote error={workflows.error} retry={() => void workflows.refetch()} />;
  if (!workflows.data) return <p className="muted small">Loading the workflows…</p>;
  return (
    <form className="start-run-form" onSubmit={submit} aria-label="Run a workflow">
      <label htmlFor="run-workflow">Workflow</label>
      <select
        id="run-workflow"
        value={chosen}
        onChange={(event) => {
          setChosen(event.target.value);
          setTyped({});
          start.reset();
        }}
        required
      >
        <option value="">Choose a workflow…</option>
        {listed.map((item) => (
          <option key={item.name} value={item.name}>
            {item.name}
          </option>
        ))}
      </select>
      {description && <p className="muted small">{description}</p>}
      <label htmlFor="run-workflow-message">What the run is about</label>
      <textarea
        id="run-workflow-message"
        rows={2}
        value={message}
        onChange={(event) => setMessage(event.target.value)}
        required
      />
      {inputs.map((input) => {
        const fieldId = `run-input-${input.name}`;
        return (
          <div key={input.name} className="start-run-input">
            <label htmlFor={fieldId}>
              {input.name}
              {input.required ? ' (required)' : ''}
            </label>
            <input
              id={fieldId}
              value={typed[input.name] ?? ''}
              placeholder={input.default}
              required={input.required}
              aria-describedby={input.description || input.default ? `${fieldId}-hint` : undefined}
              onChange={(event) => setTyped((current) => ({ ...current, [input.name]: event.target.value }))}
            />
            {(input.description || input.default) && (
              <p id={`${fieldId}-hint`} className="muted small">
                {input.description}
                {input.description && input.default ? ' ' : ''}
                {input.default && <>Empty: {input.default}.</>}
              </p>
            )}
          </div>
        );
      })}
      {start.isError && <ErrorNote error={start.error} />}
      {start.isSuccess && (
        <p role="status">
          Started {start.data.workflowName}.{' '}
          <Link to={`/runs/${encodeURIComponent(start.data.runId)}`}>Open the run</Link>
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="primary" disabled={!chosen || !message.trim() || start.isPending}>
          {start.isPending ? 'Starting…' : 'Start the run'}
        </button>
      </div>
    </form>
  );
}
