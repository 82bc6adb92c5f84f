import { expect } from 'chai';
import { boundsOf, fitted, transformOf, zoomedAround, ZOOM } from '../../../web/src/graph/viewport.js';

const NODE = { width: 100, height: 40 };

describe("the graph's viewport", () => {
  it('bounds every node by its top-left corner and size, negative places included', () => {
    const bounds = boundsOf(
      [
        { x: -120, y: 0 },
        { x: 120, y: 0 },
        { x: 0, y: 70 },
      ],
      NODE,
    );
    expect(bounds).to.deep.equal({ x: -120, y: 0, width: 340, height: 110 });
    expect(boundsOf([], NODE)).to.deep.equal({ x: 0, y: 0, width: 0, height: 0 });
  });

  it('centres a small graph at zoom 1, never enlarging it', () => {
    const view = fitted({ x: -50, y: 0, width: 100, height: 40 }, { width: 800, height: 400 });
    expect(view.zoom).to.equal(1);
    // The graph's centre (0, 20) lands on the box's centre (400, 200).
    expect(view.x + 0 * view.zoom).to.equal(400);
    expect(view.y + 20 * view.zoom).to.equal(200);
  });

  it('shrinks a large graph until it fits with room around it, no further than the least zoom', () => {
    const bounds = { x: 0, y: 0, width: 1000, height: 500 };
    const view = fitted(bounds, { width: 600, height: 600 });
    // The width limits: 600 / (1000 × 1.2).
    expect(view.zoom).to.equal(0.5);
    expect(view.x).to.equal(300 - 500 * 0.5);
    const left = view.x + bounds.x * view.zoom;
    const right = view.x + (bounds.x + bounds.width) * view.zoom;
    expect(left).to.be.greaterThan(0);
    expect(right).to.be.lessThan(600);
    expect(fitted({ x: 0, y: 0, width: 100_000, height: 10 }, { width: 600, height: 600 }).zoom).to.equal(
      ZOOM.min,
    );
  });

  it('zooms around a point, keeping what is under it there, within the zoom limits', () => {
    const start = { x: 10, y: 20, zoom: 1 };
    const at = { x: 200, y: 100 };
    const zoomed = zoomedAround(start, 1.25, at);
    expect(zoomed.zoom).to.equal(1.25);
    // The drawing's point under `at` before: ((200-10)/1, (100-20)/1) = (190, 80); after, still under it.
    expect(zoomed.x + 190 * zoomed.zoom).to.be.closeTo(200, 1e-9);
    expect(zoomed.y + 80 * zoomed.zoom).to.be.closeTo(100, 1e-9);
    expect(zoomedAround(start, 100, at).zoom).to.equal(ZOOM.max);
    expect(zoomedAround(start, 0.01, at).zoom).to.equal(ZOOM.min);
  });

  it('is written as one CSS transform, translation first', () => {
    expect(transformOf({ x: 5, y: -3, zoom: 0.5 })).to.equal('translate(5px, -3px) scale(0.5)');
  });
});
