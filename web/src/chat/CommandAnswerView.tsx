import { Link } from 'react-router';
import type { operations } from '../api/schema';
import { markdownToHtml } from './markdown';

export type CommandAnswer = operations['runChatCommand']['responses'][200]['content']['application/json'];

/** What a chat command answered, with a way to the run it started or decided. */
export function CommandAnswerView({ answer, onClose }: { answer: CommandAnswer; onClose(): void }) {
  return (
    <div className={`command-answer${answer.ok ? '' : ' refused'}`} role="status">
      <div className="markdown" dangerouslySetInnerHTML={{ __html: markdownToHtml(answer.text) }} />
      <div className="button-row">
        {answer.runId && <Link to={`/runs/${encodeURIComponent(answer.runId)}`}>Open the run</Link>}
        <button type="button" className="quiet" onClick={onClose}>
          Dismiss
        </button>
      </div>
    </div>
  );
}
