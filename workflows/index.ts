// Every workflow the worker registers. Workflow code only: deterministic, no I/O.
export { systemCheck } from './system/system-check.js';
