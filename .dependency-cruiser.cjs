/**
 * The layers of Cairn and the directions their imports may point (docs/architecture.md).
 * `npm run lint` runs this; test/unit/lint/layers.test.ts proves a wrong-way import fails it.
 *
 *   domain     pure logic, importable from workflow code        -> nothing
 *   config     settings, paths, the logger                      -> domain
 *   db         Knex, migrations, one repository per aggregate   -> domain, config
 *   infra      outside systems that keep none of our records    -> domain, config
 *              (git, process groups, assistant SDKs, Temporal operator calls)
 *   workflows  Temporal workflow code (the sandbox)             -> domain; types of activities
 *                                                                  and of what they return
 *   services   the use cases of each domain, and the only       -> db, infra, domain, config,
 *              code that starts, signals or queries workflows      workflow messages
 *   activities what workflows ask of the outside world          -> services, db, infra, domain, config
 *   api        HTTP: parse, call one service, shape the answer  -> services, domain, config;
 *                                                                  record types of db
 *   adapters   chat doors: receive from a platform, call the    -> services, infra, domain, config;
 *              same services as the API                            record types of db
 *   worker     worker bootstrap and periodic tasks              -> activities, workflows, services, ...
 *   cli        the cairn command                                -> api, adapters, worker, services, client ...
 *   client     the terminal door: an HTTP client of the API     -> domain only (never server code)
 */
const layer = (name) => `^${name}/`;
const only = (from, allowed) => ({
  name: `${from}-imports`,
  comment: `${from}/ may import only from ${allowed.join(', ') || 'itself'} (docs/architecture.md)`,
  severity: 'error',
  from: { path: layer(from) },
  to: {
    path: '^(domain|config|db|infra|workflows|services|activities|api|worker|cli|client|adapters|scripts|bench|test|web)/',
    pathNot: [layer(from), ...allowed.map(layer)],
  },
});
/** `from` may import nothing but types from `to`. */
const typesOnly = (from, to, why) => ({
  name: `${from}-imports-only-types-of-${to}`,
  comment: why,
  severity: 'error',
  from: { path: layer(from) },
  to: { path: layer(to), dependencyTypesNot: ['type-only'] },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    only('domain', []),
    only('config', ['domain']),
    only('db', ['domain', 'config']),
    only('infra', ['domain', 'config']),
    only('services', ['domain', 'config', 'db', 'infra', 'workflows']),
    only('activities', ['domain', 'config', 'db', 'infra', 'services']),
    only('api', ['domain', 'config', 'services', 'db']),
    typesOnly('api', 'db', 'Handlers name record types; every read and write goes through a service.'),
    only('adapters', ['domain', 'config', 'services', 'infra', 'db']),
    typesOnly('adapters', 'db', 'Adapters name record types; every read and write goes through a service.'),
    only('worker', ['domain', 'config', 'db', 'infra', 'services', 'activities', 'workflows']),
    only('cli', ['domain', 'config', 'db', 'infra', 'services', 'worker', 'api', 'adapters', 'client']),
    only('client', ['domain']),
    // The web page runs in the browser: it shares only the pure tables of domain/, never server code.
    only('web', ['domain']),
    only('workflows', ['domain', 'activities', 'services']),
    typesOnly(
      'workflows',
      'activities',
      'Workflow code runs in the sandbox: it names activity types, never loads them.',
    ),
    typesOnly(
      'workflows',
      'services',
      'Workflow code runs in the sandbox: it names result types, never loads them.',
    ),
    {
      name: 'services-reach-workflows-through-message-definitions',
      comment: 'Services import signal and query definitions, never workflow code itself.',
      severity: 'error',
      from: { path: layer('services') },
      to: { path: layer('workflows'), pathNot: '^workflows/[^/]+/[^/]*messages\\.ts$' },
    },
    {
      name: 'production-code-never-imports-tests',
      severity: 'error',
      from: { pathNot: '^(test|bench|scripts)/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
