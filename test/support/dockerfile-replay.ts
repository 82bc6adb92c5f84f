import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';

// No Docker engine here. This replays a Dockerfile's stages in folders: each stage gets a root
// folder standing for its filesystem, COPY copies the build context (the folder's files, less what
// .dockerignore excludes) or another stage's files into it, WORKDIR and ENV are followed, and each
// RUN that can run on this machine runs with `sh -c` in the stage's working folder. Stages run side
// by side where the Dockerfile lets them (as BuildKit does): a stage waits only for the stage it is
// built FROM and for those it copies from, so the build stage and the production `npm ci` overlap
// (the replay is the suite's slowest file).

export interface ReplayedStage {
  name: string | undefined;
  /** The folder standing for the stage's `/`. */
  root: string;
  /** The working directory inside the image (`/app`), and its folder here. */
  workdir: string;
  workdirPath: string;
  env: Record<string, string>;
  /** The RUN commands of this stage: run here, or left out and why. */
  runs: Array<{ command: string; ran: boolean; why?: string; seconds?: number }>;
  /** The last ENTRYPOINT, CMD, USER and HEALTHCHECK instructions, as written. */
  entrypoint?: string[];
  cmd?: string[];
  user?: string;
  healthcheck?: string[];
}

/** Whether a RUN command can run here, or why it cannot: the replay's only judgement call. */
export type RunPolicy = (
  command: string,
  stage: ReplayedStage,
) => { run: true } | { run: false; why: string };

/** The files `docker build <contextDir>` sends: every file there, less what .dockerignore excludes. */
export function buildContextFiles(contextDir: string): string[] {
  const ignored = dockerignore(contextDir);
  const files: string[] = [];
  const visit = (relative: string) => {
    for (const entry of readdirSync(join(contextDir, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      // An excluded folder is not walked (node_modules, .git); `!` lines under it are not supported.
      if (ignored(path)) continue;
      if (entry.isDirectory()) visit(path);
      else files.push(path);
    }
  };
  visit('');
  return files.sort();
}

/**
 * .dockerignore as Docker reads it: patterns relative to the context root in Go's filepath.Match
 * syntax plus `**`; a pattern that matches a folder excludes what it holds; the last matching
 * line wins, so `!pattern` takes files back.
 */
export function dockerignore(contextDir: string): (file: string) => boolean {
  const file = join(contextDir, '.dockerignore');
  if (!existsSync(file)) return () => false;
  const rules = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = posix.normalize((negated ? line.slice(1) : line).trim()).replace(/^\/+/, '');
      return { negated, regex: globToRegex(pattern) };
    });
  return (path) => {
    const parts = path.split('/');
    let ignored = false;
    for (const rule of rules) {
      for (let depth = 1; depth <= parts.length; depth += 1) {
        if (rule.regex.test(parts.slice(0, depth).join('/'))) {
          ignored = !rule.negated;
          break;
        }
      }
    }
    return ignored;
  };
}

function globToRegex(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index]!;
    if (char === '*' && pattern[index + 1] === '*') {
      source += '.*';
      index += 1;
      if (pattern[index + 1] === '/') index += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** A JSON-array (exec form) argument list, or the shell form wrapped as `sh -c`. */
function commandForm(content: string): string[] {
  const trimmed = content.trim();
  if (trimmed.startsWith('[')) return JSON.parse(trimmed) as string[];
  return ['/bin/sh', '-c', trimmed];
}

function flag(instruction: Instruction, name: string): string | undefined {
  const withFlags = instruction as Instruction & {
    getFlags?: () => Array<{ getName(): string; getValue(): string | null }>;
  };
  return (
    withFlags
      .getFlags?.()
      .find((f) => f.getName() === name)
      ?.getValue() ?? undefined
  );
}

/** Runs a RUN command with `sh -c`; rejects with its output if it fails. */
function runShell(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`RUN ${command} failed (${code ?? signal}):\n${stdout}\n${stderr}`));
    });
  });
}

/** Replays the Dockerfile in `workDir`; returns its stages in Dockerfile order, the last one being the image. */
export async function replayDockerfile(options: {
  dockerfile: string;
  contextDir: string;
  workDir: string;
  policy: RunPolicy;
  /** Added to every RUN's environment (this machine's PATH, caches). */
  env: NodeJS.ProcessEnv;
}): Promise<ReplayedStage[]> {
  const document = DockerfileParser.parse(readFileSync(options.dockerfile, 'utf8'));
  const context = buildContextFiles(options.contextDir);
  const inImage = (stage: ReplayedStage, path: string) =>
    join(stage.root, posix.resolve(stage.workdir, path));

  const groups: Array<{ from: Instruction; body: Instruction[] }> = [];
  for (const instruction of document.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') groups.push({ from: instruction, body: [] });
    else if (groups.length === 0) throw new Error(`${instruction.getKeyword()} before any FROM`);
    else groups.at(-1)!.body.push(instruction);
  }

  const stages: ReplayedStage[] = [];
  const finished = new Map<ReplayedStage, Promise<void>>();

  async function replay(stage: ReplayedStage, instruction: Instruction, earlier: ReplayedStage[]) {
    const keyword = instruction.getKeyword();
    const args = instruction.getArguments().map((argument) => argument.getValue());
    const content =
      (instruction as Instruction & { getArgumentsContent(): string | null }).getArgumentsContent() ?? '';
    switch (keyword) {
      case 'WORKDIR':
        stage.workdir = posix.resolve(stage.workdir, args[0]!);
        stage.workdirPath = inImage(stage, '.');
        mkdirSync(stage.workdirPath, { recursive: true });
        break;
      case 'ENV':
        for (const pair of args) {
          const equals = pair.indexOf('=');
          if (equals < 1) throw new Error(`ENV ${pair}: only key=value pairs are replayed`);
          stage.env[pair.slice(0, equals)] = pair.slice(equals + 1);
        }
        break;
      case 'COPY': {
        const sources = args.slice(0, -1);
        const destination = args.at(-1)!;
        const from = flag(instruction, 'from');
        const intoFolder = sources.length > 1 || destination.endsWith('/');
        const origin = from ? earlier.find(({ name }) => name === from) : undefined;
        if (from && !origin) throw new Error(`COPY --from=${from}: no such stage`);
        // Another stage's files are taken once that stage is done.
        if (origin) await finished.get(origin);
        for (const source of sources) {
          if (origin) {
            const target = inImage(stage, destination);
            mkdirSync(dirname(target), { recursive: true });
            cpSync(join(origin.root, source), target, { recursive: true, verbatimSymlinks: true });
          } else {
            // `.` or a folder: what it holds; a file: itself, into a folder or as the named file.
            const prefix = posix.normalize(source).replace(/^\.$|\/$/g, '');
            const copied = context
              .filter((file) => prefix === '' || file === prefix || file.startsWith(`${prefix}/`))
              .map((file) => ({
                file,
                target:
                  file === prefix
                    ? intoFolder
                      ? join(inImage(stage, destination), posix.basename(file))
                      : inImage(stage, destination)
                    : join(inImage(stage, destination), prefix === '' ? file : file.slice(prefix.length + 1)),
              }));
            if (copied.length === 0) throw new Error(`COPY ${source}: not in the build context`);
            for (const { file, target } of copied) {
              mkdirSync(dirname(target), { recursive: true });
              cpSync(join(options.contextDir, file), target, { verbatimSymlinks: true });
            }
          }
        }
        break;
      }
      case 'RUN': {
        const command = content.trim();
        const verdict = options.policy(command, stage);
        if (!verdict.run) {
          stage.runs.push({ command, ran: false, why: verdict.why });
          break;
        }
        const started = Date.now();
        await runShell(command, stage.workdirPath, { ...options.env, ...stage.env });
        stage.runs.push({ command, ran: true, seconds: Math.round((Date.now() - started) / 1000) });
        break;
      }
      case 'ENTRYPOINT':
        stage.entrypoint = commandForm(content);
        break;
      case 'CMD':
        stage.cmd = commandForm(content);
        break;
      case 'USER':
        stage.user = args[0];
        break;
      case 'HEALTHCHECK':
        stage.healthcheck = commandForm(content.replace(/^(--\S+\s+)*CMD\s+/, ''));
        break;
      case 'VOLUME':
      case 'EXPOSE':
      case 'LABEL':
        break;
      default:
        throw new Error(`${keyword}: not replayed yet`);
    }
  }

  for (const { from, body } of groups) {
    const [image, as, name] = from.getArguments().map((argument) => argument.getValue());
    const earlier = [...stages];
    const parent = earlier.find((stage) => stage.name === image);
    const stage: ReplayedStage = {
      name: as?.toUpperCase() === 'AS' ? name : undefined,
      root: join(options.workDir, `stage-${stages.length}`),
      workdir: '/',
      workdirPath: '',
      env: {},
      runs: [],
    };
    stages.push(stage);
    finished.set(
      stage,
      (async () => {
        mkdirSync(stage.root, { recursive: true });
        if (parent) {
          // A stage built on an earlier one starts from a copy of its files and settings, once it is done.
          await finished.get(parent);
          cpSync(parent.root, stage.root, { recursive: true, verbatimSymlinks: true });
          stage.workdir = parent.workdir;
          stage.env = { ...parent.env };
        }
        stage.workdirPath = inImage(stage, '.');
        for (const instruction of body) await replay(stage, instruction, earlier);
      })(),
    );
  }
  // Every stage settles before this returns, so no RUN is left writing after a failure.
  const outcomes = await Promise.allSettled(finished.values());
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return stages;
}
