import { expect } from 'chai';
import { freePort } from '../../worker/temporal/ports.js';
import { fakeAssistants, type FakeAssistantSetup } from '../support/fake-assistants.js';
import { spawnCairn, standaloneCairnEnv, waitForOk, type CairnProcess } from '../support/cairn-process.js';
import { parseMetrics } from '../support/prometheus-text.js';
import { makeTempHome } from '../support/temp-dirs.js';

/** What an operator scrapes and probes on a real `cairn start`: readiness, and metrics with the Temporal SDK's own. */
describe('operator endpoints of cairn start (/health/ready, /metrics)', function () {
  this.timeout(2 * 60_000);
  let fakes: FakeAssistantSetup;
  let home: ReturnType<typeof makeTempHome>;
  let cairn: CairnProcess | undefined;
  let url: string;
  let metricsUrl: string;

  before(async () => {
    fakes = fakeAssistants();
    home = makeTempHome();
    const [port, metricsPort] = [await freePort(), await freePort()];
    const env = standaloneCairnEnv(home.home, port, { ...fakes.env, METRICS_PORT: String(metricsPort) });
    cairn = spawnCairn(['start'], { env, cwd: home.home });
    metricsUrl = `http://127.0.0.1:${metricsPort}`;
    url = `http://127.0.0.1:${port}`;
    await waitForOk(`${url}/health`, cairn, 90_000);
  });

  after(async () => {
    await cairn?.stop();
    fakes?.cleanup();
    home?.cleanup();
  });

  it('is ready once its workers poll, and /metrics carries the Temporal workers figures', async () => {
    await waitForOk(`${url}/health/ready`, cairn!, 30_000);
    const text = await (await fetch(`${url}/metrics`)).text();
    const names = parseMetrics(text).map((family) => family.name);
    expect(names).to.include('cairn_http_request_duration_seconds').and.include('cairn_workflow_runs');
    const sdk = names.filter((name) => name.startsWith('temporal_'));
    expect(sdk.length, names.join(', ')).to.be.above(0);
  });

  it('serves /metrics on METRICS_PORT too, without sign-in, and nothing else there', async () => {
    const response = await fetch(`${metricsUrl}/metrics`);
    expect(response.status).to.equal(200);
    const names = parseMetrics(await response.text()).map((family) => family.name);
    expect(names).to.include('cairn_conversation_turns');
    expect(names.some((name) => name.startsWith('temporal_'))).to.equal(true);
    expect((await fetch(`${metricsUrl}/api/health`)).status).to.equal(404);
  });
});
