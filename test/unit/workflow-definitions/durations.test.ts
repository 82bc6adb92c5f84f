import { expect } from 'chai';
import {
  checkDuration,
  formatDuration,
  parseDuration,
  RETRY_DELAY_BOUNDS,
  TIMEOUT_BOUNDS,
} from '../../../domain/workflow-definitions/index.js';

describe('workflow definitions: durations', () => {
  it('reads a whole number and s, m or h', () => {
    expect(parseDuration('90s')).to.equal(90_000);
    expect(parseDuration('10m')).to.equal(600_000);
    expect(parseDuration('2h')).to.equal(7_200_000);
    expect(parseDuration('0s')).to.equal(0);
  });

  it('refuses anything else', () => {
    for (const text of [
      '',
      '90',
      's',
      '1.5h',
      '-1s',
      '01s',
      '10 m',
      '10M',
      '500ms',
      '1d',
      ' 1s',
      '1s ',
      '1234567890s',
    ]) {
      expect(parseDuration(text), text).to.equal(undefined);
    }
  });

  it('formats milliseconds in the largest exact unit', () => {
    expect(formatDuration(0)).to.equal('0s');
    expect(formatDuration(1000)).to.equal('1s');
    expect(formatDuration(90_000)).to.equal('90s');
    expect(formatDuration(600_000)).to.equal('10m');
    expect(formatDuration(86_400_000)).to.equal('24h');
    expect(formatDuration(1500)).to.equal('1500ms');
  });

  it('checks values against bounds, inclusive', () => {
    expect(checkDuration('0s', RETRY_DELAY_BOUNDS)).to.deep.equal({ ok: true, ms: 0 });
    expect(checkDuration('10m', RETRY_DELAY_BOUNDS)).to.deep.equal({ ok: true, ms: 600_000 });
    expect(checkDuration('601s', RETRY_DELAY_BOUNDS)).to.deep.equal({
      ok: false,
      message: 'must be between 0s and 10m',
    });
    expect(checkDuration('1s', TIMEOUT_BOUNDS)).to.deep.equal({ ok: true, ms: 1000 });
    expect(checkDuration('24h', TIMEOUT_BOUNDS)).to.deep.equal({ ok: true, ms: 86_400_000 });
    expect(checkDuration('1441m', TIMEOUT_BOUNDS)).to.deep.equal({
      ok: false,
      message: 'must be between 1s and 24h',
    });
    expect(checkDuration('0s', TIMEOUT_BOUNDS).ok).to.equal(false);
  });

  it('says what a duration looks like when the value is not one', () => {
    const expected = {
      ok: false,
      message: 'must be a duration: a whole number and s, m or h, such as 90s, 10m or 2h',
    };
    expect(checkDuration(30, TIMEOUT_BOUNDS)).to.deep.equal(expected);
    expect(checkDuration('soon', TIMEOUT_BOUNDS)).to.deep.equal(expected);
    expect(checkDuration(null, TIMEOUT_BOUNDS)).to.deep.equal(expected);
  });
});
