#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx compiles on load, so `npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
