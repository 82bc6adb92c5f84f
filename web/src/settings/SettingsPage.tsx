import { useQuery } from '@tanstack/react-query';
import { getJson } from '../api/client';
import type { components, operations } from '../api/schema';
import { ErrorNote } from '../shell/ErrorNote';
import { StatusBadge } from '../shell/StatusBadge';
import { AssistantSettingsForm } from './AssistantSettingsForm';
import { UpdateCheck } from './UpdateCheck';

type Config = components['schemas']['Config'];
type Health = operations['getApiHealth']['responses'][200]['content']['application/json'];

/**
 * Settings: health (with the Temporal Web UI), the update check, the assistant settings
 * (changeable), and the configuration as it applies (read only).
 */
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
          <dt>Temporal</dt>
          <dd>
            {health.data.temporalUi ? (
              <a href={health.data.temporalUi} target="_blank" rel="noreferrer">
                Open the Temporal Web UI
              </a>
            ) : (
              <span className="muted">
                No Temporal Web UI is known: set <code>TEMPORAL_UI_URL</code> to link it here.
              </span>
            )}
          </dd>
        </dl>
      )}
      <UpdateCheck />
      {config.isError && <ErrorNote error={config.error} />}
      {config.data && <AssistantSettingsForm config={config.data} />}
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
