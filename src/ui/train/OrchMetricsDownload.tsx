/**
 * The orchestrator mode's "Download metrics": the run's settings, every iteration's metrics and the
 * latest held-out evaluation as one JSON file (`orchRunFile`).
 */
import type { JSX } from 'react';
import { orchRunFile } from '../../store/slices/train-orch-run.ts';
import { useBaton } from '../../store/store.ts';
import { downloadText } from '../share/download.ts';

export function OrchMetricsDownload(): JSX.Element {
  const has = useBaton((s) => s.orchTrain.history.length > 0);
  return (
    <div className="train-row">
      <button
        type="button"
        className="btn"
        disabled={!has}
        onClick={() => {
          const s = useBaton.getState();
          const f = orchRunFile(s.orchForm, s.orchTrain);
          if (f) downloadText(f.name, f.text);
        }}
        data-testid="orch-download-metrics"
      >
        Download metrics (JSON)
      </button>
      <span className="muted small">
        every iteration's metrics, the settings and the latest before/after evaluation
      </span>
    </div>
  );
}
