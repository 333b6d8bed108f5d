import type { JSX } from 'react';
import type { FileProgress, ModelEntryView } from '../../store/slices/orchestrate.ts';
import { useBaton } from '../../store/store.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { Loading } from '../common/Status.tsx';

/**
 * Which model writes the design: the manifest's offline model (the default, served with the app),
 * hub presets (marked as downloads, with their size), or any hub id or URL; where it runs (auto
 * picks WebGPU when the browser has an adapter, else wasm, and says why) and at which precision;
 * the load with a progress bar per file; and clearing the browser's copy of the model files.
 */

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return `${(n / (1024 * 1024 * 1024)).toFixed(2)} GB`;
}

/** The download size of the dtype the model would load first, in words. */
export function sizeOf(e: ModelEntryView, dtype: string): string {
  const mb = e.sizeMB[dtype === 'auto' ? (e.dtypes[0] ?? '') : dtype];
  return mb === undefined ? 'size unknown' : formatBytes(mb * 1024 * 1024);
}

function entryLabel(e: ModelEntryView): string {
  return e.source === 'offline'
    ? `${e.label} · offline, ${sizeOf(e, 'auto')}`
    : `${e.label} · needs a download (${sizeOf(e, 'auto')})`;
}

function FileBars({ files }: { files: readonly FileProgress[] }): JSX.Element | null {
  if (files.length === 0) return null;
  return (
    <ul className="orch-files" data-testid="orch-files">
      {files.map((f) => (
        <li key={f.file} className="orch-file" data-testid="orch-file-progress" data-file={f.file}>
          <span className="mono orch-file-name">{f.file}</span>
          <progress
            max={f.total ?? 1}
            value={f.done ? (f.total ?? 1) : f.total === null ? undefined : f.loaded}
            aria-label={`Download of ${f.file}`}
          />
          <span className="muted small">
            {f.total !== null ? `${formatBytes(f.loaded)} / ${formatBytes(f.total)}` : formatBytes(f.loaded)}
            {f.done ? ' · done' : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function ModelPanel(): JSX.Element {
  const d = useBaton((s) => s.orchDraft);
  const setDraft = useBaton((s) => s.setOrchDraft);
  const models = useBaton((s) => s.orchModels);
  const load = useBaton((s) => s.orchLoad);
  const cache = useBaton((s) => s.orchCache);
  const loadModel = useBaton((s) => s.loadOrchModel);
  const clearCache = useBaton((s) => s.clearOrchCache);
  const busy = useBaton((s) => s.orchLoad.status === 'loading' || s.orchGen?.status === 'running');
  const entries = models.status === 'ready' ? models.entries : [];
  const entry = entries.find((e) => e.id === d.modelId) ?? null;
  const dtypes = d.modelKind === 'manifest' && entry ? entry.dtypes : ['q4f16', 'q4', 'q8', 'fp32'];
  const warnings = models.status === 'ready' ? models.warnings : [];
  return (
    <fieldset className="orch-box" disabled={busy}>
      <legend>Model</legend>
      {models.status === 'loading' && <Loading>Reading the model list…</Loading>}
      {models.status === 'error' && (
        <ProblemAlert
          title="The model list could not be read"
          problems={models.problems}
          testId="orch-manifest-error"
        />
      )}
      {warnings.length > 0 && (
        <ul className="orch-warnings muted small" data-testid="orch-manifest-warnings">
          {warnings.map((w, i) => (
            <li key={i}>{w}</li>
          ))}
        </ul>
      )}
      <label>
        Model
        <select
          className="input"
          value={d.modelKind === 'custom' ? '__custom' : d.modelId}
          onChange={(e) =>
            e.target.value === '__custom'
              ? setDraft({ modelKind: 'custom', dtype: 'auto' })
              : setDraft({ modelKind: 'manifest', modelId: e.target.value, dtype: 'auto' })
          }
          data-testid="orch-model"
        >
          {d.modelKind === 'manifest' && !entry && (
            <option value={d.modelId}>
              {models.status === 'loading' || models.status === 'idle'
                ? 'Reading the list…'
                : 'No model chosen'}
            </option>
          )}
          {entries.map((e) => (
            <option key={e.id} value={e.id}>
              {entryLabel(e)}
            </option>
          ))}
          <option value="__custom">Another hub model or URL…</option>
        </select>
      </label>
      {d.modelKind === 'custom' && (
        <label>
          Hub id or URL
          <input
            className="input mono"
            value={d.customModel}
            placeholder="onnx-community/Qwen2.5-0.5B-Instruct"
            onChange={(e) => setDraft({ customModel: e.target.value })}
            data-testid="orch-custom-model"
          />
          <small className="muted">A download from the hub or that address; it needs a network.</small>
        </label>
      )}
      {d.modelKind === 'manifest' && entry && (
        <p className="muted small" data-testid="orch-model-note">
          {entry.source === 'offline'
            ? 'Served with Baton: works offline.'
            : `Downloaded from the hub on first load (${sizeOf(entry, d.dtype)}), then cached in this browser.`}{' '}
          {entry.paramsM} M parameters · license {entry.license}
          {entry.expectedSpeed ? ` · expect ${entry.expectedSpeed}` : ''}
        </p>
      )}
      <div className="orch-row">
        <label>
          Device
          <select
            className="input"
            value={d.device}
            onChange={(e) => setDraft({ device: e.target.value as typeof d.device })}
            data-testid="orch-device"
          >
            <option value="auto">auto (WebGPU if available)</option>
            <option value="webgpu">WebGPU</option>
            <option value="wasm">wasm (CPU)</option>
          </select>
        </label>
        <label>
          Precision
          <select
            className="input"
            value={d.dtype}
            onChange={(e) => setDraft({ dtype: e.target.value })}
            data-testid="orch-dtype"
          >
            <option value="auto">
              auto
              {entry ? ` (${entry.dtypes[0] ?? ''} or what the device suits)` : ' (what the device suits)'}
            </option>
            {dtypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="orch-actions">
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => void loadModel()}
          data-testid="orch-load"
        >
          {load.status === 'ready' ? 'Load again' : 'Load model'}
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => void clearCache()}
          disabled={cache.status === 'clearing'}
          data-testid="orch-clear-cache"
        >
          Clear cached models
        </button>
        {cache.status === 'cleared' && (
          <span className="muted small" data-testid="orch-cache-cleared">
            Removed {cache.removed} cached {cache.removed === 1 ? 'file' : 'files'}.
          </span>
        )}
      </div>
      {cache.status === 'error' && (
        <ProblemAlert title="The cache could not be cleared" problems={cache.problems} />
      )}
      <div
        className="orch-load"
        data-testid="orch-load-state"
        data-status={load.status}
        data-codes={load.status === 'error' ? load.problems.map((p) => p.code).join(' ') : undefined}
      >
        {load.status === 'loading' && (
          <Loading>
            Loading {load.label}
            {load.stage ? `: ${load.stage}` : '…'}
          </Loading>
        )}
        {load.status === 'ready' && (
          <p data-testid="orch-loaded">
            <span className="badge badge-ok">loaded</span> <span className="mono">{load.model.id}</span> ·{' '}
            {load.model.dtype} · <strong>{load.model.device}</strong>{' '}
            <span className="muted" data-testid="orch-device-reason">
              ({load.model.deviceReason})
            </span>{' '}
            · loaded in {(load.model.loadMs / 1000).toFixed(1)} s
          </p>
        )}
        {load.status === 'error' && (
          <ProblemAlert
            title={load.label ? `${load.label} could not be loaded` : 'The model could not be loaded'}
            problems={load.problems}
            testId="orch-load-error"
          />
        )}
        {load.status !== 'idle' && <FileBars files={load.files} />}
      </div>
    </fieldset>
  );
}
