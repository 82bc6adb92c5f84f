import { expect } from 'chai';
import { generateTitle } from '../../../infra/assistants/generate-title.js';
import { captureLogs } from '../../support/logs.js';
import { FAKE_CLAUDE, configFor, environmentFor, isAlive, makeAssistantSandbox, waitFor } from './helpers.js';

describe('assistants/generateTitle (real SDK, fake claude executable)', () => {
  let sandbox: ReturnType<typeof makeAssistantSandbox>;
  beforeEach(() => {
    sandbox = makeAssistantSandbox();
  });
  afterEach(() => sandbox.cleanup());

  function deps(vars: Record<string, string> = {}) {
    const logs = captureLogs();
    return {
      logs,
      deps: {
        environment: environmentFor({
          CLAUDE_BIN_PATH: FAKE_CLAUDE,
          TITLE_GENERATION_MODEL: 'haiku-test',
          ...vars,
        }),
        config: configFor(sandbox.home),
        logger: logs.logger,
        home: sandbox.home,
        processEnv: sandbox.processEnv(),
        timeoutMs: 5_000,
      },
    };
  }

  it('asks the title model for a title, without tools or a saved session', async () => {
    const title = await generateTitle('fix the flaky login test please', deps().deps);
    expect(title).to.equal('Fix The Flaky Login Test Please');
    const [entry] = sandbox.entries();
    expect(entry?.model).to.equal('haiku-test');
    expect(entry?.argv).to.include.members(['--no-session-persistence', '--max-turns=1']);
  });

  it('falls back to the truncated message when the query fails', async () => {
    const message = `[fake:title-fail]\n${'word '.repeat(30)}`;
    const { deps: failing, logs } = deps();
    const title = await generateTitle(message, failing);
    expect(title.endsWith('…')).to.equal(true);
    expect(title.length).to.be.at.most(60);
    expect(logs.lines.some((line) => line.event === 'assistant.title_fallback')).to.equal(true);
  });

  it('falls back without starting anything when auth is required but missing', async () => {
    const title = await generateTitle('short message', deps({ CLAUDE_USE_GLOBAL_AUTH: 'false' }).deps);
    expect(title).to.equal('short message');
    expect(sandbox.entries()).to.have.length(0);
  });

  it('falls back when the title query hangs past its timeout', async () => {
    const { deps: slow } = deps();
    const title = await generateTitle('[fake:title-hang]\nnever answered', { ...slow, timeoutMs: 300 });
    expect(title).to.equal('[fake:title-hang] never answered');
    const pid = sandbox.entries()[0]?.pid as number;
    await waitFor(() => !isAlive(pid), 'the hung title query to die');
  });
});
