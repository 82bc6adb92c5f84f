import { ApiError } from '../api/client';

/** A failed request, as the user reads it: the server's own words when it sent a problem. */
export function ErrorNote({ error, retry }: { error: unknown; retry?: () => void }) {
  const text =
    error instanceof ApiError
      ? (error.problem?.detail ?? `The server answered ${error.status}.`)
      : 'The server cannot be reached. Retrying…';
  return (
    <div className="error-note" role="alert">
      <span>{text}</span>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
