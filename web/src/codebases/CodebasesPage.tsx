import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { deleteJson, getJson, postJson } from '../api/client';
import type { Codebase } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';

const ENV_KEYS_HELP =
  "The repository's .env files may hold assistant keys (ANTHROPIC_API_KEY, OPENAI_API_KEY...). Cairn refuses such a " +
  'codebase unless you allow it here, because those keys would then be used, and billed, in place of your own.';

/** Codebases: the list, adding one by URL or local path, deleting one (after saying what goes). */
export function CodebasesPage() {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['codebases'], queryFn: () => getJson<Codebase[]>('/api/codebases') });
  const remove = useMutation({
    mutationFn: (id: string) => deleteJson(`/api/codebases/${encodeURIComponent(id)}`),
    onSuccess: () => void queries.invalidateQueries({ queryKey: ['codebases'] }),
  });
  const confirmDelete = (codebase: Codebase) => {
    const question =
      `Delete the codebase “${codebase.name}”? Its runs that have not ended are cancelled, its running chat turns ` +
      `stopped, and its worktrees and Cairn's managed checkout are removed${codebase.path ? ` (your folder ${codebase.path} stays)` : ''}. ` +
      'Its conversations and run history stay.';
    if (window.confirm(question)) remove.mutate(codebase.id);
  };
  return (
    <section aria-labelledby="codebases-title">
      <div className="page-head">
        <h1 id="codebases-title">Codebases</h1>
      </div>
      <AddCodebase />
      <h2>Registered</h2>
      {list.isError && <ErrorNote error={list.error} retry={() => void list.refetch()} />}
      {remove.isError && <ErrorNote error={remove.error} />}
      {list.isPending && <p className="muted">Loading…</p>}
      {list.isSuccess && list.data.length === 0 && <p className="empty">No codebase yet. Add one above.</p>}
      <ul className="cards">
        {list.data?.map((codebase) => (
          <li key={codebase.id} className="card-link codebase-row">
            <span className="card-title">{codebase.name}</span>
            <span className="muted small">{codebase.url ?? codebase.path}</span>
            <span className="muted small">
              {[
                codebase.defaultBranch && `branch ${codebase.defaultBranch}`,
                codebase.allowEnvKeys && 'env keys allowed',
              ]
                .filter(Boolean)
                .join(' · ')}
            </span>
            <div className="button-row">
              <Link to={`/?codebase=${encodeURIComponent(codebase.id)}`}>Conversations</Link>
              <button
                type="button"
                className="danger"
                disabled={remove.isPending}
                onClick={() => confirmDelete(codebase)}
              >
                Delete
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

function AddCodebase() {
  const queries = useQueryClient();
  const [source, setSource] = useState('');
  const [name, setName] = useState('');
  const [allowEnvKeys, setAllowEnvKeys] = useState(false);
  const add = useMutation({
    mutationFn: () => {
      const isUrl = /^[a-z][a-z0-9+.-]*:\/\/|^[^/\s]+@[^/\s]+:/i.test(source.trim());
      return postJson<Codebase>('/api/codebases', {
        ...(isUrl ? { url: source.trim() } : { path: source.trim() }),
        ...(name.trim() ? { name: name.trim() } : {}),
        allowEnvKeys,
      });
    },
    onSuccess: () => {
      setSource('');
      setName('');
      setAllowEnvKeys(false);
      void queries.invalidateQueries({ queryKey: ['codebases'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (source.trim()) add.mutate();
  };
  return (
    <form className="panel-form" onSubmit={submit} aria-labelledby="add-codebase-title">
      <h2 id="add-codebase-title">Add a codebase</h2>
      <label htmlFor="codebase-source">Git URL or local path</label>
      <input
        id="codebase-source"
        value={source}
        onChange={(event) => setSource(event.target.value)}
        placeholder="https://github.com/you/repo.git or /home/you/repo"
        required
      />
      <label htmlFor="codebase-name">Name (optional)</label>
      <input id="codebase-name" value={name} onChange={(event) => setName(event.target.value)} />
      <label className="check">
        <input
          type="checkbox"
          checked={allowEnvKeys}
          onChange={(event) => setAllowEnvKeys(event.target.checked)}
        />
        Allow assistant keys from the repository’s env files
      </label>
      <p className="muted small">{ENV_KEYS_HELP}</p>
      {add.isError && <ErrorNote error={add.error} />}
      <div className="button-row">
        <button type="submit" className="primary" disabled={add.isPending || !source.trim()}>
          {add.isPending ? 'Adding… (a clone can take a while)' : 'Add'}
        </button>
      </div>
    </form>
  );
}
