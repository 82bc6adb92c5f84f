import { defineRoutes, type RouteDefinition } from '../http/route.js';

export interface UpdateInfo {
  updateAvailable: boolean;
  currentVersion: string;
  latestVersion: string;
  releaseUrl: string;
}

/**
 * A source build (a git clone run with npm) updates through git, so it never asks a release
 * server: it reports its own version as the latest and makes no outside request.
 */
export function sourceBuildUpdateInfo(version: string, releasesUrl: string): UpdateInfo {
  return { updateAvailable: false, currentVersion: version, latestVersion: version, releaseUrl: releasesUrl };
}

export function updateRoutes(info: UpdateInfo): RouteDefinition[] {
  return defineRoutes({
    method: 'GET',
    path: '/api/update-check',
    operationId: 'checkForUpdate',
    summary: 'Whether a newer release exists (source builds: always false, no outside request)',
    tags: ['system'],
    responses: {
      200: {
        description: 'version information',
        schema: {
          type: 'object',
          required: ['updateAvailable', 'currentVersion', 'latestVersion', 'releaseUrl'],
          properties: {
            updateAvailable: { type: 'boolean' },
            currentVersion: { type: 'string' },
            latestVersion: { type: 'string' },
            releaseUrl: { type: 'string' },
          },
        },
      },
    },
    handler: () => ({ body: info }),
  });
}
