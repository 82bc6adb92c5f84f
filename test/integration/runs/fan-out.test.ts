import { expect } from 'chai';
import { databaseKinds } from '../../support/databases.js';
import {
  eventsByNode as ended,
  startWorkflowRunHarness,
  type RunEvent,
  type WorkflowRunHarness,
} from '../../support/workflow-runs.js';

// Issue 18's fan-out: for_each nodes run with real Temporal, git, node and the fake assistant.

/**
 * Ten files from a script; a bash node per file, three at a time (each notes how many run beside
 * it, and the fifth fails its first try); an assistant node per result; a node reading the list.
 */
const FAN_OUT = `name: fan-out
nodes:
  - id: list
    runtime: node
    script: |
      const files = Array.from({ length: 10 }, (_, n) => ({ name: 'f' + n, n }));
      console.log(JSON.stringify({ files }));
    output_format:
      type: object
      properties: { files: { type: array } }
      required: [files]
  - id: each
    depends_on: [list]
    for_each: $list.output.files
    concurrency: 3
    retry: { attempts: 2, delay: 0s }
    bash: |
      mkdir -p "$ARTIFACTS_DIR/running"
      touch "$ARTIFACTS_DIR/running/$ITEM_INDEX"
      ls "$ARTIFACTS_DIR/running" | wc -l >> "$ARTIFACTS_DIR/widths"
      sleep 0.2
      rm "$ARTIFACTS_DIR/running/$ITEM_INDEX"
      if [ "$ITEM_INDEX" = 4 ] && [ ! -f "$ARTIFACTS_DIR/tried-4" ]; then touch "$ARTIFACTS_DIR/tried-4"; exit 3; fi
      echo "done $(node -p 'JSON.parse(process.env.ITEM).name')"
  - id: ask
    depends_on: [each]
    for_each: $each.output
    concurrency: 2
    prompt: "[fake:reply $ITEM_INDEX said $ITEM]"
  - id: summary
    depends_on: [ask]
    bash: |
      echo "widest $(sort -n "$ARTIFACTS_DIR/widths" | tail -n 1 | tr -d ' ')"
      echo "$ASK_OUTPUT"
`;

/** An element that fails (the others still run), and a for_each over text that is not a list. */
const FAN_OUT_FAILS = `name: fan-out-fails
nodes:
  - id: list
    bash: echo '["a", "bad", "c"]'
  - id: each
    depends_on: [list]
    for_each: $list.output
    bash: test "$ITEM" != bad && echo "ok $ITEM"
  - id: words
    bash: echo 'just text'
  - id: over
    depends_on: [words]
    for_each: $words.output
    bash: echo never
`;

/** How many elements of a node had started and not yet ended, at most, in event order. */
function widestInEvents(events: RunEvent[], nodeId: string): number {
  let running = 0;
  let widest = 0;
  for (const event of events) {
    if (event.nodeId !== nodeId) continue;
    if (event.type === 'node_item_started') widest = Math.max(widest, ++running);
    if (event.type === 'node_item_completed' || event.type === 'node_item_failed') running -= 1;
  }
  return widest;
}

for (const kind of databaseKinds()) {
  describe(`workflow language: for_each fan-out (${kind.name})`, function () {
    this.timeout(180_000);
    let harness: WorkflowRunHarness;

    before(async () => {
      harness = await startWorkflowRunHarness(kind, {
        'README.md': '# app\n',
        '.cairn/workflows/fan-out.yaml': FAN_OUT,
        '.cairn/workflows/fan-out-fails.yaml': FAN_OUT_FAILS,
      });
    });

    after(() => harness.close());

    it('runs 10 elements at most 3 at a time, retries one, and gathers outputs in the list order', async () => {
      const { run, events } = await harness.runToEnd('fan-out', 'every file');
      expect(run, JSON.stringify(run)).to.include({ status: 'completed', error: null });
      const names = Array.from({ length: 10 }, (_, n) => `done f${n}`);
      const completed = ended(events, 'node_completed');
      expect(completed.each!.output).to.deep.equal(names);
      expect(completed.ask!.output).to.deep.equal(names.map((name, n) => `${n} said ${name}`));
      // The workflow starts three lanes at once: three elements in flight, never four.
      expect(widestInEvents(events, 'each')).to.equal(3);
      expect(widestInEvents(events, 'ask')).to.equal(2);
      // What the scripts themselves saw running side by side.
      const widest = Number(/widest (\d+)/.exec(String(completed.summary!.output))![1]);
      expect(widest).to.be.within(1, 3);
      expect(String(completed.summary!.output)).to.include(JSON.stringify(completed.ask!.output));
      const started = events
        .filter((e) => e.type === 'node_item_started' && e.nodeId === 'each')
        .map((e) => e.payload);
      // Lanes record their starts side by side, so the events of one round may land in any order.
      expect(started.map((p) => p.index).sort((a, b) => Number(a) - Number(b))).to.deep.equal([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
      expect(started.find((p) => p.index === 3)!.item).to.deep.equal({ name: 'f3', n: 3 });
      const retries = events.filter((e) => e.type === 'node_retrying' && e.nodeId === 'each');
      expect(retries.map((e) => [e.payload.index, e.payload.attempt])).to.deep.equal([[4, 1]]);
      const itemEnds = events.filter((e) => e.type === 'node_item_completed' && e.nodeId === 'ask');
      expect(itemEnds).to.have.length(10);
      expect(itemEnds.every((e) => typeof e.payload.costUsd === 'number' && e.payload.costUsd > 0)).to.equal(
        true,
      );
    });

    it('runs every element when one fails, then fails the node naming it; a for_each over text fails at once', async () => {
      const { run, events } = await harness.runToEnd('fan-out-fails', 'go');
      expect(run.status).to.equal('failed');
      const failed = ended(events, 'node_failed');
      expect(failed.each!.error).to.equal('1 of 3 elements failed (index 1)');
      expect(failed.each!.output).to.deep.equal(['ok a', null, 'ok c']);
      expect(failed.over!.error).to.match(
        /^for_each: \$words\.output is not a list \(it is the text "just text/,
      );
      const itemEvents = events
        .filter(
          (e) => e.nodeId === 'each' && e.type.startsWith('node_item_') && e.type !== 'node_item_started',
        )
        .map((e) => [e.type, e.payload.index])
        .sort((a, b) => Number(a[1]) - Number(b[1]));
      expect(itemEvents).to.deep.equal([
        ['node_item_completed', 0],
        ['node_item_failed', 1],
        ['node_item_completed', 2],
      ]);
      expect(events.some((e) => e.nodeId === 'over' && e.type === 'node_item_started')).to.equal(false);
      expect(run.error).to.match(/node (each|over) failed/);
    });
  });
}
