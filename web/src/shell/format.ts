export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1_000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

// Made once and kept: a toLocale*String call with options builds its formatter again each time, and
// the first one costs a browser tens of milliseconds (its locale data), which a run page of a
// hundred timed rows paid on every row.
let timeFormats: { today: Intl.DateTimeFormat; otherDay: Intl.DateTimeFormat } | undefined;
function formats() {
  timeFormats ??= {
    today: new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }),
    otherDay: new Intl.DateTimeFormat(undefined, {
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    }),
  };
  return timeFormats;
}

/**
 * Builds the time formats in a task of their own, to be called while the page waits for its first
 * data (the requests sent): that data's render then does not pay for them.
 */
export function prepareTimeFormats(): void {
  if (!timeFormats) setTimeout(formats, 0);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  return (sameDay ? formats().today : formats().otherDay).format(date);
}

export const formatCost = (usd: number) => (usd > 0 ? `$${usd.toFixed(usd < 0.01 ? 4 : 2)}` : '');
export const formatTokens = (tokens: number) => (tokens > 0 ? `${tokens.toLocaleString()} tokens` : '');
