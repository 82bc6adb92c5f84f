import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ensureHomeLayout, homeLayout, resolveCairnHome, toolCacheDir } from '../../../config/paths.js';
import { tempDirs } from './helpers.js';

describe('config/paths', () => {
  const temp = tempDirs();
  afterEach(() => temp.cleanup());

  describe('resolveCairnHome', () => {
    it('defaults to ~/.cairn', () => {
      expect(resolveCairnHome({})).to.equal(path.join(os.homedir(), '.cairn'));
    });

    it('treats a blank CAIRN_HOME as unset', () => {
      expect(resolveCairnHome({ CAIRN_HOME: '  ' })).to.equal(path.join(os.homedir(), '.cairn'));
    });

    it('uses CAIRN_HOME as given when absolute', () => {
      expect(resolveCairnHome({ CAIRN_HOME: '/srv/cairn' })).to.equal('/srv/cairn');
    });

    it('expands a leading ~', () => {
      expect(resolveCairnHome({ CAIRN_HOME: '~/elsewhere' })).to.equal(path.join(os.homedir(), 'elsewhere'));
      expect(resolveCairnHome({ CAIRN_HOME: '~' })).to.equal(os.homedir());
    });

    it('makes a relative CAIRN_HOME absolute', () => {
      expect(resolveCairnHome({ CAIRN_HOME: 'rel/home' })).to.equal(path.resolve('rel/home'));
    });
  });

  it('homeLayout places every managed file under the home', () => {
    expect(homeLayout('/h')).to.deep.equal({
      home: '/h',
      configFile: '/h/config.yaml',
      envFile: '/h/.env',
      databaseFile: '/h/cairn.db',
      temporalDatabaseFile: '/h/temporal.db',
      workspaces: '/h/workspaces',
      worktrees: '/h/worktrees',
      logs: '/h/logs',
      cache: '/h/cache',
    });
  });

  describe('toolCacheDir', () => {
    it('prefers CAIRN_TOOL_CACHE', () => {
      expect(toolCacheDir({ CAIRN_TOOL_CACHE: '/tc', XDG_CACHE_HOME: '/xdg' })).to.equal('/tc');
    });

    it('falls back to $XDG_CACHE_HOME/cairn', () => {
      expect(toolCacheDir({ XDG_CACHE_HOME: '/xdg' })).to.equal('/xdg/cairn');
    });

    it('ignores a relative XDG_CACHE_HOME, as the XDG spec requires', () => {
      expect(toolCacheDir({ XDG_CACHE_HOME: 'relative' })).to.equal(
        path.join(os.homedir(), '.cache', 'cairn'),
      );
    });

    it('defaults to ~/.cache/cairn', () => {
      expect(toolCacheDir({})).to.equal(path.join(os.homedir(), '.cache', 'cairn'));
    });
  });

  it('ensureHomeLayout creates the directories and can run twice', () => {
    const layout = homeLayout(path.join(temp.make(), 'nested', 'home'));
    ensureHomeLayout(layout);
    ensureHomeLayout(layout);
    for (const dir of [layout.home, layout.workspaces, layout.worktrees, layout.logs, layout.cache]) {
      expect(fs.statSync(dir).isDirectory(), dir).to.equal(true);
    }
    expect(fs.existsSync(layout.configFile)).to.equal(false);
  });
});
