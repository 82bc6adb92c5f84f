import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from './temp-dirs.js';

export const FAKE_CLAUDE = fileURLToPath(new URL('../fixtures/fake-claude', import.meta.url));
export const FAKE_CODEX = fileURLToPath(new URL('../fixtures/fake-codex', import.meta.url));

export interface FakeAssistantSetup {
  /** Variables that point Cairn at the fakes and give the fakes their state and log files. */
  env: Record<string, string>;
  /** Every invocation the fakes logged (one JSON object per turn). */
  invocations(): Array<Record<string, unknown>>;
  cleanup(): void;
}

/** The fake claude and codex executables, with a private session store and invocation log. */
export function fakeAssistants(): FakeAssistantSetup {
  const dir = makeTempDir('cairn-fake-assistant-');
  const log = join(dir.path, 'invocations.jsonl');
  return {
    env: {
      CLAUDE_BIN_PATH: FAKE_CLAUDE,
      CODEX_BIN_PATH: FAKE_CODEX,
      FAKE_ASSISTANT_STATE_DIR: join(dir.path, 'sessions'),
      FAKE_ASSISTANT_LOG: log,
    },
    invocations() {
      if (!existsSync(log)) return [];
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    cleanup: dir.cleanup,
  };
}
