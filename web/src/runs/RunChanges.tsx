import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { getJson } from '../api/client';
import type { RunDiff } from '../api/types';
import { ErrorNote } from '../shell/ErrorNote';
import { splitPatch } from './diff-model';

/** Files opened at first: a long list starts closed, so the page stays quick to read. */
const OPEN_UP_TO = 10;

/**
 * The run's changes against its base branch, fetched only when asked for (a diff costs a few git
 * commands on the server): the changed files with their counts, and each file's hunks.
 */
export function RunChanges({ runId }: { runId: string }) {
  const [asked, setAsked] = useState(false);
  const diff = useQuery({
    queryKey: ['runs', 'diff', runId],
    queryFn: () => getJson<RunDiff>(`/api/workflows/runs/${encodeURIComponent(runId)}/diff`),
    enabled: asked,
    retry: false,
  });
  if (!asked)
    return (
      <button type="button" onClick={() => setAsked(true)}>
        Show the changes
      </button>
    );
  if (diff.isError) return <ErrorNote error={diff.error} retry={() => void diff.refetch()} />;
  if (!diff.data) return <p className="muted">Comparing with the base branch…</p>;
  return <ChangesView diff={diff.data} refresh={() => void diff.refetch()} refreshing={diff.isFetching} />;
}

function ChangesView({
  diff,
  refresh,
  refreshing,
}: {
  diff: RunDiff;
  refresh: () => void;
  refreshing: boolean;
}) {
  const patches = useMemo(() => splitPatch(diff.patch), [diff.patch]);
  const additions = diff.files.reduce((sum, file) => sum + file.additions, 0);
  const deletions = diff.files.reduce((sum, file) => sum + file.deletions, 0);
  return (
    <div className="changes" data-testid="run-changes">
      <p className="changes-head">
        <span>
          {diff.files.length === 0
            ? 'No change'
            : `${diff.files.length} file${diff.files.length === 1 ? '' : 's'} changed`}{' '}
          against <code>{diff.baseBranch}</code> (from <code>{diff.mergeBase.slice(0, 8)}</code>)
          {diff.files.length > 0 && (
            <>
              : <span className="diff-added">+{additions}</span>{' '}
              <span className="diff-removed">−{deletions}</span>
            </>
          )}
        </span>
        <button type="button" onClick={refresh} disabled={refreshing}>
          Refresh
        </button>
      </p>
      {diff.truncated && (
        <p className="muted small">The changes are too large to show whole: the rest is left out.</p>
      )}
      <ul className="changed-files">
        {diff.files.map((file, index) => {
          const patch = patches[index];
          return (
            <li key={file.path} data-file={file.path} data-status={file.status}>
              <details open={diff.files.length <= OPEN_UP_TO}>
                <summary>
                  <code className="changed-path">
                    {file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}
                  </code>{' '}
                  <span className="muted small">{file.status}</span>{' '}
                  {file.binary ? (
                    <span className="muted small">binary</span>
                  ) : (
                    <>
                      <span className="diff-added">+{file.additions}</span>{' '}
                      <span className="diff-removed">−{file.deletions}</span>
                    </>
                  )}
                </summary>
                {patch && patch.lines.some((line) => line.kind !== 'meta') ? (
                  <pre tabIndex={0} className="diff" aria-label={`Changes to ${file.path}`}>
                    {patch.lines
                      .filter((line) => line.kind !== 'meta')
                      .map((line, number) => (
                        <span key={number} className={`diff-line ${line.kind}`}>
                          {line.text}
                          {'\n'}
                        </span>
                      ))}
                  </pre>
                ) : (
                  <p className="muted small">
                    {patch ? 'No line changed.' : 'Not shown: the changes were cut before this file.'}
                  </p>
                )}
              </details>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
