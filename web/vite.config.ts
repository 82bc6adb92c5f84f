// The web page's build (scripts/build-web.mjs runs `vite build --config web/vite.config.ts`) and
// its dev server: `WEB_UI_DEV=1 npm start` in one terminal (the core then serves no page), then
// `npx vite --config web/vite.config.ts` in another; /api and the sign-in paths go to the core
// (CAIRN_CORE_URL, default http://127.0.0.1:3090). See docs/web.md.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const core = process.env.CAIRN_CORE_URL ?? 'http://127.0.0.1:3090';
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  cacheDir: here('../node_modules/.vite-web'),
  plugins: [react()],
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    // Sizes are checked by bench/web.ts, against the target.
    chunkSizeWarningLimit: 2_000,
    sourcemap: false,
    rolldownOptions: {
      output: {
        // Chromium's compile hint (V8's explicit compile hints): the graph chunk's functions are
        // compiled as the file streams in, off the page's thread, rather than one by one on the
        // page's thread at their first call, while the first graph is drawn.
        postBanner: (chunk) => (chunk.name === 'DagGraph' ? '//# allFunctionsCalledOnLoad' : ''),
      },
    },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(
      ['/api', '/login', '/logout', '/health'].map((path) => [path, { target: core, changeOrigin: false }]),
    ),
  },
});
