import { expect } from 'chai';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FolderWatch } from '../../../config/folder-watch.js';
import { makeTempDir } from '../../support/temp-dirs.js';

describe('a watched folder', () => {
  let dir: ReturnType<typeof makeTempDir>;
  let folder: string;
  const watches: FolderWatch[] = [];
  const watched = (trustedMs?: number) => {
    const watch = new FolderWatch(folder, trustedMs);
    watches.push(watch);
    watch.markRead();
    return watch;
  };

  beforeEach(() => {
    dir = makeTempDir('cairn-folder-watch-');
    folder = join(dir.path, 'project', 'workflows');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'a.yaml'), 'one');
  });
  afterEach(() => {
    for (const watch of watches.splice(0)) watch.close();
    dir.cleanup();
  });

  it('is unchanged until a file is edited, added or removed, each seen by the next check', async () => {
    const watch = watched();
    expect(await watch.changed()).to.equal(false);
    for (const change of [
      () => writeFileSync(join(folder, 'a.yaml'), 'two'), // same size as before
      () => writeFileSync(join(folder, 'b.yaml'), 'new'),
      () => rmSync(join(folder, 'b.yaml')),
      () => renameSync(join(folder, 'a.yaml'), join(folder, 'c.yaml')),
    ]) {
      change();
      expect(await watch.changed()).to.equal(true);
      watch.markRead();
      expect(await watch.changed()).to.equal(false);
    }
  });

  it('sees an edit behind a link, which a watch would not report, on every check', async () => {
    const target = join(dir.path, 'elsewhere.yaml');
    writeFileSync(target, 'linked');
    symlinkSync(target, join(folder, 'linked.yaml'));
    const watch = watched();
    expect(await watch.changed()).to.equal(false);
    writeFileSync(target, 'edited at its target');
    expect(await watch.changed()).to.equal(true);
  });

  it('sees a folder created after it was found missing', async () => {
    rmSync(folder, { recursive: true });
    const watch = watched();
    expect(await watch.changed()).to.equal(false);
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.yaml'), 'one');
    expect(await watch.changed()).to.equal(true);
  });

  it('compares the signature once the watch has been trusted long enough, for what it cannot see', async () => {
    const watch = watched(50);
    // A parent renamed and a new folder in its place: the watch follows the old folder.
    renameSync(join(dir.path, 'project'), join(dir.path, 'moved'));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'other.yaml'), 'another file');
    await sleep(80);
    expect(await watch.changed()).to.equal(true);
  });
});
