export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1_000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

// Made once each and kept: a toLocale*String call with options builds its formatter again each
// time, and the first one costs a browser tens of milliseconds (its locale data); the run and
// conversation lists paid on every row.
const TIME_FORMATS = {
  today: { hour: '2-digit', minute: '2-digit' },
  otherDay: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
} satisfies Record<string, Intl.DateTimeFormatOptions>;
type TimeFormat = keyof typeof TIME_FORMATS;
const timeFormats = new Map<TimeFormat, Intl.DateTimeFormat>();

function timeFormat(which: TimeFormat): Intl.DateTimeFormat {
  let format = timeFormats.get(which);
  if (!format) timeFormats.set(which, (format = new Intl.DateTimeFormat(undefined, TIME_FORMATS[which])));
  return format;
}

/**
 * Builds the time formats, each in a short task of its own, to be called while the page waits for
 * its first data (the requests sent): that data's render then does not pay for them, and its
 * arrival waits for one at most.
 */
export function prepareTimeFormats(): void {
  for (const which of Object.keys(TIME_FORMATS) as TimeFormat[])
    if (!timeFormats.has(which)) setTimeout(() => timeFormat(which), 0);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  return timeFormat(sameDay ? 'today' : 'otherDay').format(date);
}

export const formatCost = (usd: number) => (usd > 0 ? `$${usd.toFixed(usd < 0.01 ? 4 : 2)}` : '');
export const formatTokens = (tokens: number) => (tokens > 0 ? `${tokens.toLocaleString()} tokens` : '');
