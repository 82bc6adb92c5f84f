import { expect } from 'chai';
import { anyFilter, apiFilters, endOfDay, filtersOf, startOfDay } from '../../../web/src/runs/run-filters.js';

describe('the run list filters (web/src/runs/run-filters.ts)', () => {
  it('reads every filter from the address, missing ones empty', () => {
    const filters = filtersOf(
      new URLSearchParams('status=failed&workflow=build&codebase=c1&since=2026-11-01'),
    );
    expect(filters).to.deep.equal({
      status: 'failed',
      q: '',
      workflow: 'build',
      codebase: 'c1',
      since: '2026-11-01',
      until: '',
    });
    expect(anyFilter(filters)).to.equal(true);
    expect(anyFilter(filtersOf(new URLSearchParams()))).to.equal(false);
  });

  it("turns a day into its local start and the next day's local start", () => {
    // Whatever zone the test runs in: the instants are that zone's midnights.
    expect(startOfDay('2026-11-01')).to.equal(new Date(2026, 10, 1).toISOString());
    expect(endOfDay('2026-11-01')).to.equal(new Date(2026, 10, 2).toISOString());
    // The end of a month and of a year roll over.
    expect(endOfDay('2026-12-31')).to.equal(new Date(2027, 0, 1).toISOString());
    expect(endOfDay('2028-02-28')).to.equal(new Date(2028, 1, 29).toISOString());
  });

  it('treats a day that does not exist, or that is not a day, as no filter', () => {
    for (const day of ['', '2026-02-31', '2026-13-01', 'yesterday', '2026-1-1', '2026-11-01T00:00'])
      expect([startOfDay(day), endOfDay(day)], day).to.deep.equal([undefined, undefined]);
  });

  it('sends the API its names, the codebase as codebase_id and the days as instants', () => {
    const sent = apiFilters(
      filtersOf(new URLSearchParams('q=deploy&codebase=c1&workflow=build&since=2026-11-01&until=2026-11-03')),
    );
    expect(sent).to.deep.equal({
      status: '',
      q: 'deploy',
      workflow: 'build',
      codebase_id: 'c1',
      since: new Date(2026, 10, 1).toISOString(),
      until: new Date(2026, 10, 4).toISOString(),
    });
  });
});
