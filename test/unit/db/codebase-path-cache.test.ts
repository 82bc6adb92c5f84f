import { expect } from 'chai';
import { CodebasePathCache } from '../../../db/codebase-path-cache.js';
import type { Codebase } from '../../../db/repositories/codebases.js';

const codebase = (id: string) => ({ id, sourcePath: `/repos/${id}` }) as Codebase;

/** A read that counts its calls and answers from `rows` (what the database holds now). */
function countingRead(rows: Map<string, Codebase>) {
  const read = async (path: string) => {
    read.calls += 1;
    return rows.get(path);
  };
  read.calls = 0;
  return read;
}

describe('the codebase path cache', () => {
  it('reads the database on every lookup until it is trusted', async () => {
    const cache = new CodebasePathCache();
    const read = countingRead(new Map([['/repos/a', codebase('a')]]));
    await cache.lookup('/repos/a', read);
    await cache.lookup('/repos/a', read);
    expect(read.calls).to.equal(2);
    expect(cache.trusted).to.equal(false);
  });

  it('answers a found path from memory while trusted, and reads again after a change', async () => {
    const cache = new CodebasePathCache();
    cache.trust(true);
    const rows = new Map([['/repos/a', codebase('a')]]);
    const read = countingRead(rows);
    expect((await cache.lookup('/repos/a', read))?.id).to.equal('a');
    expect((await cache.lookup('/repos/a', read))?.id).to.equal('a');
    expect(read.calls).to.equal(1);
    rows.delete('/repos/a');
    cache.invalidate();
    expect(await cache.lookup('/repos/a', read)).to.equal(undefined);
    expect(read.calls).to.equal(2);
  });

  it('never keeps a path that is no checkout: it may become one', async () => {
    const cache = new CodebasePathCache();
    cache.trust(true);
    const read = countingRead(new Map());
    await cache.lookup('/elsewhere', read);
    await cache.lookup('/elsewhere', read);
    expect(read.calls).to.equal(2);
  });

  it('does not keep what a read found when a change came while it ran', async () => {
    const cache = new CodebasePathCache();
    cache.trust(true);
    let release: () => void = () => undefined;
    const slowRead = async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return codebase('a');
    };
    const pending = cache.lookup('/repos/a', slowRead);
    cache.invalidate(); // the codebase was deleted while the read was on its way
    release();
    await pending;
    const read = countingRead(new Map());
    expect(await cache.lookup('/repos/a', read)).to.equal(undefined);
    expect(read.calls).to.equal(1);
  });

  it('forgets everything and reads through once the notices are no longer heard', async () => {
    const cache = new CodebasePathCache();
    cache.trust(true);
    const read = countingRead(new Map([['/repos/a', codebase('a')]]));
    await cache.lookup('/repos/a', read);
    cache.trust(false);
    await cache.lookup('/repos/a', read);
    await cache.lookup('/repos/a', read);
    expect(read.calls).to.equal(3);
  });
});
