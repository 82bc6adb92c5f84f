// The codebase a workflows page works in, kept in the address (`?codebase=<id>`): its checkout is
// where project workflows are read from and saved to.
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { getJson } from '../api/client';
import type { Codebase } from '../api/types';

export interface CodebaseScope {
  codebaseId: string;
  codebase: Codebase | undefined;
  codebases: Codebase[] | undefined;
  /** Whether the id in the address names no registered codebase. */
  unknown: boolean;
  /** The checkout to read and save project workflows in, once known. */
  cwd: string | undefined;
  /** Read only once the codebases are known, so a project list never flashes as bundled-only. */
  ready: boolean;
  choose: (id: string) => void;
}

export function useCodebaseScope(): CodebaseScope {
  const [params, setParams] = useSearchParams();
  const codebaseId = params.get('codebase') ?? '';
  const list = useQuery({ queryKey: ['codebases'], queryFn: () => getJson<Codebase[]>('/api/codebases') });
  const codebase = list.data?.find((candidate) => candidate.id === codebaseId);
  return {
    codebaseId,
    codebase,
    codebases: list.data,
    unknown: codebaseId !== '' && list.isSuccess && !codebase,
    cwd: codebase?.sourcePath,
    ready: codebaseId === '' || !list.isPending,
    choose: (id) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        if (id) next.set('codebase', id);
        else next.delete('codebase');
        return next;
      }),
  };
}

/** The address of a workflows page in the same codebase. */
export const inCodebase = (path: string, codebaseId: string) =>
  codebaseId ? `${path}?codebase=${encodeURIComponent(codebaseId)}` : path;

export function CodebasePicker({ scope }: { scope: CodebaseScope }) {
  return (
    <label className="inline-field">
      Codebase{' '}
      <select value={scope.codebaseId} onChange={(event) => scope.choose(event.target.value)}>
        <option value="">none (bundled workflows only)</option>
        {scope.codebases?.map((codebase) => (
          <option key={codebase.id} value={codebase.id}>
            {codebase.name}
          </option>
        ))}
      </select>
    </label>
  );
}
