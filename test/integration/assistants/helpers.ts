import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { EffectiveConfig } from '../../../config/config-types.js';
import { configDefaults } from '../../../config/defaults.js';
import { readEnvironment, type Environment } from '../../../config/environment.js';
import { homeLayout } from '../../../config/paths.js';
import type { AssistantChunk } from '../../../infra/assistants/types.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { rejection } from '../../support/processes.js';

export { FAKE_CLAUDE, FAKE_CODEX } from '../../support/fake-assistants.js';
export { isAlive, readPid, waitFor } from '../../support/processes.js';

export interface FakeLogEntry {
  assistant: 'claude' | 'codex';
  pid: number;
  argv: string[];
  cwd: string;
  envNames: string[];
  echoedEnv: Record<string, string | null>;
  prompt: string;
  model?: string;
  resume?: string;
  sessionId?: string;
  workingDirectory?: string;
  codexAuth?: { keys: string[]; tokens: string[] } | null;
  [key: string]: unknown;
}

/** A temp folder with a home, a working directory, fake state and the fake's invocation log. */
export function makeAssistantSandbox() {
  const dir = makeTempDir('cairn-assistants-');
  const home = path.join(dir.path, 'home');
  const cwd = path.join(dir.path, 'repo');
  const log = path.join(dir.path, 'fake.log.jsonl');
  const state = path.join(dir.path, 'fake-state');
  const childPidFile = path.join(dir.path, 'child.pid');
  for (const folder of [home, cwd]) mkdirSync(folder);
  return {
    root: dir.path,
    home,
    cwd,
    log,
    childPidFile,
    cleanup: dir.cleanup,
    /** What every fake needs: PATH and HOME, plus the fake's own switches. */
    processEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
      return {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        FAKE_ASSISTANT_LOG: log,
        FAKE_ASSISTANT_STATE_DIR: state,
        FAKE_ASSISTANT_CHILD_PID_FILE: childPidFile,
        ...extra,
      };
    },
    entries(): FakeLogEntry[] {
      if (!existsSync(log)) return [];
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as FakeLogEntry);
    },
  };
}

export function environmentFor(vars: Record<string, string>): Environment {
  return readEnvironment(vars);
}

export function configFor(home: string, change?: (config: EffectiveConfig) => void): EffectiveConfig {
  const config = configDefaults(homeLayout(home));
  change?.(config);
  return config;
}

export async function collect(chunks: AsyncIterable<AssistantChunk>): Promise<AssistantChunk[]> {
  const all: AssistantChunk[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

export function replyText(chunks: AssistantChunk[]): string {
  return chunks.map((chunk) => (chunk.kind === 'text' ? chunk.text : '')).join('');
}

/** What an assistant call rejects with (its `code`, when it has one). */
export const caught = (promise: Promise<unknown>) => rejection<{ code?: string; message: string }>(promise);
