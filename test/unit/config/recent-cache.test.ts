import { expect } from 'chai';
import { RecentCache } from '../../../config/recent-cache.js';

describe('RecentCache', () => {
  it('keeps the most recently used entries, reads counting as uses', () => {
    const evicted: string[] = [];
    const cache = new RecentCache<string, string>(3, (value) => evicted.push(value));
    cache.set('a', 'A');
    cache.set('b', 'B');
    cache.set('c', 'C');
    expect(cache.get('a')).to.equal('A'); // a is now newer than b and c
    cache.set('d', 'D');
    expect(evicted).to.deep.equal(['B']);
    expect(cache.get('b')).to.equal(undefined);
    cache.get('c');
    cache.set('e', 'E');
    expect(evicted).to.deep.equal(['B', 'A']);
    expect(['c', 'd', 'e'].map((key) => cache.get(key))).to.deep.equal(['C', 'D', 'E']);
  });

  it('evicts a replaced value, not the same value set again, and counts a replacement as a use', () => {
    const evicted: string[] = [];
    const cache = new RecentCache<string, string>(2, (value) => evicted.push(value));
    cache.set('a', 'A');
    cache.set('b', 'B');
    cache.set('a', 'A');
    expect(evicted).to.deep.equal([]);
    cache.set('a', 'A2');
    expect(evicted).to.deep.equal(['A']);
    cache.set('c', 'C'); // b is the least recent: a was set after it
    expect(evicted).to.deep.equal(['A', 'B']);
    expect(cache.get('a')).to.equal('A2');
  });

  it('evicts on delete and clear, and stays bounded under many keys', () => {
    const evicted: number[] = [];
    const cache = new RecentCache<number, number>(4, (value) => evicted.push(value));
    for (let key = 0; key < 1000; key++) {
      cache.set(key, key);
      cache.get(0); // 0 stays the most recently used throughout
    }
    expect(evicted).to.have.length(996);
    expect(evicted).to.not.include(0);
    expect(cache.get(0)).to.equal(0);
    cache.delete(999);
    cache.delete(12345);
    expect(evicted.at(-1)).to.equal(999);
    cache.clear();
    expect(evicted.slice(-3).sort((a, b) => a - b)).to.deep.equal([0, 997, 998]);
    expect(cache.get(998)).to.equal(undefined);
  });
});
