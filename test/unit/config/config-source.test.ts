import path from 'node:path';
import { utimesSync, rmSync } from 'node:fs';
import { expect } from 'chai';
import {
  createConfigSource,
  type ConfigSource,
  type ConfigSourceOptions,
} from '../../../config/config-source.js';
import { readEnvironment } from '../../../config/environment.js';
import { captureLogs, tempDirs, writeFile } from './helpers.js';

const waitUntil = async (condition: () => boolean, timeoutMs = 3_000): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
};

/**
 * Writes a file and gives it a fixed modification time, so that rewriting it with text of the
 * same length leaves its signature as it was: only a watch sees such an edit.
 */
function writeWithFixedTime(file: string, text: string): void {
  writeFile(file, text);
  const fixed = new Date('2024-01-01T00:00:00Z');
  utimesSync(file, fixed, fixed);
}

describe('config/config-source', () => {
  const temp = tempDirs();
  const sources: ConfigSource[] = [];
  let home: string;
  let repo: string;
  let logs: ReturnType<typeof captureLogs>;

  beforeEach(() => {
    home = temp.make();
    repo = temp.make();
    logs = captureLogs('debug');
  });
  afterEach(() => {
    for (const source of sources.splice(0)) source.close();
    temp.cleanup();
  });

  const source = (options: Partial<ConfigSourceOptions> = {}) => {
    const made = createConfigSource({
      home,
      environment: readEnvironment({}),
      logger: logs.logger,
      ...options,
    });
    sources.push(made);
    return made;
  };
  const globalFile = () => path.join(home, 'config.yaml');
  const repoFile = (root = repo) => path.join(root, '.cairn', 'config.yaml');
  const reads = (file: string) =>
    logs.lines.filter((line) => line.event === 'config.file_loaded' && line.file === file).length;

  it('reads each file once and answers the same frozen object while nothing changes', () => {
    writeFile(globalFile(), 'defaultAssistant: codex\n');
    writeFile(repoFile(), 'docs:\n  path: handbook\n');
    const config = source();
    const first = config.forRepository(repo);
    for (let i = 0; i < 5; i += 1) {
      expect(config.forRepository(repo)).to.equal(first);
      expect(config.global().effective.defaultAssistant).to.equal('codex');
    }
    expect(Object.isFrozen(first)).to.equal(true);
    expect(Object.isFrozen(first.effective.docs)).to.equal(true);
    expect(first.effective).to.include({ defaultAssistant: 'codex' });
    expect(first.effective.docs.path).to.equal('handbook');
    expect(reads(globalFile())).to.equal(1);
    expect(reads(repoFile())).to.equal(1);
  });

  it('sees a file created, edited and removed without a restart', () => {
    const config = source();
    expect(config.forRepository(repo).effective.docs.path).to.equal('docs');
    writeFile(repoFile(), 'docs:\n  path: handbook\n');
    expect(config.forRepository(repo).effective.docs.path).to.equal('handbook');
    writeFile(repoFile(), 'docs:\n  path: guides/for-everyone\n');
    expect(config.forRepository(repo).effective.docs.path).to.equal('guides/for-everyone');
    rmSync(repoFile());
    expect(config.forRepository(repo).effective.docs.path).to.equal('docs');

    writeFile(globalFile(), 'concurrency:\n  maxConversations: 3\n');
    expect(config.global().effective.concurrency.maxConversations).to.equal(3);
    // The global file is a layer of every repository's config too.
    expect(config.forRepository(repo).effective.concurrency.maxConversations).to.equal(3);
    writeFile(globalFile(), 'concurrency:\n  maxConversations: 4\n');
    expect(config.global().effective.concurrency.maxConversations).to.equal(4);
    expect(logs.lines.some((line) => line.event === 'config.changed' && line.file === globalFile())).to.equal(
      true,
    );
  });

  const limit = (config: ConfigSource) => config.global().effective.concurrency.maxConversations;

  it('sees through its watch an edit that leaves size and times as they were', async () => {
    writeWithFixedTime(globalFile(), 'concurrency:\n  maxConversations: 3\n');
    const config = source();
    expect(limit(config)).to.equal(3);
    writeWithFixedTime(globalFile(), 'concurrency:\n  maxConversations: 4\n');
    expect(await waitUntil(() => limit(config) === 4)).to.equal(true);
  });

  it('releases its watches on close, and still sees ordinary changes after it', async () => {
    writeWithFixedTime(globalFile(), 'concurrency:\n  maxConversations: 3\n');
    const config = source();
    expect(limit(config)).to.equal(3);
    config.close();
    writeWithFixedTime(globalFile(), 'concurrency:\n  maxConversations: 4\n');
    // Only a watch could see that edit, and none is left.
    expect(await waitUntil(() => limit(config) === 4, 300)).to.equal(false);
    writeFile(globalFile(), 'concurrency:\n  maxConversations: 5 # a longer file\n');
    expect(limit(config)).to.equal(5);
  });

  it('reads every file again on reload()', () => {
    writeWithFixedTime(globalFile(), 'concurrency:\n  maxConversations: 3\n');
    writeWithFixedTime(repoFile(), 'docs:\n  path: aaaa\n');
    const config = source({ watch: false });
    expect(limit(config)).to.equal(3);
    expect(config.forRepository(repo).effective.docs.path).to.equal('aaaa');
    writeWithFixedTime(globalFile(), 'concurrency:\n  maxConversations: 4\n');
    writeWithFixedTime(repoFile(), 'docs:\n  path: bbbb\n');
    expect(limit(config)).to.equal(3);
    config.reload();
    expect(limit(config)).to.equal(4);
    expect(config.forRepository(repo).effective.docs.path).to.equal('bbbb');
  });

  it('keeps only the most recently used repositories', () => {
    const repos = [temp.make(), temp.make(), temp.make()];
    for (const root of repos) writeFile(repoFile(root), 'docs:\n  path: handbook\n');
    const config = source({ maxRepositories: 2 });
    for (const root of repos) config.forRepository(root);
    config.forRepository(repos[2]!);
    config.forRepository(repos[1]!);
    expect(repos.map((root) => reads(repoFile(root)))).to.deep.equal([1, 1, 1]);
    config.forRepository(repos[0]!);
    expect(reads(repoFile(repos[0]!))).to.equal(2);
  });

  it('applies the environment over both files, as loadConfig does', () => {
    writeFile(globalFile(), 'defaultAssistant: codex\n');
    writeFile(repoFile(), 'assistant: codex\n');
    const config = source({ environment: readEnvironment({ DEFAULT_AI_ASSISTANT: 'claude' }) });
    expect(config.forRepository(repo).effective.defaultAssistant).to.equal('claude');
    expect(config.forRepository(repo).sources).to.deep.equal({
      globalFile: globalFile(),
      repositoryFile: repoFile(),
    });
  });
});
