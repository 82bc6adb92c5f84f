import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getJson, request } from '../api/client';
import type { components, operations } from '../api/schema';
import { ErrorNote } from '../shell/ErrorNote';
import { StatusBadge } from '../shell/StatusBadge';

type Config = components['schemas']['Config'];
type Health = operations['getApiHealth']['responses'][200]['content']['application/json'];

/** Settings: health, the assistants' models (changeable), and the configuration as it applies (read only). */
export function SettingsPage() {
  const config = useQuery({ queryKey: ['config'], queryFn: () => getJson<Config>('/api/config') });
  const health = useQuery({
    queryKey: ['health'],
    queryFn: () => getJson<Health>('/api/health'),
    refetchInterval: 10_000,
  });
  return (
    <section aria-labelledby="settings-title">
      <div className="page-head">
        <h1 id="settings-title">Settings</h1>
      </div>
      <h2>Health</h2>
      {health.isError && <ErrorNote error={health.error} />}
      {health.data && (
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <StatusBadge
              status={health.data.status === 'ok' ? 'completed' : 'failed'}
              label={health.data.status}
            />
          </dd>
          <dt>Version</dt>
          <dd>{health.data.version}</dd>
          <dt>Database</dt>
          <dd>{health.data.database}</dd>
          <dt>Assistant turns</dt>
          <dd>
            {health.data.concurrency.active} running, {health.data.concurrency.queued} queued, at most{' '}
            {health.data.concurrency.maxConcurrent}
          </dd>
          <dt>Runs running</dt>
          <dd>{health.data.runningWorkflows}</dd>
          <dt>Chat</dt>
          <dd>
            {Object.entries(health.data.chat)
              .map(([platform, state]) => `${platform}: ${state.status.replace('_', ' ')}`)
              .join(' · ')}
          </dd>
        </dl>
      )}
      {config.isError && <ErrorNote error={config.error} />}
      {config.data && <Models config={config.data} />}
      {config.data && (
        <>
          <h2>Configuration</h2>
          <p className="muted small">
            As it applies now, secrets left out. Change it in the config files or the environment.
          </p>
          {/* Focusable: a keyboard can scroll it. */}
          <pre tabIndex={0} aria-label="The configuration as JSON">
            {JSON.stringify(config.data, null, 2)}
          </pre>
        </>
      )}
    </section>
  );
}

function Models({ config }: { config: Config }) {
  const queries = useQueryClient();
  const [claude, setClaude] = useState(config.assistants.claude.model ?? '');
  const [codex, setCodex] = useState(config.assistants.codex.model ?? '');
  useEffect(() => {
    setClaude(config.assistants.claude.model ?? '');
    setCodex(config.assistants.codex.model ?? '');
  }, [config]);
  const save = useMutation({
    // Only what changed: an untouched assistant is left as the file has it.
    mutationFn: () => {
      const patch: Record<string, { model: string | null }> = {};
      const changed = (before: string | null, now: string) => (before ?? '') !== now.trim();
      if (changed(config.assistants.claude.model, claude)) patch.claude = { model: claude.trim() || null };
      if (changed(config.assistants.codex.model, codex)) patch.codex = { model: codex.trim() || null };
      return request('PATCH', '/api/config/assistants', patch);
    },
    onSuccess: () => void queries.invalidateQueries({ queryKey: ['config'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="panel-form" onSubmit={submit} aria-labelledby="models-title">
      <h2 id="models-title">Assistant models</h2>
      <p className="muted small">
        Default assistant: {config.defaultAssistant}. Empty: the assistant’s own default.
      </p>
      <label htmlFor="claude-model">Claude model</label>
      <input id="claude-model" value={claude} onChange={(event) => setClaude(event.target.value)} />
      <label htmlFor="codex-model">Codex model</label>
      <input id="codex-model" value={codex} onChange={(event) => setCodex(event.target.value)} />
      {save.isError && <ErrorNote error={save.error} />}
      {save.isSuccess && (
        <p className="muted small" role="status">
          Saved.
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save
        </button>
      </div>
    </form>
  );
}
