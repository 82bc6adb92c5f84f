import { useEffect, useState } from 'react';
import { NavLink, Outlet } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { getJson } from '../api/client';
import type { DashboardPage } from '../api/types';
import type { StreamState } from '../api/event-stream';
import type { operations } from '../api/schema';
import { onFeedState, onRunFrame, startRunFeed } from './live-feed';
import { showWaitingApprovals } from './attention';
import { prepareTimeFormats } from './format';

type Session = operations['getSignInSession']['responses'][200]['content']['application/json'];

/** Run lists refresh at most this often while events pour in. */
const REFRESH_EVERY_MS = 500;

/** Follows the run feed for the whole page and refreshes the run lists (coalesced) on each event. */
function useLiveRuns() {
  const queries = useQueryClient();
  useEffect(() => {
    const stopFeed = startRunFeed();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopListening = onRunFrame(() => {
      timer ??= setTimeout(() => {
        timer = undefined;
        void queries.invalidateQueries({ queryKey: ['runs'] });
      }, REFRESH_EVERY_MS);
    });
    return () => {
      clearTimeout(timer);
      stopListening();
      stopFeed();
    };
  }, [queries]);
}

function NotifyButton() {
  const [permission, setPermission] = useState(() =>
    typeof Notification === 'undefined' ? 'denied' : Notification.permission,
  );
  if (permission !== 'default') return null;
  return (
    <button
      type="button"
      className="quiet"
      onClick={() => void Notification.requestPermission().then(setPermission)}
      title="Get a browser notification when a run waits for approval"
    >
      Notify me
    </button>
  );
}

export function Layout() {
  useLiveRuns();
  const [feed, setFeed] = useState<StreamState>('connecting');
  useEffect(() => onFeedState(setFeed), []);
  // After the first render's effects, so the page's own requests are already on their way.
  useEffect(prepareTimeFormats, []);
  const counts = useQuery({
    queryKey: ['runs', 'counts'],
    queryFn: () => getJson<DashboardPage>('/api/dashboard/runs?limit=1'),
  });
  const session = useQuery({ queryKey: ['session'], queryFn: () => getJson<Session>('/api/auth/session') });
  const waiting = counts.data?.counts.paused ?? 0;
  useEffect(() => {
    showWaitingApprovals(waiting);
  }, [waiting]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <NavLink to="/" className="brand" aria-label="Cairn home">
          Cairn
        </NavLink>
        <nav aria-label="Main">
          <NavLink to="/" end>
            Chat
          </NavLink>
          <NavLink to="/runs">
            Runs
            {waiting > 0 && (
              <span className="count" aria-label={`${waiting} waiting for approval`}>
                {waiting}
              </span>
            )}
          </NavLink>
          <NavLink to="/workflows">Workflows</NavLink>
          <NavLink to="/codebases">Codebases</NavLink>
          <NavLink to="/settings">Settings</NavLink>
        </nav>
        <div className="top-end">
          <NotifyButton />
          {session.data?.signedIn && session.data.passwordSignIn && (
            <form method="post" action="/logout">
              <button type="submit" className="quiet">
                Sign out
              </button>
            </form>
          )}
        </div>
      </header>
      {feed === 'reconnecting' && (
        <div className="banner" role="status">
          Connection lost. Reconnecting…
        </div>
      )}
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
