import {
  ComponentRef,
  defineRoute,
  defineRoutes,
  problemResponse,
  StrictObject,
  Type,
  type RouteDefinition,
} from '../../http/index.js';
import type { ServiceContext } from '../../../services/context.js';
import { listRunArtifacts, openRunArtifact } from '../../../services/runs/run-artifacts.js';
import { RunArtifactList } from './run-view.js';

const runParams = { runId: Type.String({ minLength: 1, maxLength: 64 }) };

/** `attachment`, with the name as plain ASCII and in full (RFC 6266, RFC 8187). */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** The files a run wrote to its `$ARTIFACTS_DIR`, and each one's bytes. */
export function runArtifactRoutes(context: ServiceContext): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/workflows/runs/{runId}/artifacts',
      operationId: 'listRunArtifacts',
      summary: 'The files a run wrote to its artifacts folder ($ARTIFACTS_DIR), folders walked',
      tags: ['runs'],
      params: StrictObject(runParams),
      responses: {
        200: { description: 'the files', schema: ComponentRef('RunArtifactList', RunArtifactList) },
      },
      handler: async ({ params }) => ({ body: await listRunArtifacts(context, params.runId) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/workflows/runs/{runId}/artifacts/{path}',
      operationId: 'getRunArtifact',
      summary: "One of a run's artifacts, to download",
      description:
        "The path is one URL segment: the listed `path` URL-encoded whole (`/` as `%2F`). It stays inside the run's artifacts folder: `..`, absolute paths, links that lead outside and anything but a regular file are refused. UTF-8 text is sent as `text/plain; charset=utf-8`, anything else as `application/octet-stream`, always as an attachment.",
      tags: ['runs'],
      params: StrictObject({ ...runParams, path: Type.String({ minLength: 1, maxLength: 4096 }) }),
      responses: {
        200: { description: "the file's bytes", contentType: 'application/octet-stream' },
        400: problemResponse('invalid_artifact_path: the path leaves the folder or is not a regular file'),
        404: problemResponse('not_found: no such run; artifact_not_found: no such file'),
      },
      handler: async ({ params }) => {
        const artifact = await openRunArtifact(context, params.runId, params.path);
        return {
          body: artifact.file.createReadStream(),
          type: artifact.contentType,
          headers: {
            'Content-Length': String(artifact.size),
            'Content-Disposition': attachment(artifact.name),
            'X-Content-Type-Options': 'nosniff',
            'Last-Modified': new Date(artifact.modifiedAt).toUTCString(),
            'Cache-Control': 'private, no-cache',
          },
        };
      },
    }),
  );
}
