import { createLogger, type Logger } from '../../config/logger.js';
import { ensureHomeLayout, homeLayout, resolveCairnHome, type HomeLayout } from '../../config/paths.js';
import { readEnvironment, type Environment } from '../../config/environment.js';
import { createConfigSource, type ConfigSource } from '../../config/config-source.js';
import type { CairnConfig } from '../../config/config-types.js';
import { prepareProcessEnvironment, warnIfNested } from '../../config/dotenv.js';
import { readSignInSettings, type SignInSettings } from '../../config/sign-in-settings.js';
import { packageInfo, PACKAGE_ROOT, type PackageInfo } from './package-info.js';

/** What every command starts from: the environment, the home, the config and a logger. */
export interface CairnContext {
  cwd: string;
  environment: Environment;
  /** Who may use the HTTP services (checked at start: half a form sign-in is an error). */
  signIn: SignInSettings;
  layout: HomeLayout;
  /** The global config as it is now (read from configSource, which reads the file once). */
  readonly config: CairnConfig;
  /** The process's one config source; the services and activities read it too. */
  configSource: ConfigSource;
  logger: Logger;
  pkg: PackageInfo;
}

export interface ContextOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where log lines go (tests); stdout by default. */
  logDestination?: NodeJS.WritableStream;
  /** False for commands that only look (`cairn doctor`): the home is not created. */
  createHome?: boolean;
}

/**
 * Spec rule 7 first (drop what leaked in from the working directory, then load <home>/.env),
 * then read every variable once, create the home layout and load the global config.
 * `config` always answers the current file: a changed config.yaml is read again on next use.
 */
export function createContext(options: ContextOptions = {}): CairnContext {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const pkg = packageInfo();
  // Only the home is needed before .env handling; full validation comes after it.
  const home = resolveCairnHome(env);
  // LOG_LEVEL is not validated yet; an unknown level falls back to info for these few lines.
  const earlyLogger = createLogger({ level: env.LOG_LEVEL, destination: options.logDestination });
  const prepared = prepareProcessEnvironment({
    cwd,
    home,
    env,
    isSourceBuild: pkg.isSourceBuild,
    packageRoot: PACKAGE_ROOT,
    logger: earlyLogger,
  });
  const environment = readEnvironment(env);
  const signIn = readSignInSettings(environment);
  warnIfNested(prepared, env);
  const logger = createLogger({ level: environment.general.logLevel, destination: options.logDestination });
  const layout = homeLayout(environment.general.home);
  if (options.createHome ?? true) ensureHomeLayout(layout);
  const configSource = createConfigSource({ home: layout.home, environment, logger });
  // Read now, so a broken config file is reported at start-up rather than at the first request.
  configSource.global();
  return {
    cwd,
    environment,
    signIn,
    layout,
    get config() {
      return configSource.global();
    },
    configSource,
    logger,
    pkg,
  };
}
