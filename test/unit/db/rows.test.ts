import { expect } from 'chai';
import { toIso } from '../../../db/rows.js';
import { limitClause, SqlConditions } from '../../../db/sql-conditions.js';

describe('row conversions', () => {
  it('returns canonical ISO text as it is and normalizes every other form', () => {
    expect(toIso('2026-06-01T12:00:00.000Z')).to.equal('2026-06-01T12:00:00.000Z');
    expect(toIso(new Date(Date.UTC(2026, 5, 1, 12)))).to.equal('2026-06-01T12:00:00.000Z');
    // SQLite's CURRENT_TIMESTAMP form, an offset and a missing fraction are parsed and rewritten.
    expect(toIso('2026-06-01T14:00:00+02:00')).to.equal('2026-06-01T12:00:00.000Z');
    expect(toIso('2026-06-01T12:00:00Z')).to.equal('2026-06-01T12:00:00.000Z');
    expect(toIso('2026-06-01 12:00:00Z')).to.equal('2026-06-01T12:00:00.000Z');
  });
});

describe('SqlConditions', () => {
  it('keeps each clause beside its parameters, in order', () => {
    const conditions = new SqlConditions().add('a = ?', 1).in('b', ['x', 'y']).add('c is null');
    expect(conditions.where).to.equal(' where a = ? and b in (?, ?) and c is null');
    expect(conditions.params).to.deep.equal([1, 'x', 'y']);
  });

  it('matches nothing for an empty list and adds no where without clauses', () => {
    expect(new SqlConditions().where).to.equal('');
    expect(new SqlConditions().in('b', []).where).to.equal(' where 1 = 0');
  });
});

describe('limitClause', () => {
  it('writes an integer limit and refuses anything else', () => {
    expect(limitClause(51)).to.equal(' limit 51');
    expect(() => limitClause(1.5)).to.throw(RangeError);
    expect(() => limitClause(-1)).to.throw(RangeError);
    expect(() => limitClause(Number('1; drop table runs'))).to.throw(RangeError);
  });
});
