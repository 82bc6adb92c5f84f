import { defineRoute, defineRoutes, type RouteDefinition } from '../http/route.js';
import { StrictObject, Type, type Static } from '../http/schema.js';

const UpdateInfoSchema = StrictObject({
  updateAvailable: Type.Boolean(),
  currentVersion: Type.String(),
  latestVersion: Type.String(),
  releaseUrl: Type.String(),
  checked: Type.Boolean({
    description: 'whether a release server was asked; false for a source build, which updates through git',
  }),
});

export type UpdateInfo = Static<typeof UpdateInfoSchema>;

/**
 * A source build (a git clone run with npm) updates through git, so it never asks a release
 * server: it reports its own version as the latest and makes no outside request.
 */
export function sourceBuildUpdateInfo(version: string, releasesUrl: string): UpdateInfo {
  return {
    updateAvailable: false,
    currentVersion: version,
    latestVersion: version,
    releaseUrl: releasesUrl,
    checked: false,
  };
}

export function updateRoutes(info: UpdateInfo): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/update-check',
      operationId: 'checkForUpdate',
      summary: 'Whether a newer release exists (source builds: always false, no outside request)',
      tags: ['system'],
      responses: { 200: { description: 'version information', schema: UpdateInfoSchema } },
      handler: () => ({ body: info }),
    }),
  );
}
