import { useQuery } from '@tanstack/react-query';
import { getJson } from '../api/client';
import type { RunArtifactList } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import { formatTime } from '../shell/format';

/** Bytes as people read them. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The files the run wrote to its `$ARTIFACTS_DIR`, each a download link; read again while the run goes on. */
export function RunArtifacts({ runId, live }: { runId: string; live: boolean }) {
  const path = `/api/workflows/runs/${encodeURIComponent(runId)}/artifacts`;
  const list = useQuery({
    queryKey: ['runs', 'artifacts', runId],
    queryFn: () => getJson<RunArtifactList>(path),
    refetchInterval: live ? 10_000 : false,
  });
  if (list.isError) return <ErrorNote error={list.error} retry={() => void list.refetch()} />;
  if (!list.data) return <p className="muted">Looking for artifacts…</p>;
  const { artifacts, truncated } = list.data;
  if (artifacts.length === 0)
    return (
      <p className="muted">No artifacts{live ? ' yet' : ''}: the run wrote no file to $ARTIFACTS_DIR.</p>
    );
  return (
    <div className="artifacts">
      <ul className="plain artifact-list" aria-label="Artifacts">
        {artifacts.map((artifact) => (
          <li key={artifact.path} data-artifact={artifact.path}>
            {/* The whole path is one URL segment: its slashes are encoded too. */}
            <a href={`${path}/${encodeURIComponent(artifact.path)}`} download={artifact.name}>
              {artifact.path}
            </a>{' '}
            <span className="muted small">
              {formatSize(artifact.size)} · {formatTime(artifact.modifiedAt)}
            </span>
          </li>
        ))}
      </ul>
      {truncated && <p className="muted small">Only the first {artifacts.length} files are listed.</p>}
    </div>
  );
}
