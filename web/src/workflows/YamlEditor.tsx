// The YAML editor: CodeMirror 6 with YAML highlighting and problems marked at their place as you
// type (a chunk of its own, loaded with the workflow page only).
import { useEffect, useRef } from 'react';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { linter, lintGutter, lintKeymap, type Diagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';

export interface TextProblem {
  from: number;
  to: number;
  message: string;
}

interface Props {
  /** The text; a change from outside (the palette) replaces the editor's. */
  value: string;
  onChange: (text: string) => void;
  /** The problems of a text; called a moment after typing stops. */
  check: (text: string) => Promise<TextProblem[]>;
  label: string;
}

// Colours from the page's own variables, so the editor follows the light or dark theme.
const pageTheme = EditorView.theme({
  '&': { backgroundColor: 'var(--panel)', color: 'var(--text)', fontSize: '0.85rem' },
  '.cm-content': { fontFamily: "ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace" },
  '.cm-gutters': { backgroundColor: 'var(--code-bg)', color: 'var(--muted)', border: 'none' },
  '.cm-activeLine, .cm-activeLineGutter': {
    backgroundColor: 'color-mix(in srgb, var(--accent) 8%, transparent)',
  },
  '&.cm-focused': { outline: '2px solid var(--accent)' },
  // The editor grows with its text (lines wrap): the page scrolls, never a box without a keyboard way in.
  '.cm-scroller': { overflow: 'visible' },
});

export default function YamlEditor({ value, onChange, check, label }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(undefined);
  // The latest callbacks, read by the editor's listeners (made once).
  const latest = useRef({ onChange, check });
  latest.current = { onChange, check };

  useEffect(() => {
    const lint = linter(
      async (editor): Promise<Diagnostic[]> => {
        const problems = await latest.current.check(editor.state.doc.toString());
        const length = editor.state.doc.length;
        return problems.map((problem) => ({
          from: Math.min(problem.from, length),
          to: Math.min(problem.to, length),
          severity: 'error',
          message: problem.message,
        }));
      },
      { delay: 350 },
    );
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          // Tab is left to the browser: the editor never traps keyboard focus.
          keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, ...lintKeymap]),
          yaml(),
          lintGutter(),
          lint,
          pageTheme,
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = undefined;
    };
    // Made once; `value` changes arrive through the effect below.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  return <div className="yaml-editor" ref={host} data-testid="yaml-editor" />;
}
