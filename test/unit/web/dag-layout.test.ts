import { expect } from 'chai';
import { layeredLayout } from '../../../web/src/graph/dag-layout.js';

const SIZE = { width: 100, height: 40, gap: 20, layerGap: 30 };
const node = (id: string, ...dependsOn: string[]) => ({ id, dependsOn });

describe('the DAG layout', () => {
  it('puts each node one layer below its deepest dependency, each layer centred', () => {
    const positions = layeredLayout(
      [node('a'), node('b', 'a'), node('c', 'a'), node('d', 'b', 'c', 'a')],
      SIZE,
    );
    expect(positions.get('a')).to.deep.equal({ x: 0, y: 0 });
    expect(positions.get('b')).to.deep.equal({ x: -60, y: 70 });
    expect(positions.get('c')).to.deep.equal({ x: 60, y: 70 });
    expect(positions.get('d')).to.deep.equal({ x: 0, y: 140 });
  });

  it('orders a layer under its parents, so edges do not cross', () => {
    // x2 depends on the right-hand root, x1 on the left-hand one: they swap to sit under them.
    const positions = layeredLayout(
      [node('left'), node('right'), node('x2', 'right'), node('x1', 'left')],
      SIZE,
    );
    expect(positions.get('x1')!.x).to.be.lessThan(positions.get('x2')!.x);
    expect(positions.get('left')!.x).to.be.lessThan(positions.get('right')!.x);
  });

  it('draws what is being typed: unknown dependencies ignored, a cycle cut, every node placed', () => {
    const positions = layeredLayout([node('a', 'b'), node('b', 'a'), node('c', 'nowhere')], SIZE);
    expect([...positions.keys()].sort()).to.deep.equal(['a', 'b', 'c']);
    expect(positions.get('c')!.y).to.equal(0);
    expect(positions.get('a')!.y).to.not.equal(positions.get('b')!.y);
  });

  it('lays out ten layers of ten', () => {
    const nodes = Array.from({ length: 100 }, (_, i) => node(`n${i}`, ...(i >= 10 ? [`n${i - 10}`] : [])));
    const positions = layeredLayout(nodes, SIZE);
    expect(new Set([...positions.values()].map((p) => p.y)).size).to.equal(10);
    expect(positions.get('n95')).to.deep.equal({ x: 5 * 120 - 4.5 * 120, y: 9 * 70 });
  });
});
