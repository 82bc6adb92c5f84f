/**
 * Passes `source` through, but calls `onTimeout` (which must throw) when its first item takes
 * longer than `timeoutMs`: a subprocess that never says anything is hung, not slow.
 */
export async function* withFirstEventTimeout<T>(
  source: AsyncIterable<T>,
  timeoutMs: number,
  onTimeout: () => Promise<never>,
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const first = iterator.next();
  let winner: IteratorResult<T> | 'timeout';
  try {
    winner = await Promise.race([first, timedOut]);
  } finally {
    clearTimeout(timer);
  }
  if (winner === 'timeout') {
    first.catch(() => undefined); // settles once the subprocess is killed
    await onTimeout();
  }
  if (winner === 'timeout' || winner.done) return;
  yield winner.value;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return;
    yield next.value;
  }
}
