import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { CAIRN_SEARCH_ATTRIBUTES } from '../../infra/temporal/search-attributes.js';
import type { TemporalEndpoint } from './endpoint.js';
import { EAGER_DISPATCH_FLAGS } from './dev-server.js';

/**
 * Last resort when neither a Temporal CLI nor Go is available: the SDK downloads the dev server
 * into the tool cache and runs it. Needs network access to Temporal's release downloads.
 */
export async function downloadAndStartDevServer(options: {
  namespace: string;
  toolCacheDir: string;
  databaseFile?: string;
  port: number;
  uiPort?: number;
}): Promise<TemporalEndpoint> {
  // Loaded only here: the package is needed on this rare path alone.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download', downloadDir: options.toolCacheDir },
      dbFilename: options.databaseFile,
      ip: '127.0.0.1',
      port: options.port,
      ui: options.uiPort !== undefined,
      uiPort: options.uiPort,
      namespace: options.namespace,
      searchAttributes: Object.keys(CAIRN_SEARCH_ATTRIBUTES).map((name) =>
        defineSearchAttributeKey(name, SearchAttributeType.KEYWORD),
      ),
      extraArgs: EAGER_DISPATCH_FLAGS,
    },
  });
  return {
    address: `127.0.0.1:${options.port}`,
    namespace: options.namespace,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    embedded: true,
    stop: () => environment.teardown(),
  };
}
