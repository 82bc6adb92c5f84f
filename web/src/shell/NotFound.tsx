import { Link } from 'react-router';

export function NotFound({ what = 'page' }: { what?: string }) {
  return (
    <section className="not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Not found</h1>
      <p>There is no {what} at this address. It may have been deleted, or the link is wrong.</p>
      <p>
        <Link to="/">Conversations</Link> · <Link to="/runs">Runs</Link>
      </p>
    </section>
  );
}
