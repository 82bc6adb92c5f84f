// The editor's palette: each kind of node, with a starting point that validates as it stands,
// added at the end of the definition's nodes (after the last one) without touching the rest of
// the text's comments.
import { isMap, isScalar, isSeq, parseDocument, YAMLSeq } from 'yaml';
import type { NodeKind } from './definition-graph.js';

interface PaletteEntry {
  kind: NodeKind;
  /** What the node does, for the button's description. */
  hint: string;
  body: Record<string, unknown>;
}

export const PALETTE: readonly PaletteEntry[] = [
  {
    kind: 'prompt',
    hint: 'the assistant works on a prompt',
    body: { prompt: 'Describe what the assistant should do with $ARGUMENTS' },
  },
  { kind: 'command', hint: 'the assistant runs a named command', body: { command: 'assist' } },
  { kind: 'bash', hint: 'a shell command in the worktree', body: { bash: 'git status --short' } },
  {
    kind: 'script',
    hint: 'inline code (node, python or sh)',
    body: { runtime: 'node', script: "console.log('hello from a script');\n" },
  },
  { kind: 'approval', hint: 'waits for a person to approve', body: { approval: { message: 'Go on?' } } },
  {
    kind: 'loop',
    hint: 'repeats until a signal or a check',
    body: {
      loop: { prompt: 'Work on $ARGUMENTS; say DONE when finished.', until: 'DONE', max_iterations: 5 },
    },
  },
  { kind: 'cancel', hint: 'ends the run with a reason', body: { cancel: 'Nothing to do' } },
  {
    kind: 'workflow',
    hint: 'runs another workflow as a child',
    body: { workflow: 'assist', message: '$ARGUMENTS' },
  },
];

export type PaletteResult = { text: string; id: string } | { error: string };

/** `text` with a new node of `kind` appended to `nodes`, after the last node. */
export function addNode(text: string, kind: NodeKind): PaletteResult {
  const entry = PALETTE.find((candidate) => candidate.kind === kind);
  if (!entry) return { error: `no node kind ${kind}` };
  const document = parseDocument(text);
  if (document.errors.length > 0)
    return { error: 'Fix the YAML errors first: the node is added to valid YAML.' };
  if (document.contents === null) {
    // Nothing but comments, or nothing at all: a definition to add the node to, after them.
    const separator = text === '' || text.endsWith('\n') ? '' : '\n';
    return addNode(`${text}${separator}name: new-workflow\nnodes:\n`, kind);
  }
  if (!isMap(document.contents)) return { error: 'The definition must be a mapping with a nodes list.' };
  let nodes = document.get('nodes', true);
  if (nodes === undefined || nodes === null || (isScalar(nodes) && nodes.value === null)) {
    document.set('nodes', new YAMLSeq());
    nodes = document.get('nodes', true);
  }
  if (!isSeq(nodes)) return { error: 'nodes must be a list to add a node to it.' };
  const ids = new Set(
    nodes.items.flatMap((item) =>
      isMap(item) && typeof item.get('id') === 'string' ? [item.get('id') as string] : [],
    ),
  );
  let number = 1;
  while (ids.has(`${kind}-${number}`)) number += 1;
  const id = `${kind}-${number}`;
  const last = nodes.items.at(-1);
  const previous = isMap(last) ? last.get('id') : undefined;
  const node = document.createNode({
    id,
    ...(typeof previous === 'string' && { depends_on: [previous] }),
    ...entry.body,
  });
  const dependsOn = node.get('depends_on', true);
  if (isSeq(dependsOn)) dependsOn.flow = true;
  nodes.items.push(node);
  return { text: document.toString(), id };
}
