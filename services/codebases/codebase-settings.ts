import { updateCodebase, type Codebase } from '../../db/repositories/codebases.js';
import type { ServiceContext } from '../context.js';
import { existingCodebase } from './codebase-queries.js';
import { logConsentChange, scanOrUnreadable } from './env-leak-audit.js';

export interface CodebaseChanges {
  allowEnvKeys?: boolean;
  name?: string;
}

/** Renames a codebase or grants/revokes env-key consent; each consent change is audited. */
export async function changeCodebase(
  context: ServiceContext,
  id: string,
  changes: CodebaseChanges,
  actor: string,
): Promise<Codebase> {
  const codebase = await existingCodebase(context, id);
  const consentChanges = changes.allowEnvKeys !== undefined && changes.allowEnvKeys !== codebase.allowEnvKeys;
  // Scanned before the update: the audit line must exist even if the checkout has gone.
  const scan = consentChanges ? await scanOrUnreadable(codebase.sourcePath) : undefined;
  const updated = await updateCodebase(context.db.knex, codebase.id, changes);
  if (scan) {
    logConsentChange(context.logger, {
      granted: changes.allowEnvKeys!,
      codebaseId: codebase.id,
      path: codebase.sourcePath,
      scan,
      actor,
    });
  }
  return updated ?? codebase;
}
