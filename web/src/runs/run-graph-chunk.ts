// The run graph's chunk (the graph library and its layout), fetched as soon as a run's page opens,
// while the run's data loads, and kept once loaded. Not React.lazy: a lazy component suspends on its
// first render even when its chunk is already there, and React holds a suspended boundary's content
// back for a while (its fallback throttling), which delayed a drawn graph by up to 300 ms.
import { useEffect, useState } from 'react';
import type RunGraph from './RunGraph';

type RunGraphComponent = typeof RunGraph;

let loaded: RunGraphComponent | undefined;
let loading: Promise<RunGraphComponent> | undefined;

function loadRunGraph(): Promise<RunGraphComponent> {
  loading ??= import('./RunGraph').then((module) => (loaded = module.default));
  // A failed fetch is asked again next time (a page open on a server being restarted).
  loading.catch(() => (loading = undefined));
  return loading;
}

/** The graph's component once its chunk is loaded, or the error that stopped it. */
export function useRunGraph(): { RunGraph?: RunGraphComponent; error?: unknown } {
  const [state, setState] = useState<{ RunGraph?: RunGraphComponent; error?: unknown }>(() => {
    // Asked for in the page's first render, not its effects: the chunk is on its way sooner.
    if (!loaded) void loadRunGraph().catch(() => undefined);
    return { RunGraph: loaded };
  });
  useEffect(() => {
    if (state.RunGraph) return;
    let current = true;
    loadRunGraph().then(
      (RunGraph) => current && setState({ RunGraph }),
      (error: unknown) => current && setState({ error }),
    );
    return () => {
      current = false;
    };
  }, [state.RunGraph]);
  return state;
}
