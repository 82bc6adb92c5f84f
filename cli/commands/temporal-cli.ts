import { buildTemporalCli } from '../../worker/temporal/build-cli.js';
import { findGo, findTemporalCli } from '../../worker/temporal/find-cli.js';
import { createContext } from '../boot/context.js';

/** `cairn temporal-cli`: finds the Temporal CLI or builds it now (CI does this before the tests). */
export async function runTemporalCli(): Promise<number> {
  const { environment } = createContext({ env: process.env });
  const toolCacheDir = environment.general.toolCache;
  const found = findTemporalCli({
    explicitPath: environment.temporal.cliPath,
    pathVariable: process.env.PATH,
    toolCacheDir,
  });
  if (found) {
    console.log(`[temporal] using ${found.path} (from ${found.source})`);
    return 0;
  }
  const go = findGo(process.env.PATH);
  if (!go) {
    console.error(
      '[temporal] no Temporal CLI found and no Go toolchain to build one. Install Go 1.25+ or the Temporal CLI, ' +
        'or set TEMPORAL_CLI_PATH; `cairn start` can also download it through the Temporal SDK when online.',
    );
    return 1;
  }
  const path = await buildTemporalCli({
    goBinary: go,
    toolCacheDir,
    env: process.env,
    say: (l) => console.log(l),
  });
  console.log(`[temporal] using ${path}`);
  return 0;
}
