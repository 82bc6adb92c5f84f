// The test's reading of /metrics: an independent parser of the Prometheus text format.
// @ts-expect-error the package ships no types; its one function is typed below.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface MetricSample {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
  sum?: string;
  buckets?: Record<string, string>;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: string;
  metrics: MetricSample[];
}

export function parseMetrics(text: string): MetricFamily[] {
  return (parsePrometheusTextFormat as (text: string) => MetricFamily[])(text);
}

/** The samples of one family whose labels include `labels`. */
export function samples(
  families: MetricFamily[],
  name: string,
  labels: Record<string, string> = {},
): MetricSample[] {
  const family = families.find((entry) => entry.name === name);
  return (family?.metrics ?? []).filter((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value),
  );
}

/**
 * The value of one series line (`name{labels} value`), read from the text itself: the parser
 * above gives a histogram's buckets but not its `_count` and `_sum` series.
 */
export function seriesValues(text: string, name: string, labels: Record<string, string> = {}): number[] {
  const values: number[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) values.push(Number(match[3]));
  }
  return values;
}
