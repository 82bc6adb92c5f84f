export interface SseFrame {
  id?: number;
  data: Record<string, unknown> & { type: string };
}

export interface SseConnection {
  status: number;
  headers: Headers;
  frames: SseFrame[];
  /** Comment lines received (heartbeats). */
  comments: string[];
  /** Resolves with the first frame (from the start) matching, or rejects after timeoutMs. */
  waitFor(predicate: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  waitForComment(text: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** A small EventSource over fetch: parses frames as a browser would, for assertions. */
export async function openSse(url: string, options: { lastEventId?: number } = {}): Promise<SseConnection> {
  const controller = new AbortController();
  const headers: Record<string, string> = { Accept: 'text/event-stream' };
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = String(options.lastEventId);
  const response = await fetch(url, { headers, signal: controller.signal });
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  if (response.body && response.status === 200) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id: number | undefined;
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line.slice(1).trim());
              else if (line.startsWith('id:')) id = Number(line.slice(3).trim());
              else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
            }
            if (data.length > 0) frames.push({ id, data: JSON.parse(data.join('\n')) as SseFrame['data'] });
          }
          notify();
        }
      } catch {
        // aborted by close()
      }
    })();
  }

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const attempt = () => {
        const found = check();
        if (found === undefined) return false;
        waiters.delete(attempt);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(attempt);
        reject(
          new Error(
            `timed out waiting for ${what}; frames: ${JSON.stringify(frames.map((f) => f.data.type))}`,
          ),
        );
      }, timeoutMs);
      if (!attempt()) waiters.add(attempt);
    });

  return {
    status: response.status,
    headers: response.headers,
    frames,
    comments,
    waitFor: (predicate, timeoutMs = 20_000) => waitUntil(() => frames.find(predicate), timeoutMs, 'a frame'),
    waitForComment: (text, timeoutMs = 20_000) =>
      waitUntil(() => (comments.includes(text) ? true : undefined), timeoutMs, `comment ${text}`).then(
        () => undefined,
      ),
    close: () => controller.abort(),
  };
}
