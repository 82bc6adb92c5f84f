import {
  createRequesterFn,
  getMatchingRateLimiter,
  GitbeakerRequestError,
  GitbeakerTimeoutError,
  type FormattedResponse,
  type RateLimiters,
  type ResponseBodyTypes,
} from '@gitbeaker/requester-utils';

// GitBeaker's own request handler answers a 429 or a 502 by calling again ten times within a
// quarter of a second, whatever Retry-After says, and then throws an error without the response.
// This one calls once and throws every refusal with its response (status and headers), so the
// client's waitOutRateLimits waits as long as GitLab asked, and the activity retries the rest.

async function bodyOf(response: Response): Promise<ResponseBodyTypes> {
  if (response.status === 204) return null;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (type === 'application/json') return ((await response.json()) as ResponseBodyTypes) ?? {};
  if (type.startsWith('text/')) return await response.text();
  return await response.blob();
}

async function refusal(request: Request, response: Response): Promise<never> {
  const content = await response.text();
  let description = content;
  if (response.headers.get('content-type')?.includes('application/json')) {
    try {
      const parsed = JSON.parse(content) as { error?: unknown; message?: unknown };
      const said = parsed?.error ?? parsed?.message ?? '';
      description = typeof said === 'string' ? said : JSON.stringify(said);
    } catch {
      // Not JSON after all: the text is the description.
    }
  }
  throw new GitbeakerRequestError(description, { cause: { description, request, response } });
}

async function requestOnce(
  endpoint: string,
  options: Record<string, unknown> = {},
): Promise<FormattedResponse> {
  const { rateLimiters, agent, asStream, prefixUrl, searchParams, method, ...rest } = options as {
    rateLimiters?: RateLimiters;
    agent?: unknown;
    asStream?: boolean;
    prefixUrl?: string;
    searchParams?: string;
    method?: string;
  } & RequestInit;
  const base = prefixUrl && !prefixUrl.endsWith('/') ? `${prefixUrl}/` : prefixUrl;
  const url = new URL(endpoint, base);
  url.search = searchParams ?? '';
  const request = new Request(url, { ...rest, method });
  // GitBeaker's client-side limiter (its rateLimits option) still paces the calls.
  await getMatchingRateLimiter(endpoint, rateLimiters, method)();
  const response = await fetch(request, agent ? ({ dispatcher: agent } as RequestInit) : undefined).catch(
    (error: Error) => {
      if (error.name === 'TimeoutError' || error.name === 'AbortError') {
        throw new GitbeakerTimeoutError('Query timeout was reached');
      }
      throw error;
    },
  );
  if (!response.ok) return refusal(request, response);
  return {
    body: asStream ? (response.body as ResponseBodyTypes) : await bodyOf(response),
    headers: Object.fromEntries(response.headers.entries()),
    status: response.status,
  };
}

/** GitBeaker's requester with one call per request: waits and retries are the caller's. */
export const singleCallRequester = createRequesterFn((_, options) => Promise.resolve(options), requestOnce);
