import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { findCodeHostDelivery } from '../../../db/repositories/code-host-deliveries.js';
import { githubRequest } from '../../../domain/codehost/github-payloads.js';
import { requestKey, type CodeHostRequest } from '../../../domain/codehost/code-host-request.js';
import { codeHostWorkflowId, type CodeHostWorkInput } from '../../../domain/codehost/code-host-work.js';
import {
  acceptCodeHostRequest,
  codeHostInbox,
  codeHostWorkStarter,
  startUnstartedRequests,
  type StartCodeHostWork,
} from '../../../services/codehost/code-host-inbox.js';
import { databaseKinds, type TestDatabase } from '../../support/databases.js';
import { testServiceContext } from '../../support/service-context.js';
import { makeTempDir } from '../../support/temp-dirs.js';
import { testTemporal } from '../../support/temporal.js';
import type { ServiceContext } from '../../../services/context.js';
import { issueCommentPayload } from '../../support/code-host-payloads.js';

function statusRequest(issue: number, deliveryId: string): CodeHostRequest {
  const payload = issueCommentPayload('https://github.com', 'acme/shop', issue, '/status', {
    commentId: 9000 + issue,
  });
  return githubRequest({ event: 'issue_comment', deliveryId, payload }, 'cairn-bot') as CodeHostRequest;
}

/**
 * The webhooks' outbox against a real database and Temporal server (no worker on the queue: the
 * workflows only need to exist): requests recorded together, each started once, and a request
 * answered but never started recovered by the sweep.
 */
for (const kind of databaseKinds()) {
  describe(`the code-host inbox on ${kind.name}`, function () {
    this.timeout(60_000);
    let test: TestDatabase;
    let context: ServiceContext;
    let home: ReturnType<typeof makeTempDir>;
    let starts: Map<string, number>;
    let start: StartCodeHostWork;

    beforeEach(async () => {
      test = await kind.create();
      home = makeTempDir('cairn-inbox-home-');
      context = testServiceContext(test.db, { home: home.path });
      const temporal = await testTemporal();
      const real = codeHostWorkStarter(temporal.client, `inbox-test-${randomUUID()}`);
      starts = new Map();
      start = async (input: CodeHostWorkInput) => {
        starts.set(input.requestKey, (starts.get(input.requestKey) ?? 0) + 1);
        await real(input);
      };
    });

    afterEach(async () => {
      context.config.close();
      await test.dispose();
      home.cleanup();
    });

    it('records 30 requests arriving at once (and 30 redeliveries) durably, and starts each once', async () => {
      const inbox = codeHostInbox(context, start);
      const deliveries = Array.from({ length: 30 }, (_, i) => [
        statusRequest(i, `first-${i}`),
        statusRequest(i, i % 2 === 0 ? `first-${i}` : `other-hook-${i}`),
      ]).flat();
      const answers = await Promise.all(deliveries.map((request) => acceptCodeHostRequest(inbox, request)));
      // Every answer came after its row was committed.
      for (const request of deliveries)
        expect(await findCodeHostDelivery(test.db.knex, 'github', requestKey(request))).to.not.equal(
          undefined,
        );
      expect(answers.filter((answer) => answer.outcome === 'accepted')).to.have.length(30);
      expect(answers.filter((answer) => answer.outcome === 'duplicate')).to.have.length(30);
      for (const answer of answers) answer.startAfter?.();
      await inbox.starts.idle();
      expect(starts.size).to.equal(30);
      expect([...starts.values()].every((count) => count === 1)).to.equal(true);
      const rows = (await test.db.knex('code_host_deliveries').whereNull('started_at')) as unknown[];
      expect(rows).to.have.length(0);
      // A redelivery now finds its request started: nothing to start.
      const again = await acceptCodeHostRequest(inbox, statusRequest(3, 'late'));
      expect(again).to.deep.equal({ outcome: 'duplicate' });
      const temporal = await testTemporal();
      const key = requestKey(statusRequest(3, 'x'));
      const described = await temporal.client.workflow
        .getHandle(codeHostWorkflowId({ platform: 'github', requestKey: key }))
        .describe();
      expect(described.status.name).to.equal('RUNNING');
    });

    it('starts a request answered before a crash (its start never ran) from the sweep, once', async () => {
      const before = codeHostInbox(context, start);
      const answer = await acceptCodeHostRequest(before, statusRequest(41, 'before-crash'));
      expect(answer.outcome).to.equal('accepted');
      // The process dies after the 2xx: startAfter never runs. A new process's sweep finds the row.
      const key = requestKey(statusRequest(41, 'x'));
      await test.db
        .knex('code_host_deliveries')
        .where({ request_key: key })
        .update({ received_at: '2026-01-01T00:00:00.000Z' });
      expect(await startUnstartedRequests(context, start)).to.equal(1);
      expect(await startUnstartedRequests(context, start)).to.equal(0);
      expect(starts.get(key)).to.equal(1);
      const after = codeHostInbox(context, start);
      expect(await acceptCodeHostRequest(after, statusRequest(41, 'redelivered'))).to.deep.equal({
        outcome: 'duplicate',
      });
    });
  });
}
