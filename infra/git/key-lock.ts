const tails = new Map<string, Promise<void>>();

/**
 * Runs `task` after every earlier task with the same key has finished, within this process.
 * Git keeps locks of its own (refs, index, worktree admin files) and fails rather than waits
 * when two commands collide, so operations on one repository take turns here.
 */
export async function withKeyLock<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => current);
  tails.set(key, tail);
  await previous;
  try {
    return await task();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
