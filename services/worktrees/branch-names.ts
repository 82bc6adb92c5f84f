import { createHash } from 'node:crypto';
import type { EnvironmentKind } from '../../db/repositories/isolation-environments.js';

/** Every branch Cairn creates lives under this prefix, so it never collides with people's branches. */
export const BRANCH_PREFIX = 'cairn/';

const MAX_SLUG = 50;
const RUN_SLUG = 12;

function shortHash(key: string, length: number): string {
  return createHash('sha256').update(key).digest('hex').slice(0, length);
}

/** Lowercase, `[a-z0-9-]` only, dashes collapsed and trimmed, at most `max` characters. */
export function slugify(text: string, max = MAX_SLUG): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
}

/** `42`, `#42` → `42`; anything else has no number. */
function issueNumber(key: string): string | undefined {
  const match = /^#?0*(\d{1,18})$/.exec(key.trim());
  return match ? match[1] : undefined;
}

/**
 * A task key that is already a clean slug names its branch as is; any other key (spaces,
 * capitals, truncated) gets a short hash as well, because two such keys can slugify alike
 * ("Fix login" and "fix login!") and must not share a branch.
 */
function taskPart(key: string): string {
  const slug = slugify(key);
  if (!slug) return shortHash(key, 10);
  return slug === key ? slug : `${slugify(key, MAX_SLUG - 7)}-${shortHash(key, 6)}`;
}

/** Issue and PR keys are numbers; a key that is not one still gets a stable, collision-free name. */
function numberPart(key: string): string {
  const number = issueNumber(key);
  if (number) return number;
  const slug = slugify(key, MAX_SLUG - 7);
  return slug ? `${slug}-${shortHash(key, 6)}` : shortHash(key, 10);
}

function namePart(kind: EnvironmentKind, key: string): string {
  switch (kind) {
    case 'thread':
      return `thread-${shortHash(key, 10)}`;
    case 'task':
      return `task-${taskPart(key)}`;
    case 'issue':
      return `issue-${numberPart(key)}`;
    case 'pr':
      return `pr-${numberPart(key)}`;
    case 'run': {
      // Truncated slugs of different keys can match (deploy-staging-1/-2): the hash keeps them apart.
      const slug = slugify(key, RUN_SLUG);
      return slug === key ? `run-${slug}` : `run-${slug ? `${slug}-` : ''}${shortHash(key, 6)}`;
    }
    default:
      throw new Error(`unknown isolation environment kind: ${String(kind)}`);
  }
}

/**
 * The branch of an environment, the same for the same (kind, key) every time:
 * `cairn/thread-<sha256 10>`, `cairn/task-<slug>`, `cairn/issue-<n>`, `cairn/pr-<n>`,
 * `cairn/run-<first 12 of the key's slug>`.
 */
export function environmentBranch(kind: EnvironmentKind, key: string): string {
  return `${BRANCH_PREFIX}${namePart(kind, key)}`;
}

/** The worktree folder name: the branch without its prefix, already `[a-z0-9-]` only. */
export function worktreeDirName(kind: EnvironmentKind, key: string): string {
  return namePart(kind, key);
}
