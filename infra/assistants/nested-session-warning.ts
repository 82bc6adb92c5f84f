import { nestedSessionWarning } from '../../config/dotenv.js';
import { isInsideClaudeSession } from '../../config/claude-session-markers.js';

/** `suppressed` is CAIRN_SUPPRESS_NESTED_CLAUDE_WARNING as read into the Environment. */
export type NestedSessionWarner = (env: NodeJS.ProcessEnv, suppressed: boolean) => boolean;

/**
 * A warner that prints at most once in its lifetime. The CLI's boot already strips the markers
 * and warns; this catches embedders (tests, scripts) that start assistants without that boot.
 */
export function createNestedSessionWarner(write: (text: string) => unknown): NestedSessionWarner {
  let warned = false;
  return (env, suppressed) => {
    if (warned || suppressed || !isInsideClaudeSession(env)) return false;
    warned = true;
    write(nestedSessionWarning());
    return true;
  };
}

/** The process-wide warner: one warning per process on stderr. */
export const warnIfNestedOnce: NestedSessionWarner = createNestedSessionWarner((text) =>
  process.stderr.write(text),
);
