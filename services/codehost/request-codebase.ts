import { findCodebaseByRepositoryKey } from '../../db/repositories/codebases.js';
import type { CodeHostRequest } from '../../domain/codehost/code-host-request.js';
import { parseCommand, readsCodebaseFiles } from '../../domain/commands/command-grammar.js';
import { gitCredentialsForUrl, scrubCredentials } from '../../infra/git/credentials.js';
import { codeHostCredentialName } from '../../config/code-host-auth.js';
import { bringCheckoutUpToDate } from '../codebases/checkout-update.js';
import { identityForUrl } from '../codebases/identity-for-url.js';
import { registerByUrl, type TemporalAccess } from '../codebases/registration-client.js';
import { RegistrationError } from '../codebases/registration-outcome.js';
import type { ServiceContext } from '../context.js';

/** The codebase a request works on, or why there is none (said in the thread). */
export type RequestCodebase = { codebaseId: string } | { problem: string };

/**
 * The codebase of the request's repository: the registered one, or a clone made now, on the
 * repository's first mention, through the same registration workflow as `POST /api/codebases`
 * (the platform's token sent as a header git keeps out of the clone's config). A repository the
 * token cannot read, or one whose env files hold assistant keys, gives a problem to answer with.
 */
export async function codebaseForRequest(
  context: ServiceContext,
  temporal: TemporalAccess,
  request: CodeHostRequest,
): Promise<RequestCodebase> {
  return (
    (await registeredCodebaseForRequest(context, request)) ??
    readProblems(context, request, () => registerForRequest(context, temporal, request))
  );
}

/**
 * The codebase of the request's repository when it is registered already (its checkout brought
 * up to date for what reads its files), a problem to answer with, or undefined: the repository
 * has to be cloned first ({@link codebaseForRequest}).
 */
export async function registeredCodebaseForRequest(
  context: ServiceContext,
  request: CodeHostRequest,
): Promise<RequestCodebase | undefined> {
  const { cloneUrl, path } = request.repository;
  // The platforms clone over http(s); anything else in a payload (a path, file://) is not theirs.
  if (!/^https?:\/\//i.test(cloneUrl)) {
    context.logger.warn(
      { event: 'code_host.clone_url_refused', platform: request.platform, repository: path },
      'a clone URL that is not http(s)',
    );
    return { problem: `I cannot clone ${path}: its clone URL is not an http(s) address.` };
  }
  return readProblems(context, request, async () => {
    const known = await findCodebaseByRepositoryKey(context.db.knex, identityForUrl(cloneUrl).key);
    if (!known) return undefined;
    // Workflows and config come from the default branch as it is now, not as first cloned
    // (for what reads them: `/status` and the like do not wait for a fetch).
    if (readsCodebaseFiles(parseCommand(request.text)))
      await bringCheckoutUpToDate(context, known, 'code_host');
    return { codebaseId: known.id };
  });
}

/** Clones the repository, or waits for the clone another request started (RegistrationInProgress). */
async function registerForRequest(
  context: ServiceContext,
  temporal: TemporalAccess,
  request: CodeHostRequest,
): Promise<RequestCodebase> {
  const { cloneUrl, path } = request.repository;
  const outcome = await registerByUrl(
    temporal,
    { url: cloneUrl, allowEnvKeys: false },
    { whileRegistering: 'come_back' },
  );
  if (outcome.outcome === 'registered') {
    if (outcome.created)
      context.logger.info({
        event: 'code_host.codebase_registered',
        platform: request.platform,
        repository: path,
        codebaseId: outcome.codebase.id,
      });
    return { codebaseId: outcome.codebase.id };
  }
  const files = outcome.scan.findings.map((finding) => finding.file).join(', ');
  context.logger.info({ event: 'code_host.codebase_blocked', platform: request.platform, repository: path });
  return {
    problem:
      `${path} has assistant keys in its env files (${files}), so I do not work on it without the ` +
      `operator's consent: register it with \`cairn codebase add <url> --allow-env-keys\` (or remove the keys), then ask again.`,
  };
}

/** A repository the token cannot read (or an address no clone can use) becomes a problem to answer with. */
async function readProblems<T>(
  context: ServiceContext,
  request: CodeHostRequest,
  work: () => Promise<T>,
): Promise<T | RequestCodebase> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof RegistrationError)) throw error;
    const { secrets } = await gitCredentialsForUrl(request.repository.cloneUrl, context.environment);
    const detail = scrubCredentials(error.message, secrets);
    context.logger.warn({
      event: 'code_host.clone_failed',
      platform: request.platform,
      repository: request.repository.path,
      code: error.code,
      detail,
    });
    return {
      problem:
        `I cannot read ${request.repository.path} with the configured ${codeHostCredentialName(context.environment, request.platform)}, so I cannot work on it. ` +
        `Give the token read access to the repository's contents, then ask again.\n\n> ${detail.split('\n').join('\n> ')}`,
    };
  }
}
