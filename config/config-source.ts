import type { CairnConfig } from './config-types.js';
import type { Environment } from './environment.js';
import { TrackedFile } from './file-signature.js';
import {
  composeConfig,
  globalConfigFile,
  readGlobalLayer,
  readRepositoryLayer,
  repositoryConfigFile,
  type ConfigLayer,
} from './load-config.js';
import type { Logger } from './logger.js';
import { RecentCache } from './recent-cache.js';

/**
 * The configuration of a long-lived process. Each file is read and parsed once and read again
 * only when it changes, so request handlers and activities can ask for the config as often as
 * they like. Every answer is a frozen object; a changed file gives a new object, never a changed
 * one.
 */
export interface ConfigSource {
  /** Defaults < `<home>/config.yaml` < environment. */
  global(): CairnConfig;
  /** The global config layered with `<repoPath>/.cairn/config.yaml`. */
  forRepository(repoPath: string): CairnConfig;
  /** Forgets every file read, so the next answer reads them again (after a config write). */
  reload(): void;
  /** Releases the file watches; answers after this still see changes, through the file checks. */
  close(): void;
}

export interface ConfigSourceOptions {
  home: string;
  environment: Environment;
  logger: Logger;
  /** Watch the files read (default true); the per-use file check works either way. */
  watch?: boolean;
  /** Repositories whose config is kept; the least recently used go first (default 128). */
  maxRepositories?: number;
}

/** A config file kept as read, read again when it may have changed. */
class CachedLayer {
  private readonly file: TrackedFile;
  private layer: ConfigLayer | undefined;
  /** Grows with each read, so configs composed from an older read can tell. */
  version = 0;

  constructor(
    path: string,
    private readonly read: () => ConfigLayer,
    private readonly logger: Logger,
    watching: () => boolean,
  ) {
    this.file = new TrackedFile(path, watching);
  }

  current(): ConfigLayer {
    if (this.layer && !this.file.changed()) return this.layer;
    if (this.layer)
      this.logger.info({ event: 'config.changed', file: this.file.path }, 'config file changed');
    this.file.markRead();
    this.layer = this.read();
    this.version += 1;
    return this.layer;
  }

  forget(): void {
    this.layer = undefined;
  }

  close(): void {
    this.file.close();
  }
}

interface Composed {
  globalVersion: number;
  ownVersion: number;
  config: CairnConfig;
}

interface RepositoryEntry {
  layer: CachedLayer;
  composed?: Composed;
}

class FileConfigSource implements ConfigSource {
  private readonly globalLayer: CachedLayer;
  private globalComposed: Composed | undefined;
  private readonly repositories: RecentCache<string, RepositoryEntry>;
  private watching: boolean;

  constructor(private readonly options: ConfigSourceOptions) {
    this.watching = options.watch ?? true;
    const watching = () => this.watching;
    const { home, logger } = options;
    this.globalLayer = new CachedLayer(
      globalConfigFile(home),
      () => readGlobalLayer(home, logger),
      logger,
      watching,
    );
    this.repositories = new RecentCache(options.maxRepositories ?? 128, (entry) => entry.layer.close());
  }

  global(): CairnConfig {
    const layer = this.globalLayer.current();
    const version = this.globalLayer.version;
    if (this.globalComposed?.globalVersion !== version) {
      const config = composeConfig(this.options.home, this.options.environment, layer);
      this.globalComposed = { globalVersion: version, ownVersion: 0, config };
    }
    return this.globalComposed.config;
  }

  forRepository(repoPath: string): CairnConfig {
    const entry = this.repositoryEntry(repoPath);
    const globalLayer = this.globalLayer.current();
    const ownLayer = entry.layer.current();
    const globalVersion = this.globalLayer.version;
    const ownVersion = entry.layer.version;
    const composed = entry.composed;
    if (composed?.globalVersion === globalVersion && composed.ownVersion === ownVersion)
      return composed.config;
    const { home, environment } = this.options;
    const config = composeConfig(home, environment, globalLayer, ownLayer);
    entry.composed = { globalVersion, ownVersion, config };
    return config;
  }

  reload(): void {
    this.globalLayer.forget();
    this.repositories.clear();
  }

  close(): void {
    this.watching = false;
    this.globalLayer.close();
    this.repositories.clear();
  }

  private repositoryEntry(repoPath: string): RepositoryEntry {
    const known = this.repositories.get(repoPath);
    if (known) return known;
    const { logger } = this.options;
    const entry: RepositoryEntry = {
      layer: new CachedLayer(
        repositoryConfigFile(repoPath),
        () => readRepositoryLayer(repoPath, logger),
        logger,
        () => this.watching,
      ),
    };
    this.repositories.set(repoPath, entry);
    return entry;
  }
}

export function createConfigSource(options: ConfigSourceOptions): ConfigSource {
  return new FileConfigSource(options);
}
