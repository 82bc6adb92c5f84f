import type { NodeDetail } from './run-model';
import { StatusBadge } from '../shell/StatusBadge';
import { formatCost, formatDuration, formatTokens } from '../shell/format';

/** Each node with its state, time and usage; its output, error and log open on demand. */
export function NodeList({ nodes }: { nodes: NodeDetail[] }) {
  if (nodes.length === 0) return <p className="empty">No node has started yet.</p>;
  return (
    <ul className="nodes">
      {nodes.map((node) => {
        const facts = [
          formatDuration(node.durationMs),
          formatTokens(node.tokens ?? 0),
          formatCost(node.costUsd ?? 0),
        ].filter(Boolean);
        const hasMore = node.output || node.error || node.logs.length > 0 || node.items;
        return (
          <li key={node.id} className="node-item" data-node={node.id} data-state={node.state}>
            <details>
              <summary>
                <span className="node-name">{node.id}</span> <StatusBadge status={node.state} />
                {facts.length > 0 && <span className="muted small"> {facts.join(' · ')}</span>}
              </summary>
              {!hasMore && <p className="muted small">Nothing recorded yet.</p>}
              {node.error && (
                <pre tabIndex={0} className="node-error">
                  {node.error}
                </pre>
              )}
              {node.items && (
                <>
                  <h3 className="tool-label">Elements</h3>
                  <ol className="node-items" start={0}>
                    {node.items.map((item) => (
                      <li key={item.index} data-item={item.index} data-state={item.state}>
                        <StatusBadge status={item.state} /> <code>{item.item}</code>
                        {(item.error ?? item.output) && (
                          <pre tabIndex={0} className={item.error ? 'node-error' : undefined}>
                            {item.error ?? item.output}
                          </pre>
                        )}
                      </li>
                    ))}
                  </ol>
                </>
              )}
              {node.output && (
                <>
                  <h3 className="tool-label">Output</h3>
                  <pre tabIndex={0}>{node.output}</pre>
                </>
              )}
              {node.logs.length > 0 && (
                <>
                  <h3 className="tool-label">Log</h3>
                  <pre tabIndex={0} className="log">
                    {node.logs.map((entry, index) => (
                      <span key={index} className={entry.stream === 'stderr' ? 'stderr' : undefined}>
                        {entry.line}
                        {'\n'}
                      </span>
                    ))}
                  </pre>
                </>
              )}
            </details>
          </li>
        );
      })}
    </ul>
  );
}
