// Runs every benchmark in turn; each prints its own JSON figures.
await import('./startup.js');
await import('./conversation.js');
await import('./runs.js');
await import('./temporal-dispatch.js');
await import('./reads.js');
await import('./telemetry.js');
await import('./client.js');
await import('./chat.js');
await import('./web.js');
// Last: it grows this process's memory on purpose.
await import('./spawn-cost.js');
