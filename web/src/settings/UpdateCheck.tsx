import { useQuery } from '@tanstack/react-query';
import { getJson } from '../api/client';
import type { operations } from '../api/schema';
import { ErrorNote } from '../shell/ErrorNote';

type UpdateInfo = operations['checkForUpdate']['responses'][200]['content']['application/json'];

/** `GET /api/update-check` as a reader wants it: up to date, an update, or why nothing was asked. */
export function UpdateCheck() {
  const update = useQuery({
    queryKey: ['update-check'],
    queryFn: () => getJson<UpdateInfo>('/api/update-check'),
    retry: false,
  });
  return (
    <section aria-labelledby="update-title">
      <h2 id="update-title">Updates</h2>
      {update.isPending && <p className="muted">Checking…</p>}
      {update.isError && (
        <>
          <p>The update check failed.</p>
          <ErrorNote error={update.error} retry={() => void update.refetch()} />
        </>
      )}
      {update.data && <UpdateFacts info={update.data} />}
    </section>
  );
}

function UpdateFacts({ info }: { info: UpdateInfo }) {
  const releases = info.releaseUrl ? (
    <a href={info.releaseUrl} target="_blank" rel="noreferrer">
      the releases
    </a>
  ) : undefined;
  return (
    <>
      <dl className="facts">
        <dt>Running</dt>
        <dd>{info.currentVersion}</dd>
        <dt>Latest</dt>
        <dd>{info.checked ? info.latestVersion : 'not checked'}</dd>
      </dl>
      <p data-update-state={info.checked ? (info.updateAvailable ? 'available' : 'current') : 'off'}>
        {!info.checked && (
          <>
            The update check is off: this is a source build, which updates with <code>git pull</code>, so no
            release server is asked.{releases && <> See {releases}.</>}
          </>
        )}
        {info.checked && info.updateAvailable && (
          <>
            <strong>Version {info.latestVersion} is available.</strong>
            {releases && <> See {releases}.</>}
          </>
        )}
        {info.checked && !info.updateAvailable && <>Up to date.</>}
      </p>
    </>
  );
}
