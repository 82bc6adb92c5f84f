import { expect } from 'chai';
import type { components } from '../../../web/src/api/schema.js';
import { assistantPatch, draftOf, fieldErrors } from '../../../web/src/settings/assistant-settings.js';

type Config = components['schemas']['Config'];

/** Only the part of the configuration the assistant form reads. */
const config = (assistants: Config['assistants']) => ({ defaultAssistant: 'claude', assistants }) as Config;

const AS_FILED = config({
  claude: { model: 'sonnet', settingSources: ['project'], binaryPath: null },
  codex: {
    model: null,
    modelReasoningEffort: 'low',
    webSearchMode: null,
    additionalDirectories: ['/srv/a'],
    binaryPath: null,
  },
});

describe('the settings form model (web/src/settings/assistant-settings.ts)', () => {
  it('sends nothing when nothing changed, whitespace and order of sources aside', () => {
    expect(assistantPatch(AS_FILED, draftOf(AS_FILED))).to.deep.equal({});
    const draft = { ...draftOf(AS_FILED), claudeModel: ' sonnet ', codexDirectories: '\n /srv/a \n\n' };
    expect(assistantPatch(AS_FILED, draft)).to.deep.equal({});
  });

  it('sends only the settings that changed; an emptied one is null (back to its default)', () => {
    const draft = {
      ...draftOf(AS_FILED),
      claudeSources: ['user', 'project'] as Array<'user' | 'project'>,
      codexEffort: '',
      codexWebSearch: 'live',
    };
    expect(assistantPatch(AS_FILED, draft)).to.deep.equal({
      claude: { settingSources: ['project', 'user'] },
      codex: { modelReasoningEffort: null, webSearchMode: 'live' },
    });
    expect(assistantPatch(AS_FILED, { ...draftOf(AS_FILED), codexDirectories: '' })).to.deep.equal({
      codex: { additionalDirectories: null },
    });
    expect(assistantPatch(AS_FILED, { ...draftOf(AS_FILED), claudeSources: [] })).to.deep.equal({
      claude: { settingSources: [] },
    });
  });

  it("puts a 400's errors beside the fields they name, a directory's with its line", () => {
    const draft = { ...draftOf(AS_FILED), codexDirectories: '/srv/a\n\nrelative' };
    expect(
      fieldErrors(
        [
          { path: '/body/codex/additionalDirectories/1', message: 'must match pattern "^/"' },
          { path: '/body/claude/model', message: 'must NOT have more than 200 characters' },
          { path: '/body', message: 'must NOT have fewer than 1 properties' },
        ],
        draft,
      ),
    ).to.deep.equal({
      codexDirectories: 'relative: not an absolute path (start it with /)',
      claudeModel: 'must NOT have more than 200 characters',
    });
  });
});
