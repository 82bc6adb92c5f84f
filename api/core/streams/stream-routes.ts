import { defineRoute, defineRoutes, StrictObject, Type, type RouteDefinition } from '../../http/index.js';
import { lastEventIdOf, openEventStream } from '../../http/sse.js';
import type { JournalEvent } from '../../../db/repositories/events.js';
import type { ServiceContext } from '../../../services/context.js';
import type { JournalHub } from '../../../services/streams/journal-hub.js';
import { watchStream } from '../../../services/streams/stream-watch.js';

export interface StreamRouteDependencies {
  context: ServiceContext;
  hub: JournalHub;
  heartbeatMs?: number;
}

function frameOf(event: JournalEvent) {
  return { type: event.type, ...event.payload, created_at: event.createdAt };
}

/** Server-Sent Events tailing the journal: one conversation's events, or every workflow event. */
export function streamRoutes(deps: StreamRouteDependencies): RouteDefinition[] {
  return defineRoutes(
    defineRoute({
      method: 'GET',
      path: '/api/stream/{conversationId}',
      operationId: 'streamConversation',
      summary: 'Live events of a conversation (or of every workflow, for `__dashboard__`)',
      description:
        'text/event-stream. Every frame has an `id:` (its journal id) and JSON `data` with a `type`. Reconnect with ' +
        'Last-Event-ID (or `?lastEventId=`) to receive everything missed, including events written by other processes ' +
        'or before a restart. Without either, the stream starts with the next event. A comment line is sent every 15 s.',
      tags: ['streams'],
      params: Type.Object({ conversationId: Type.String({ minLength: 1, maxLength: 255 }) }),
      query: StrictObject({
        lastEventId: Type.Optional(
          Type.String({ maxLength: 20, description: 'alternative to the Last-Event-ID header' }),
        ),
      }),
      responses: {
        200: {
          description: 'the event stream',
          contentType: 'text/event-stream',
          schema: Type.String(),
        },
      },
      handler: async ({ params, query, ctx }) => {
        // Found (or refused) before the stream opens: a 404 must still be able to answer.
        const watch = await watchStream(
          deps.context,
          deps.hub,
          params.conversationId,
          lastEventIdOf(ctx, query.lastEventId),
        );
        const stream = openEventStream(ctx, { heartbeatMs: deps.heartbeatMs });
        try {
          const leave = await watch.start({
            deliver(events) {
              for (const event of events) if (!stream.send(event.id, frameOf(event))) return;
            },
          });
          stream.onClose(leave);
        } catch (error) {
          stream.close();
          throw error;
        }
      },
    }),
  );
}
