import { expect } from 'chai';
import type { CodeHostWorkInput } from '../../../domain/codehost/code-host-work.js';
import { GroupCommit } from '../../../services/codehost/group-commit.js';
import { StartQueue } from '../../../services/codehost/start-queue.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));
const request = (n: number): CodeHostWorkInput => ({ platform: 'github', requestKey: `acme/shop#${n}` });

describe('GroupCommit: the writes of requests that arrive together', () => {
  it('writes the items added in one turn together, and those added during a write in the next', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const group = new GroupCommit(async (items: number[]) => {
      writes.push(items);
      if (writes.length === 1) await held;
      return items.map((item) => item * 10);
    });
    const first = [1, 2, 3].map((item) => group.add(item));
    await turn();
    const later = [4, 5].map((item) => group.add(item));
    await turn();
    expect(writes).to.deep.equal([[1, 2, 3]]);
    release();
    expect(await Promise.all([...first, ...later])).to.deep.equal([10, 20, 30, 40, 50]);
    expect(writes).to.deep.equal([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('with a gathering window, writes the items added over several turns together', async () => {
    const writes: number[][] = [];
    const group = new GroupCommit(async (items: number[]) => {
      writes.push(items);
      return items;
    }, 20);
    const added = [group.add(1)];
    await turn();
    added.push(group.add(2));
    await turn();
    added.push(group.add(3));
    expect(writes).to.deep.equal([]);
    expect(await Promise.all(added)).to.deep.equal([1, 2, 3]);
    expect(writes).to.deep.equal([[1, 2, 3]]);
  });

  it('fails every item of a failed write, and writes the next ones anew', async () => {
    let fail = true;
    const group = new GroupCommit(async (items: string[]) => {
      if (fail) throw new Error('database is locked');
      return items;
    });
    const failed = await Promise.allSettled([group.add('a'), group.add('b')]);
    expect(failed.map((outcome) => outcome.status)).to.deep.equal(['rejected', 'rejected']);
    fail = false;
    expect(await group.add('c')).to.equal('c');
  });
});

describe('StartQueue: workflow starts after the answers', () => {
  function queue(options: { failStart?: boolean; maxDelayMs?: number } = {}) {
    const started: string[] = [];
    const marked: string[][] = [];
    const failures: string[][] = [];
    const starts = new StartQueue({
      start: async (input) => {
        if (options.failStart) throw new Error('Temporal is away');
        started.push(input.requestKey);
      },
      markStarted: async (inputs) => void marked.push(inputs.map((input) => input.requestKey)),
      onError: (_error, inputs) => failures.push(inputs.map((input) => input.requestKey)),
      parallel: 2,
      maxDelayMs: options.maxDelayMs ?? 60_000,
    });
    return { starts, started, marked, failures };
  }

  it('holds its starts while a webhook is in flight, then starts each request once, noting them per batch', async () => {
    const { starts, started, marked } = queue();
    const answered = starts.receiving();
    starts.add(request(1));
    starts.add(request(2));
    starts.add(request(1));
    starts.add(request(3));
    await turn();
    await turn();
    expect(started).to.deep.equal([]);
    answered();
    answered(); // once counts once
    await starts.idle();
    expect(started).to.deep.equal(['acme/shop#1', 'acme/shop#2', 'acme/shop#3']);
    expect(marked).to.deep.equal([['acme/shop#1', 'acme/shop#2'], ['acme/shop#3']]);
  });

  it('does not wait longer than its limit for a steady stream of webhooks', async () => {
    const { starts, started } = queue({ maxDelayMs: 1 });
    starts.receiving(); // never answered
    starts.add(request(7));
    await starts.idle();
    expect(started).to.deep.equal(['acme/shop#7']);
  });

  it('leaves a request whose start failed unmarked, for the sweep', async () => {
    const { starts, marked, failures } = queue({ failStart: true });
    starts.add(request(8));
    await starts.idle();
    expect(marked).to.deep.equal([]);
    expect(failures).to.deep.equal([['acme/shop#8']]);
  });
});
