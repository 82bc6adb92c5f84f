#!/usr/bin/env node
/* global setTimeout */
// Starts CAIRN_GROUP_COMMAND with this process's arguments and stdio as the leader of a new
// process group, and writes its pid (= the group id) to CAIRN_GROUP_PID_FILE. The Codex SDK only
// signals the process it spawned, so Cairn spawns this launcher in its place: a SIGTERM here, or
// Cairn killing the recorded group, stops the CLI and everything it started.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const GRACE_MS = 1500;
const command = process.env.CAIRN_GROUP_COMMAND;
const pidFile = process.env.CAIRN_GROUP_PID_FILE;
if (!command) {
  process.stderr.write('process-group-launcher: CAIRN_GROUP_COMMAND is not set\n');
  process.exit(127);
}
const env = { ...process.env };
delete env.CAIRN_GROUP_COMMAND;
delete env.CAIRN_GROUP_PID_FILE;

const child = spawn(command, process.argv.slice(2), { stdio: 'inherit', detached: true, env });
if (child.pid !== undefined && pidFile) writeFileSync(pidFile, String(child.pid));

function signalGroup(signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone already
  }
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    if (stopping || child.pid === undefined) return;
    stopping = true;
    signalGroup('SIGTERM');
    setTimeout(() => {
      signalGroup('SIGKILL');
      process.exit(143);
    }, GRACE_MS);
  });
}
child.on('error', (error) => {
  process.stderr.write(`process-group-launcher: cannot start ${command}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (!stopping) process.exit(code ?? (signal ? 128 + 15 : 1));
});
