// A CPU profile of one phase of a benchmark inside its own process (node:inspector), summed by
// function self time, so two phases (tracing off, tracing on) can be set side by side per request.
import { Session } from 'node:inspector/promises';
import type { CpuProfile, ProfileNode } from './support.js';

function frameName(node: ProfileNode): string {
  const frame = node.callFrame;
  const where = frame.url
    ? `${frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^.*\/wt-[^/]+\//, '')}:${frame.lineNumber + 1}`
    : '';
  return `${frame.functionName || '(anonymous)'} ${where}`.trim();
}

/** The package (`@opentelemetry/core`), Node module (`node:async_hooks`) or file a frame is in. */
function placeOf(node: ProfileNode): string {
  const url = node.callFrame.url;
  if (!url) return node.callFrame.functionName || '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1]!;
  return url.replace(/^.*\/wt-[^/]+\//, '').replace(/^file:\/\//, '');
}

export class PhaseProfiler {
  private readonly session = new Session();
  /** Self µs per function, summed over every profiled run of each phase. */
  readonly totals = new Map<string, Map<string, number>>();
  /** µs per place (package, module, file), inclusive: every sample with it anywhere on the stack. */
  readonly places = new Map<string, Map<string, number>>();

  async start(): Promise<void> {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 200 });
  }

  async profile<T>(phase: string, work: () => Promise<T>): Promise<T> {
    await this.session.post('Profiler.start');
    try {
      return await work();
    } finally {
      const { profile } = (await this.session.post('Profiler.stop')) as { profile: CpuProfile };
      const byId = new Map(profile.nodes.map((node) => [node.id, node]));
      const parents = new Map<number, number>();
      for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
      const totals = this.totals.get(phase) ?? new Map<string, number>();
      const places = this.places.get(phase) ?? new Map<string, number>();
      profile.samples.forEach((id, index) => {
        const micros = profile.timeDeltas[index] ?? 0;
        const key = frameName(byId.get(id)!);
        totals.set(key, (totals.get(key) ?? 0) + micros);
        const seen = new Set<string>();
        for (let at: number | undefined = id; at !== undefined; at = parents.get(at))
          seen.add(placeOf(byId.get(at)!));
        for (const place of seen) places.set(place, (places.get(place) ?? 0) + micros);
      });
      this.totals.set(phase, totals);
      this.places.set(phase, places);
    }
  }

  /**
   * The functions whose self time per request (or the places whose inclusive time) changed most
   * from `base` to `other`, in µs.
   */
  differences(
    base: string,
    baseRequests: number,
    other: string,
    otherRequests: number,
    { top = 30, by = 'function' }: { top?: number; by?: 'function' | 'place' } = {},
  ) {
    const source = by === 'function' ? this.totals : this.places;
    const a = source.get(base) ?? new Map<string, number>();
    const b = source.get(other) ?? new Map<string, number>();
    const names = new Set([...a.keys(), ...b.keys()]);
    return [...names]
      .filter((name) => !name.startsWith('(idle)') && !name.startsWith('(program)'))
      .map((name) => {
        const before = (a.get(name) ?? 0) / baseRequests;
        const after = (b.get(name) ?? 0) / otherRequests;
        return {
          name,
          [base]: Math.round(before * 100) / 100,
          [other]: Math.round(after * 100) / 100,
          delta: Math.round((after - before) * 100) / 100,
        };
      })
      .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta))
      .slice(0, top);
  }

  close(): void {
    this.session.disconnect();
  }
}
