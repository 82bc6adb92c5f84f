import type { Command, Option } from 'commander';
import type { ApiClient } from '../client/api-client.js';

/**
 * Shell completion: `cairn completion bash|zsh` prints a script that asks `cairn __complete` for
 * the words that can follow. Commands and options come from the program itself, so they never
 * drift from it; workflow names, run ids and codebase names come from the server, briefly.
 */
export function completionScript(shell: 'bash' | 'zsh'): string {
  if (shell === 'bash') {
    return `# cairn completion for bash: add to ~/.bashrc:  source <(cairn completion bash)
_cairn_complete() {
  local IFS=$'\\n'
  COMPREPLY=( $(cairn __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -o default -F _cairn_complete cairn
`;
  }
  return `#compdef cairn
# cairn completion for zsh: add to ~/.zshrc:  source <(cairn completion zsh)
_cairn_complete() {
  local -a candidates
  candidates=("\${(@f)$(cairn __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
compdef _cairn_complete cairn
`;
}

const RUN_ID_COMMANDS = new Set([
  'show',
  'logs',
  'approve',
  'reject',
  'cancel',
  'resume',
  'abandon',
  'rerun',
  'delete',
]);
/** A completion must never hang a shell; CAIRN_COMPLETE_TIMEOUT_MS changes it (slow links, tests). */
const serverTimeoutMs = () => Number(process.env.CAIRN_COMPLETE_TIMEOUT_MS) || 1_500;

function visible(command: Command): Command[] {
  return command.commands.filter((sub) => !(sub as Command & { _hidden?: boolean })._hidden);
}

function optionNames(command: Command): string[] {
  return command.options.flatMap((option: Option) =>
    [option.long, option.short].filter((name): name is string => !!name),
  );
}

/** What the server can offer for a position: workflow names, run ids, codebase names. */
async function fromServer(
  api: ApiClient,
  kind: 'workflows' | 'runs' | 'paused-runs' | 'codebases',
  codebase?: string,
): Promise<string[]> {
  const signal = AbortSignal.timeout(serverTimeoutMs());
  const get = <T>(path: string, query: Record<string, string | number> = {}) =>
    api.request<T>('GET', path, { query, signal });
  switch (kind) {
    case 'workflows': {
      // A codebase's own workflows need its checkout, by id or name.
      const codebases = codebase
        ? await get<{ id: string; name: string; sourcePath: string }[]>('/api/codebases', { limit: 200 })
        : [];
      const named = codebases.find(
        (one) => one.id === codebase || one.name.toLowerCase() === codebase?.toLowerCase(),
      );
      const query: Record<string, string> = named ? { cwd: named.sourcePath } : {};
      return (
        await get<{ workflows: { workflow: { name: string } }[] }>('/api/workflows', query)
      ).workflows.map((entry) => entry.workflow.name);
    }
    case 'runs':
    case 'paused-runs': {
      const query: Record<string, string | number> =
        kind === 'paused-runs' ? { status: 'paused', limit: 50 } : { limit: 50 };
      return (await get<{ items: { runId: string }[] }>('/api/workflows/runs', query)).items.map(
        (run) => run.runId,
      );
    }
    case 'codebases':
      return (await get<{ name: string }[]>('/api/codebases', { limit: 200 })).map(
        (codebase) => codebase.name,
      );
  }
}

/** Whether `name` is an option of `command` that takes a value (`--codebase <id>`). */
function takesValue(command: Command, name: string): boolean {
  const option = command.options.find(
    (candidate: Option) => candidate.long === name || candidate.short === name,
  );
  return option !== undefined && (option.required || option.optional);
}

/**
 * The candidates for the last of `words` (the word being typed, maybe empty), given the ones
 * before it. Anything the server cannot answer in time is left out: completion never hangs.
 */
export async function completions(
  program: Command,
  words: string[],
  api: () => ApiClient,
): Promise<string[]> {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  let command = program;
  const path: string[] = [];
  const positional: string[] = [];
  const values: Record<string, string> = {};
  for (let index = 0; index < before.length; index += 1) {
    const word = before[index]!;
    const sub =
      positional.length === 0 ? visible(command).find((candidate) => candidate.name() === word) : undefined;
    if (sub) {
      command = sub;
      path.push(word);
    } else if (word.startsWith('-')) {
      if (takesValue(command, word) && index + 1 < before.length) values[word] = before[++index]!;
    } else positional.push(word);
  }
  const previous = before.at(-1);
  const server = async (kind: Parameters<typeof fromServer>[1], codebase?: string) =>
    fromServer(api(), kind, codebase).catch(() => []);
  const where = path.join(' ');
  let candidates: string[] = [];
  if (previous !== undefined && previous.startsWith('-') && takesValue(command, previous)) {
    if (previous === '--codebase') candidates = await server('codebases');
  } else if (current.startsWith('-')) candidates = optionNames(command);
  else if (visible(command).length > 0 && positional.length === 0)
    candidates = visible(command).map((sub) => sub.name());
  else if ((where === 'workflow run' || where === 'workflow show') && positional.length === 0)
    candidates = await server('workflows', values['--codebase']);
  else if (path[0] === 'run' && RUN_ID_COMMANDS.has(path[1] ?? '') && positional.length === 0)
    candidates = await server(path[1] === 'approve' || path[1] === 'reject' ? 'paused-runs' : 'runs');
  else if (where === 'completion' && positional.length === 0) candidates = ['bash', 'zsh'];
  return candidates.filter((candidate) => candidate.startsWith(current));
}
