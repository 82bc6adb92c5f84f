import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, request } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNote } from '../shell/ErrorNote';
import './settings.css';
import {
  assistantPatch,
  draftOf,
  fieldErrors,
  SETTING_SOURCES,
  type AssistantDraft,
  type FieldName,
} from './assistant-settings';

type Config = components['schemas']['Config'];

const FIELD_IDS: Record<FieldName, string> = {
  claudeModel: 'claude-model',
  claudeSources: 'claude-sources',
  codexModel: 'codex-model',
  codexEffort: 'codex-effort',
  codexWebSearch: 'codex-web-search',
  codexDirectories: 'codex-directories',
};

/** The assistant settings `PATCH /api/config/assistants` changes, saved into `<home>/config.yaml`. */
export function AssistantSettingsForm({ config }: { config: Config }) {
  const queries = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(config));
  useEffect(() => setDraft(draftOf(config)), [config]);
  const set = <K extends FieldName>(field: K, value: AssistantDraft[K]) =>
    setDraft((current) => ({ ...current, [field]: value }));
  const patch = assistantPatch(config, draft);
  const changed = Object.keys(patch).length > 0;
  const save = useMutation({
    mutationFn: () => request('PATCH', '/api/config/assistants', patch),
    onSuccess: () => void queries.invalidateQueries({ queryKey: ['config'] }),
  });
  const refusal =
    save.error instanceof ApiError && save.error.status === 400 ? save.error.problem : undefined;
  const errors = fieldErrors(refusal?.errors ?? [], draft);
  const errorOf = (field: FieldName) => errors[field];
  // A field named by the refusal gets its error beside it; anything else shows as one note.
  const fieldAttributes = (field: FieldName) => ({
    id: FIELD_IDS[field],
    'aria-invalid': errorOf(field) ? true : undefined,
    'aria-describedby': errorOf(field) ? `${FIELD_IDS[field]}-error` : undefined,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (changed) save.mutate();
  };
  return (
    <form className="panel-form assistant-settings" onSubmit={submit} aria-labelledby="models-title">
      <h2 id="models-title">Assistant settings</h2>
      <p className="muted small">
        Default assistant: {config.defaultAssistant}. Saved into <code>config.yaml</code> in Cairn’s home; the
        next turn uses them. Empty: the default. Only what you change is sent.
      </p>
      <fieldset>
        <legend>Claude</legend>
        <label htmlFor="claude-model">Claude model</label>
        <input
          {...fieldAttributes('claudeModel')}
          value={draft.claudeModel}
          onChange={(event) => set('claudeModel', event.target.value)}
        />
        <FieldError id="claude-model-error" text={errorOf('claudeModel')} />
        <fieldset
          id="claude-sources"
          className="choices"
          aria-describedby="claude-sources-hint"
          aria-invalid={errorOf('claudeSources') ? true : undefined}
        >
          <legend>Setting sources</legend>
          {SETTING_SOURCES.map((source) => (
            <label key={source} className="check">
              <input
                type="checkbox"
                checked={draft.claudeSources.includes(source)}
                onChange={(event) =>
                  set(
                    'claudeSources',
                    event.target.checked
                      ? [...draft.claudeSources, source]
                      : draft.claudeSources.filter((item) => item !== source),
                  )
                }
              />
              {source}
            </label>
          ))}
        </fieldset>
        <p id="claude-sources-hint" className="muted small">
          Which Claude settings files apply: the repository’s (<code>project</code>) and your own (
          <code>user</code>).
        </p>
        <FieldError id="claude-sources-error" text={errorOf('claudeSources')} />
      </fieldset>
      <fieldset>
        <legend>Codex</legend>
        <label htmlFor="codex-model">Codex model</label>
        <input
          {...fieldAttributes('codexModel')}
          value={draft.codexModel}
          onChange={(event) => set('codexModel', event.target.value)}
        />
        <FieldError id="codex-model-error" text={errorOf('codexModel')} />
        <label htmlFor="codex-effort">Reasoning effort</label>
        <input
          {...fieldAttributes('codexEffort')}
          list="codex-effort-choices"
          value={draft.codexEffort}
          onChange={(event) => set('codexEffort', event.target.value)}
        />
        <datalist id="codex-effort-choices">
          {['minimal', 'low', 'medium', 'high', 'xhigh'].map((effort) => (
            <option key={effort} value={effort} />
          ))}
        </datalist>
        <FieldError id="codex-effort-error" text={errorOf('codexEffort')} />
        <label htmlFor="codex-web-search">Web search mode</label>
        <input
          {...fieldAttributes('codexWebSearch')}
          list="codex-web-search-choices"
          value={draft.codexWebSearch}
          onChange={(event) => set('codexWebSearch', event.target.value)}
        />
        <datalist id="codex-web-search-choices">
          {['disabled', 'cached', 'live'].map((mode) => (
            <option key={mode} value={mode} />
          ))}
        </datalist>
        <FieldError id="codex-web-search-error" text={errorOf('codexWebSearch')} />
        <label htmlFor="codex-directories">Extra directories</label>
        <textarea
          {...fieldAttributes('codexDirectories')}
          rows={3}
          value={draft.codexDirectories}
          placeholder="/absolute/path, one a line"
          onChange={(event) => set('codexDirectories', event.target.value)}
        />
        <FieldError id="codex-directories-error" text={errorOf('codexDirectories')} />
      </fieldset>
      {save.isError && Object.keys(errors).length === 0 && <ErrorNote error={save.error} />}
      {save.isError && Object.keys(errors).length > 0 && (
        <p className="muted small" role="alert">
          Not saved: correct the marked fields.
        </p>
      )}
      {save.isSuccess && !changed && (
        <p className="muted small" role="status">
          Saved.
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="primary" disabled={save.isPending || !changed}>
          Save
        </button>
      </div>
    </form>
  );
}

function FieldError({ id, text }: { id: string; text: ReactNode }) {
  if (!text) return null;
  return (
    <p id={id} className="field-error">
      {text}
    </p>
  );
}
