import {
  ComponentRef,
  defineRoute,
  defineRoutes,
  Nullable,
  problemResponse,
  StrictObject,
  StringEnum,
  Type,
  type RouteDefinition,
} from '../../http/index.js';
import { SETTING_SOURCES } from '../../../config/schema.js';
import type { SignInMode } from '../../../config/sign-in-settings.js';
import type { ServiceContext } from '../../../services/context.js';
import { currentConfig, updateAssistantSettings } from '../../../services/config/config-settings.js';
import { Config, configView } from './config-view.js';

const ConfigRef = ComponentRef('Config', Config);

// A setting's value; null removes it from config.yaml, back to its default.
const modelName = Nullable(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f]+$' }));
const shortText = Nullable(Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f]+$' }));

const AssistantSettingsPatch = StrictObject(
  {
    claude: Type.Optional(
      StrictObject({
        model: Type.Optional(modelName),
        settingSources: Type.Optional(
          Nullable(Type.Array(StringEnum(SETTING_SOURCES), { uniqueItems: true, maxItems: 2 })),
        ),
      }),
    ),
    codex: Type.Optional(
      StrictObject({
        model: Type.Optional(modelName),
        modelReasoningEffort: Type.Optional(shortText),
        webSearchMode: Type.Optional(shortText),
        additionalDirectories: Type.Optional(
          Nullable(
            Type.Array(Type.String({ minLength: 2, maxLength: 4096, pattern: '^/' }), {
              maxItems: 50,
              description: 'absolute paths',
            }),
          ),
        ),
      }),
    ),
  },
  { minProperties: 1 },
);

/** The safe configuration view, and the one part of it the API may change: assistant settings. */
export function configRoutes(context: ServiceContext, signIn: SignInMode): RouteDefinition[] {
  const facts = { environment: context.environment, database: context.db.dialect, signIn };
  const view = (config: Parameters<typeof configView>[0]) => configView(config, facts);
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/config',
      operationId: 'getConfig',
      summary:
        'The configuration as it applies: settings and which integrations are configured, never a secret',
      description:
        "Defaults < `<home>/config.yaml` < (with `codebase_id`) that codebase's `.cairn/config.yaml` < environment. " +
        'Tokens, keys, passwords, the cookie secret, the database URL and the values of the repository env map are never shown.',
      tags: ['config'],
      query: StrictObject({
        codebase_id: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 64,
            description: "layer this codebase's .cairn/config.yaml",
          }),
        ),
      }),
      responses: {
        200: { description: 'the configuration', schema: ConfigRef },
        404: problemResponse('no codebase with that id'),
      },
      handler: async ({ query }) => ({ body: view(await currentConfig(context, query.codebase_id)) }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/config/assistants',
      operationId: 'updateAssistantConfig',
      summary: 'Change assistant settings in <home>/config.yaml; the next turn uses them, no restart',
      description:
        'Keyed by assistant (`claude`, `codex`); each value sets that setting, `null` removes it. The file keeps its ' +
        'comments and other keys and is replaced atomically. An unknown assistant or setting is a 400 naming it.',
      tags: ['config'],
      body: AssistantSettingsPatch,
      responses: {
        200: { description: 'the configuration as it now applies', schema: ConfigRef },
        409: problemResponse(
          'config_file_refused: config.yaml is not valid YAML, or the result would not be',
        ),
      },
      handler: ({ body }) => ({ body: view(updateAssistantSettings(context, body)) }),
    }),
  );
}

export const configSchemas = { Config };
