import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { getJson, query } from '../api/client';
import type { WorkflowList } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import './workflows.css';
import { CodebasePicker, inCodebase, useCodebaseScope } from './CodebaseScope';

interface Listed {
  name?: string;
  description?: string;
  nodes?: unknown[];
  tags?: unknown[];
}

/** Workflows: the bundled ones and a codebase's own, and the files that did not load. */
export default function WorkflowListPage() {
  const scope = useCodebaseScope();
  const list = useQuery({
    queryKey: ['workflows', scope.cwd ?? ''],
    queryFn: () => getJson<WorkflowList>(`/api/workflows${query({ cwd: scope.cwd })}`),
    enabled: scope.ready,
  });
  return (
    <section aria-labelledby="workflows-title">
      <div className="page-head">
        <h1 id="workflows-title">Workflows</h1>
        {scope.codebase ? (
          <Link className="button primary" to={inCodebase('/new-workflow', scope.codebaseId)}>
            New workflow
          </Link>
        ) : null}
      </div>
      <div className="filters">
        <CodebasePicker scope={scope} />
      </div>
      {scope.unknown && <p className="error-note">No codebase has the id {scope.codebaseId}.</p>}
      {!scope.codebase && (
        <p className="muted small">Choose a codebase to see its own workflows and to write new ones.</p>
      )}
      {list.isError && <ErrorNote error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <p className="muted">Loading…</p>}
      {list.data?.errors && list.data.errors.length > 0 && (
        <div className="load-errors">
          <h2>Files that did not load</h2>
          <ul>
            {list.data.errors.map((error) => (
              <li key={`${error.source}:${error.filename}`}>
                <code>{error.filename}</code> <span className="muted small">({error.source})</span>
                <p className="error-text">{error.error}</p>
              </li>
            ))}
          </ul>
        </div>
      )}
      {list.isSuccess && list.data.workflows.length === 0 && <p className="empty">No workflows.</p>}
      <ul className="cards">
        {list.data?.workflows.map((entry) => {
          const workflow = entry.workflow as Listed;
          const name = workflow.name ?? entry.filename;
          return (
            <li key={`${entry.source}:${name}`}>
              <Link
                className="card-link"
                to={inCodebase(`/workflows/${encodeURIComponent(name)}`, scope.codebaseId)}
              >
                <span className="card-title">
                  {name} <span className={`source-badge source-${entry.source}`}>{entry.source}</span>
                </span>
                {workflow.description && <span className="muted small">{workflow.description}</span>}
                <span className="muted small">
                  {Array.isArray(workflow.nodes) ? `${workflow.nodes.length} nodes` : ''}
                  {Array.isArray(workflow.tags) && workflow.tags.length > 0
                    ? ` · ${workflow.tags.join(', ')}`
                    : ''}
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
