import type { Codebase } from '../../db/repositories/codebases.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';
import { logConsentChange, scanOrUnreadable } from './env-leak-audit.js';
import { envLeakRefusal } from './env-leak-refusal.js';
import { registerLocalPath } from './register-local-path.js';
import { registerByUrl, type TemporalAccess } from './registration-client.js';
import { RegistrationError, type RegistrationOutcome } from './registration-outcome.js';

export interface RegistrationRequest {
  /** Exactly one of url and path. */
  url?: string;
  path?: string;
  allowEnvKeys: boolean;
  name?: string;
  /** Who asked, for the audit line of a consent given at registration. */
  actor: string;
}

/** Input that cannot name a repository: the field it came in is at fault. */
const BAD_INPUT = new Set<RegistrationError['code']>([
  'not_a_git_repository',
  'path_not_found',
  'bare_repository',
  'invalid_url',
]);

function refusal(error: RegistrationError): ServiceError {
  const field = error.code === 'invalid_url' || error.code === 'clone_failed' ? 'url' : 'path';
  if (BAD_INPUT.has(error.code)) {
    return ServiceError.invalid(error.code, error.message, [
      { path: `/body/${field}`, message: error.message },
    ]);
  }
  // Something already occupies the codebase's workspace folder: the request clashes with state.
  if (error.code === 'workspace_conflict') return ServiceError.conflict(error.message, undefined, error.code);
  return new ServiceError({ kind: 'unprocessable', code: error.code, detail: error.message });
}

async function register(
  context: ServiceContext,
  temporal: TemporalAccess,
  request: RegistrationRequest,
): Promise<RegistrationOutcome> {
  const { allowEnvKeys, name } = request;
  try {
    return request.path !== undefined
      ? await registerLocalPath(context, { path: request.path, allowEnvKeys, name })
      : await registerByUrl(temporal, { url: request.url!, allowEnvKeys, name });
  } catch (error) {
    if (error instanceof RegistrationError) throw refusal(error);
    throw error;
  }
}

/**
 * Registers a codebase by linking a local checkout or by cloning a URL (through Temporal). The
 * same repository again gives the existing codebase (`created: false`). Assistant keys in the
 * repository's env files refuse it unless the caller consents, and that consent is audited.
 */
export async function registerCodebase(
  context: ServiceContext,
  temporal: TemporalAccess,
  request: RegistrationRequest,
): Promise<{ codebase: Codebase; created: boolean }> {
  const outcome = await register(context, temporal, request);
  if (outcome.outcome === 'blocked') throw envLeakRefusal(outcome.scan, outcome.checkedPath);
  const { codebase, created } = outcome;
  if (created && request.allowEnvKeys) {
    logConsentChange(context.logger, {
      granted: true,
      codebaseId: codebase.id,
      path: codebase.sourcePath,
      scan: await scanOrUnreadable(codebase.sourcePath),
      actor: request.actor,
    });
  }
  return { codebase, created };
}
