import { buildTemporalCli } from './build-cli.js';
import { startDevServer } from './dev-server.js';
import { findGo, findTemporalCli } from './find-cli.js';
import { downloadAndStartDevServer } from './sdk-download.js';
import { freePort, preferredOrFreePort } from './ports.js';
import type { TemporalEndpoint } from './endpoint.js';
import { forgetServerPid, recordServerPid, stopLeftoverServer } from './stale-server.js';

export interface ProvideTemporalOptions {
  /** TEMPORAL_ADDRESS: when set, Cairn connects there and starts nothing. */
  address?: string;
  namespace: string;
  /** TEMPORAL_CLI_PATH. */
  cliPath?: string;
  /** The environment for PATH lookups and the Go build. */
  env: NodeJS.ProcessEnv;
  toolCacheDir: string;
  /** Persist workflows here; omit for an in-memory server (tests). */
  databaseFile?: string;
  /** Use the standard ports 7233/8233 when free (cairn start) or random ones (tests). */
  ports: 'standard' | 'random';
  /** Run the Web UI. */
  ui: boolean;
  /** Preferred Web UI port (TEMPORAL_UI_PORT); 8233 by default. */
  uiPort?: number;
  say: (line: string) => void;
}

/** Connects to TEMPORAL_ADDRESS, or finds, builds or downloads the CLI and runs a dev server. */
export async function provideTemporal(options: ProvideTemporalOptions): Promise<TemporalEndpoint> {
  if (options.address) {
    return { address: options.address, namespace: options.namespace, embedded: false, stop: async () => {} };
  }
  // A server left by a crashed Cairn still holds the history file and the standard ports.
  if (options.databaseFile) await stopLeftoverServer(options.databaseFile, options.say);
  const cliPath = await obtainCli(options);
  if (!cliPath) {
    options.say(
      '[temporal] no Temporal CLI and no Go toolchain found; downloading the dev server through the Temporal SDK...',
    );
    return downloadAndStartDevServer({ ...options, ...(await choosePorts(options)) });
  }
  options.say(`[temporal] starting the embedded Temporal dev server (${cliPath})...`);
  const server = await withPortRetries(options.say, async () =>
    startDevServer({
      cliPath,
      databaseFile: options.databaseFile,
      ...(await choosePorts(options)),
      namespace: options.namespace,
      onOutput: (line) => {
        // The server logs at warn; only its errors are worth a console line.
        if (/level=(ERROR|FATAL|DPANIC|PANIC)|^panic:/.test(line)) options.say(`[temporal] ${line}`);
      },
    }),
  );
  const databaseFile = options.databaseFile;
  if (databaseFile) recordServerPid(databaseFile, server.pid);
  return {
    address: server.address,
    namespace: options.namespace,
    uiUrl: server.uiUrl,
    embedded: true,
    async stop() {
      await server.stop();
      if (databaseFile) forgetServerPid(databaseFile);
    },
  };
}

/** The server's ports: the standard ones when free (cairn start), random free ones otherwise. */
async function choosePorts(options: ProvideTemporalOptions): Promise<{ port: number; uiPort?: number }> {
  const port = options.ports === 'standard' ? await preferredOrFreePort(7233) : await freePort();
  const uiPort = !options.ui
    ? undefined
    : options.ports === 'standard'
      ? await preferredOrFreePort(options.uiPort ?? 8233)
      : await freePort();
  return { port, uiPort };
}

/** How many starts are tried in all, each on ports chosen afresh, while the ports turn out taken. */
const PORT_ATTEMPTS = 3;

/**
 * A port found free can be taken before the server binds it (another process, or the server's
 * own HTTP port, which it picks itself): the start is tried again with ports chosen afresh.
 */
async function withPortRetries<T>(say: (line: string) => void, start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !/address already in use/i.test((error as Error).message)) throw error;
      say('[temporal] a port was taken as the server started; starting it again on other ports...');
    }
  }
}

async function obtainCli(options: ProvideTemporalOptions): Promise<string | undefined> {
  const found = findTemporalCli({
    explicitPath: options.cliPath,
    pathVariable: options.env.PATH,
    toolCacheDir: options.toolCacheDir,
  });
  if (found) return found.path;
  const go = findGo(options.env.PATH);
  if (!go) return undefined;
  return buildTemporalCli({
    goBinary: go,
    toolCacheDir: options.toolCacheDir,
    env: options.env,
    say: options.say,
  });
}

export type { TemporalEndpoint } from './endpoint.js';
