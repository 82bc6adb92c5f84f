import {
  findCodebase,
  listCodebases,
  type Codebase,
  type CodebasePosition,
} from '../../db/repositories/codebases.js';
import { listEnvironments, type IsolationEnvironment } from '../../db/repositories/isolation-environments.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../service-error.js';

export async function existingCodebase(context: ServiceContext, id: string): Promise<Codebase> {
  const codebase = await findCodebase(context.db.reader, id);
  if (!codebase) throw ServiceError.notFound(`No codebase with id ${id}.`);
  return codebase;
}

export interface CodebasePage {
  items: Codebase[];
  /** Where the next page starts after; absent on the last page. */
  next?: CodebasePosition;
}

/** Codebases oldest first, at most `limit` of them, from just after `after`. */
export async function listCodebasePage(
  context: ServiceContext,
  page: { after?: CodebasePosition; limit: number },
): Promise<CodebasePage> {
  // One row past the page says whether another page follows.
  const rows = await listCodebases(context.db.reader, { after: page.after, limit: page.limit + 1 });
  if (rows.length <= page.limit) return { items: rows };
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1]!;
  return { items, next: { createdAt: last.createdAt, id: last.id } };
}

/** A codebase's isolation environments, active and destroyed. */
export async function listCodebaseEnvironments(
  context: ServiceContext,
  id: string,
): Promise<IsolationEnvironment[]> {
  const codebase = await existingCodebase(context, id);
  return listEnvironments(context.db.knex, codebase.id);
}
