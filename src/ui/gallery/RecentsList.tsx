import type { JSX } from 'react';
import { shownTitle, type RecentEntry } from '../../store/slices/library.ts';
import { traceHash } from '../app/route.ts';
import { CorrectnessBadge } from '../common/Badges.tsx';
import { agentCountOf, formatDate } from '../common/format.ts';

/**
 * The trace's own date. Imported traces whose source gives none carry the epoch (or nothing);
 * "1970" would be wrong, so they say so.
 */
export function traceDate(iso: string | undefined): string {
  const t = iso === undefined || iso.trim() === '' ? Number.NaN : Date.parse(iso);
  return Number.isNaN(t) || t === 0 ? 'date unknown' : formatDate(iso as string);
}

/** What the time in the list is: when the trace came into this browser, by how it came. */
const ADDED: Record<RecentEntry['source'], string> = {
  example: 'opened',
  file: 'imported',
  link: 'received',
  url: 'fetched',
  app: 'saved',
};

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
          <th scope="col" title="When the trace was imported, received or last opened in this browser">
            Added here
          </th>
          <th scope="col" title="The trace's own date, when its source records one">
            Trace date
          </th>
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
                {shownTitle(e.title, e.query) || e.id}
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
            <td className="muted nowrap" data-testid="recent-added">
              {ADDED[e.source]} {formatDate(e.openedAt)}
            </td>
            <td className="muted nowrap" data-testid="recent-date">
              {traceDate(e.createdAt)}
            </td>
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
