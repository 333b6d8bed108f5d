import type { JSX } from 'react';
import type { RecentEntry } from '../../store/slices/library.ts';
import { traceHash } from '../app/route.ts';
import { CorrectnessBadge } from '../common/Badges.tsx';
import { agentCountOf, formatDate } from '../common/format.ts';

/** Imported traces without a date carry the epoch; showing "1970" would be misleading. */
function knownDate(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) || t === 0 ? '—' : formatDate(iso);
}

const SOURCE_LABEL: Record<RecentEntry['source'], string> = {
  example: 'example',
  file: 'file',
  link: 'share link',
  url: 'URL',
  app: 'Baton',
};

export function RecentsList({
  entries,
  onRemove,
}: {
  entries: readonly RecentEntry[];
  onRemove: (id: string) => void;
}): JSX.Element {
  return (
    <table className="table recents" data-testid="recents">
      <thead>
        <tr>
          <th scope="col">Title</th>
          <th scope="col" className="num">
            Agents
          </th>
          <th scope="col">Result</th>
          <th scope="col">Source</th>
          <th scope="col">Created</th>
          <th scope="col">Opened</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.id} data-testid="recent-item" data-id={e.id}>
            <td className="recents-title">
              <a href={traceHash(e.id)} title={e.title}>
                {e.title || e.id}
              </a>
            </td>
            <td className="num">
              {agentCountOf(e.agentCount, e.agentTypes.includes('SummarizerAgent') ? 1 : 0)}
            </td>
            <td>
              <CorrectnessBadge correct={e.correct} />
            </td>
            <td className="muted recents-source" title={e.sourceLabel}>
              {SOURCE_LABEL[e.source]}
              {e.sourceLabel ? ` · ${e.sourceLabel.split('/').pop() ?? ''}` : ''}
            </td>
            <td className="muted nowrap">{knownDate(e.createdAt)}</td>
            <td className="muted nowrap">{formatDate(e.openedAt)}</td>
            <td className="actions">
              <button
                type="button"
                className="btn btn-ghost btn-small"
                onClick={() => onRemove(e.id)}
                aria-label={`Remove ${e.title} from recent traces`}
                data-testid="recent-remove"
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
