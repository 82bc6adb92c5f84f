#!/usr/bin/env node
// The `cairn` command. It runs the compiled JavaScript in dist/, building it first when it is
// missing or older than the sources (scripts/build.mjs: a few ms to check, seconds to build), so
// `npm start` stays one command and no runtime compiler is loaded. CAIRN_DEV=1 runs the TypeScript
// sources through tsx instead: no build, for working on Cairn itself.
if (process.env.CAIRN_DEV === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
} else {
  const { ensureBuilt } = await import('../scripts/build.mjs');
  if (!(await ensureBuilt())) process.exit(1);
  await import('../dist/cli/main.js');
}
