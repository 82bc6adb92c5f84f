#!/usr/bin/env node
// Runs one TypeScript file (a benchmark, a script) with the same loader as the service.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const file = process.argv[2];
if (!file) {
  console.error('usage: run-ts <file.ts> [args...]');
  process.exit(2);
}
process.argv.splice(1, 1);
register();
await import(pathToFileURL(resolve(file)).href);
