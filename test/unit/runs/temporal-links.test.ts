import { expect } from 'chai';
import { temporalExecutionUrl, temporalUiBase } from '../../../domain/temporal-links.js';

describe("a run's link to the Temporal Web UI", () => {
  it("points at the execution's page in its namespace, whatever the base's trailing slash", () => {
    expect(temporalExecutionUrl('http://ui.example:8080/', 'default', 'run-1')).to.equal(
      'http://ui.example:8080/namespaces/default/workflows/run-1',
    );
    expect(temporalExecutionUrl('https://temporal.example/ui', 'team a', 'run-a/b')).to.equal(
      'https://temporal.example/ui/namespaces/team%20a/workflows/run-a%2Fb',
    );
  });

  it('uses TEMPORAL_UI_URL, else the embedded UI when Cairn runs its own Temporal, else none', () => {
    expect(temporalUiBase({ uiUrl: 'http://ui', address: 'temporal:7233' })).to.equal('http://ui');
    expect(temporalUiBase({})).to.equal('http://127.0.0.1:8233');
    expect(temporalUiBase({ uiPort: 8300 })).to.equal('http://127.0.0.1:8300');
    expect(temporalUiBase({ address: 'temporal:7233' })).to.equal(undefined);
  });
});
