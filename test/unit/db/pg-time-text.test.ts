import { expect } from 'chai';
import pg from 'pg';
import { TIMESTAMPTZ_OID, timestamptzAsIso, typesWithIsoTimes } from '../../../db/pg-time-text.js';
import { toIso } from '../../../db/rows.js';

const driverParse = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown;
/** What the repositories made of a time before: the driver's Date, as ISO text. */
const before = (text: string) => toIso(driverParse(text));

describe('timestamptz text as ISO', () => {
  it('writes the same ISO text as the driver parser gave, without a Date on the usual path', () => {
    for (const text of [
      '2026-01-01 02:46:39+00',
      '2026-01-01 02:46:39.1+00',
      '2026-01-01 02:46:39.12+00',
      '2026-11-24 23:59:59.123+00',
      '2026-11-24 23:59:59.123456+00',
      '2026-11-24 23:59:59.999999+00',
      '2026-03-29 01:30:00.5+05:30',
      '2026-03-29 01:30:00.5-08',
      '2026-12-31 23:00:00-03:30',
    ])
      expect(timestamptzAsIso(text, driverParse), text).to.equal(before(text));
    expect(timestamptzAsIso('2026-01-01 02:46:39.123+00', driverParse)).to.equal('2026-01-01T02:46:39.123Z');
  });

  it('leaves other forms to the driver parser', () => {
    const seen: string[] = [];
    const fallback = (text: string) => (seen.push(text), driverParse(text));
    expect(timestamptzAsIso('infinity', fallback)).to.equal(Infinity);
    expect(toIso(timestamptzAsIso('0044-03-15 12:00:00+00 BC', fallback))).to.equal(
      before('0044-03-15 12:00:00+00 BC'),
    );
    expect(toIso(timestamptzAsIso('1912-04-15 02:20:00+00:19:32', fallback))).to.equal(
      before('1912-04-15 02:20:00+00:19:32'),
    );
    expect(seen).to.have.length(3);
  });

  it('changes the parser of timestamptz only', () => {
    const types = typesWithIsoTimes();
    expect(types.getTypeParser(TIMESTAMPTZ_OID, 'text')('2026-01-01 00:00:00+00')).to.equal(
      '2026-01-01T00:00:00.000Z',
    );
    expect(types.getTypeParser(20, 'text')).to.equal(pg.types.getTypeParser(20, 'text'));
    expect(types.getTypeParser(1114, 'text')).to.equal(pg.types.getTypeParser(1114, 'text'));
  });
});
